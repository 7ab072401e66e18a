package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what providers say when they fail (HTTP status, error body, headers, in-stream error events) into one
 * classified {@link ProviderFailure}. All wires share it so a 429 or an overflow means the same everywhere.
 */
final class Failures {
    /** Overflow wording seen across providers (OpenAI, Anthropic, LM Studio, llama.cpp, vLLM). */
    private static final Pattern OVERFLOW = Pattern.compile(
            "context[_ ]length[_ ]exceeded|exceeds? the context window|maximum context length|prompt is too long"
                    + "|greater than the context length|context window exceeded|too many tokens",
            Pattern.CASE_INSENSITIVE);
    private static final Set<String> QUOTA = Set.of("usage_limit_reached", "insufficient_quota",
            "usage_not_included", "billing_error");
    private static final Pattern TRY_AGAIN = Pattern.compile("try again in\\s*([0-9.]+)\\s*(ms|s|seconds?)",
            Pattern.CASE_INSENSITIVE);

    private Failures() {}

    /**
     * An HTTP error response.
     *
     * @param header  header lookup (case-insensitive), null when absent
     * @param authFix what the user should do when credentials are refused
     */
    static ProviderFailure http(String provider, int status, Function<String, String> header, JsonNode body,
                                String authFix) {
        String code = code(body);
        String msg = message(body);
        String said = msg.isEmpty() ? "" : ": " + msg;
        if (status == 401) {
            return ProviderFailure.permanent(FailureKind.AUTH_REQUIRED, status,
                    provider + " rejected the credentials (HTTP 401)" + said + "; " + authFix);
        }
        if (isOverflow(code, msg)) {
            return ProviderFailure.permanent(FailureKind.CONTEXT_LIMIT, status,
                    provider + ": the conversation exceeds the model's context window" + said);
        }
        if (QUOTA.contains(code) || QUOTA.contains(type(body)) || status == 402) {
            return ProviderFailure.permanent(FailureKind.USAGE_LIMIT, status,
                    provider + ": usage limit reached (HTTP " + status + ")" + said);
        }
        if (status == 429 || status == 408 || status == 409 || status >= 500) {
            String what = status == 429 ? "rate limited" : status == 529 || "overloaded_error".equals(code)
                    ? "overloaded" : "server error";
            return ProviderFailure.transientFailure(status, retryAfter(header, msg),
                    provider + " " + what + " (HTTP " + status + ")" + said);
        }
        return ProviderFailure.permanent(FailureKind.PROVIDER_UNAVAILABLE, status,
                provider + " refused the request (HTTP " + status + ")" + said);
    }

    /** An error reported inside a 200 stream ({@code error}, {@code response.failed}, Anthropic {@code error}). */
    static ProviderFailure inStream(String provider, String code, String message) {
        String c = code == null ? "" : code;
        String m = message == null ? "" : message;
        String said = m.isEmpty() ? " (" + c + ")" : ": " + m;
        if (isOverflow(c, m)) {
            return ProviderFailure.permanent(FailureKind.CONTEXT_LIMIT, 0,
                    provider + ": the conversation exceeds the model's context window" + said);
        }
        if (QUOTA.contains(c)) {
            return ProviderFailure.permanent(FailureKind.USAGE_LIMIT, 0, provider + ": usage limit reached" + said);
        }
        if (c.equals("invalid_request_error") || c.equals("invalid_prompt") || c.equals("authentication_error")) {
            FailureKind k = c.equals("authentication_error") ? FailureKind.AUTH_REQUIRED
                    : FailureKind.PROVIDER_UNAVAILABLE;
            return ProviderFailure.permanent(k, 0, provider + " refused the request" + said);
        }
        return ProviderFailure.transientFailure(0, tryAgainIn(m), provider + " stream error" + said);
    }

    static boolean isOverflow(String code, String message) {
        return "context_length_exceeded".equals(code) || "model_context_window_exceeded".equals(code)
                || (message != null && OVERFLOW.matcher(message).find());
    }

    /** {@code error.code}, else {@code error.type}, else a string {@code error}; "" when none. */
    static String code(JsonNode body) {
        JsonNode e = errorObject(body);
        if (e == null) {
            return "";
        }
        if (e.isTextual()) {
            return "";
        }
        String c = e.path("code").asText("");
        return c.isEmpty() || c.equals("null") ? e.path("type").asText("") : c;
    }

    private static String type(JsonNode body) {
        JsonNode e = errorObject(body);
        return e == null ? "" : e.path("type").asText("");
    }

    /** {@code body.error}, or the body itself when an SDK already unwrapped it to the error object. */
    private static JsonNode errorObject(JsonNode body) {
        if (body == null || !body.isObject()) {
            return null;
        }
        if (body.has("error")) {
            return body.get("error");
        }
        return body.has("code") || body.has("type") ? body : null;
    }

    /** The human message of an error body in any of the shapes providers use. */
    static String message(JsonNode body) {
        if (body == null || body.isMissingNode() || body.isNull()) {
            return "";
        }
        if (body.isTextual()) {
            return clip(body.asText());
        }
        JsonNode e = body.get("error");
        if (e != null && e.isTextual()) {
            return clip(e.asText());
        }
        if (e != null && e.hasNonNull("message")) {
            return clip(e.get("message").asText());
        }
        if (body.hasNonNull("detail")) {
            JsonNode d = body.get("detail");
            return clip(d.isTextual() ? d.asText() : d.toString());
        }
        return body.hasNonNull("message") ? clip(body.get("message").asText()) : "";
    }

    /** Server-directed delay: {@code retry-after-ms}, {@code retry-after} (seconds or HTTP date), "try again in". */
    static long retryAfter(Function<String, String> header, String message) {
        String ms = header.apply("retry-after-ms");
        if (ms != null) {
            try {
                return Math.max(0, Math.round(Double.parseDouble(ms.trim())));
            } catch (NumberFormatException ignored) {
                // fall through to retry-after
            }
        }
        String ra = header.apply("retry-after");
        if (ra != null) {
            try {
                return Math.max(0, Math.round(Double.parseDouble(ra.trim()) * 1000));
            } catch (NumberFormatException notSeconds) {
                try {
                    ZonedDateTime at = ZonedDateTime.parse(ra.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                    return Math.max(0, Duration.between(ZonedDateTime.now(at.getZone()), at).toMillis());
                } catch (java.time.format.DateTimeParseException ignored) {
                    // unusable header: our own backoff applies
                }
            }
        }
        return tryAgainIn(message);
    }

    private static long tryAgainIn(String message) {
        Matcher m = TRY_AGAIN.matcher(message == null ? "" : message);
        if (!m.find()) {
            return -1;
        }
        double v = Double.parseDouble(m.group(1));
        return Math.round(m.group(2).toLowerCase(Locale.ROOT).equals("ms") ? v : v * 1000);
    }

    private static String clip(String s) {
        return s.length() > 500 ? s.substring(0, 500) + "…" : s;
    }
}
