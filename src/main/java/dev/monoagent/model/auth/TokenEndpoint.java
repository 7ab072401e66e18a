package dev.monoagent.model.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The authorization server's token endpoints as the Codex CLI uses them: code exchange (form-encoded), refresh
 * (JSON, refresh tokens rotate), and the device-code pair. Responses are parsed here; error bodies come in two shapes
 * ({@code {error:"code", error_description}} and {@code {error:{code,message}}}) and are classified permanent or
 * transient. Token values never appear in an exception message.
 */
final class TokenEndpoint {
    /** Refresh refusals after which the refresh token is dead (the Codex CLI's list) plus the OAuth generic one. */
    static final Set<String> PERMANENT_REFRESH_CODES = Set.of("refresh_token_expired", "refresh_token_reused",
            "refresh_token_invalidated", "invalid_grant");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final CodexAuthSettings settings;
    private final HttpClient http;
    private final Clock clock;

    TokenEndpoint(CodexAuthSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(15))
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** Exchanges an authorization code; all three tokens are required. */
    CodexTokens exchangeCode(String code, String verifier, String redirectUri, String origin)
            throws AuthEndpointException {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", redirectUri);
        form.put("client_id", settings.clientId());
        form.put("code_verifier", verifier);
        String body = form.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        JsonNode r = post(settings.tokenUrl(), "application/x-www-form-urlencoded", body, "code exchange", false);
        String id = text(r, "id_token");
        String access = text(r, "access_token");
        String refresh = text(r, "refresh_token");
        if (id == null || access == null || refresh == null) {
            throw new AuthEndpointException("The token endpoint's answer lacks id_token, access_token or refresh_token.",
                    null, true);
        }
        return CodexTokens.from(id, access, refresh, expiresIn(r), clock.instant(), origin);
    }

    /** Trades {@code old}'s refresh token for new tokens; fields the server leaves out are kept from {@code old}. */
    CodexTokens refresh(CodexTokens old) throws AuthEndpointException {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("client_id", settings.clientId());
        body.put("grant_type", "refresh_token");
        body.put("refresh_token", old.refreshToken());
        JsonNode r;
        try {
            r = post(settings.tokenUrl(), "application/json", JSON.writeValueAsString(body), "token refresh", true);
        } catch (IOException e) {
            throw new AuthEndpointException("cannot encode the refresh request", null, false);
        }
        String id = orElse(text(r, "id_token"), old.idToken());
        String access = text(r, "access_token");
        if (access == null) {
            throw new AuthEndpointException("The token endpoint's refresh answer has no access_token.", null, false);
        }
        String refresh = orElse(text(r, "refresh_token"), old.refreshToken());
        CodexTokens fresh = CodexTokens.from(id, access, refresh, expiresIn(r), clock.instant(), old.origin());
        return new CodexTokens(fresh.idToken(), fresh.accessToken(), fresh.refreshToken(),
                orElse(fresh.accountId(), old.accountId()), orElse(fresh.email(), old.email()),
                orElse(fresh.plan(), old.plan()), fresh.expiresAt(), fresh.lastRefresh(), fresh.origin(), null);
    }

    /** The first device-code step: {@code {device_auth_id, user_code, interval}}. */
    DeviceCode requestDeviceCode() throws AuthEndpointException {
        String body = "{\"client_id\":" + quote(settings.clientId()) + "}";
        JsonNode r;
        try {
            r = post(settings.deviceUserCodeUrl(), "application/json", body, "device code request", false);
        } catch (AuthEndpointException e) {
            if ("http_404".equals(e.code())) {
                throw new AuthEndpointException("Device code sign-in is not enabled on " + settings.issuer()
                        + "; use the browser flow (without --device).", e.code(), true);
            }
            throw e;
        }
        String id = text(r, "device_auth_id");
        String user = orElse(text(r, "user_code"), text(r, "usercode"));
        if (id == null || user == null) {
            throw new AuthEndpointException("The device code answer lacks device_auth_id or user_code.", null, true);
        }
        long interval = 5;
        JsonNode iv = r.path("interval");
        if (iv.isNumber() || iv.isTextual()) {
            try {
                interval = Math.max(1, Long.parseLong(iv.asText().strip()));
            } catch (NumberFormatException ignored) {
                // keep the default
            }
        }
        return new DeviceCode(id, user, Duration.ofSeconds(interval));
    }

    /** One poll: the authorization code and PKCE pair once the user approved, or null while still pending. */
    DeviceGrant pollDevice(DeviceCode dc) throws AuthEndpointException {
        String body = "{\"device_auth_id\":" + quote(dc.deviceAuthId()) + ",\"user_code\":" + quote(dc.userCode())
                + "}";
        HttpResponse<String> resp = send(settings.deviceTokenUrl(), "application/json", body, "device poll");
        if (resp.statusCode() == 403 || resp.statusCode() == 404) {
            return null;
        }
        JsonNode r = parseOrFail(resp, "device poll", false);
        String code = text(r, "authorization_code");
        String verifier = text(r, "code_verifier");
        String challenge = text(r, "code_challenge");
        if (code == null || verifier == null) {
            throw new AuthEndpointException("The device token answer lacks authorization_code or code_verifier.",
                    null, true);
        }
        if (challenge != null && !challenge.equals(Pkce.challengeOf(verifier))) {
            throw new AuthEndpointException("The device token answer's code_challenge does not match its verifier.",
                    null, true);
        }
        return new DeviceGrant(code, verifier);
    }

    record DeviceCode(String deviceAuthId, String userCode, Duration interval) {}

    record DeviceGrant(String authorizationCode, String verifier) {
        @Override
        public String toString() {
            return "DeviceGrant[redacted]";
        }
    }

    private JsonNode post(URI url, String type, String body, String what, boolean refresh)
            throws AuthEndpointException {
        return parseOrFail(send(url, type, body, what), what, refresh);
    }

    private HttpResponse<String> send(URI url, String type, String body, String what) throws AuthEndpointException {
        HttpRequest req = HttpRequest.newBuilder(url).timeout(TIMEOUT).header("Content-Type", type)
                .header("Accept", "application/json").header("originator", CodexAuthSettings.ORIGINATOR)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        try {
            return http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AuthEndpointException(what + " failed: cannot reach " + url.getHost() + " (" + e.getMessage()
                    + ")", null, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AuthEndpointException(what + " interrupted", null, false);
        }
    }

    private static JsonNode parseOrFail(HttpResponse<String> resp, String what, boolean refresh)
            throws AuthEndpointException {
        JsonNode json;
        try {
            json = JSON.readTree(resp.body() == null || resp.body().isBlank() ? "{}" : resp.body());
        } catch (IOException e) {
            json = JSON.createObjectNode();
        }
        if (resp.statusCode() / 100 == 2) {
            if (json == null || !json.isObject()) {
                throw new AuthEndpointException(what + ": the answer is not a JSON object", null, false);
            }
            return json;
        }
        String code = null;
        String message = null;
        if (json != null) {
            JsonNode err = json.path("error");
            if (err.isTextual()) {
                code = err.asText();
                message = text(json, "error_description");
            } else if (err.isObject()) {
                code = text(err, "code");
                message = text(err, "message");
            }
        }
        int status = resp.statusCode();
        boolean permanent = refresh ? status == 401 || (code != null && PERMANENT_REFRESH_CODES.contains(code))
                : status / 100 == 4 && status != 408 && status != 429;
        String shown = code != null ? code : "http_" + status;
        return failWith(what + " refused (HTTP " + status + ", " + shown + ")"
                + (message != null ? ": " + sanitize(message) : "."), code != null ? code : "http_" + status,
                permanent);
    }

    private static JsonNode failWith(String message, String code, boolean permanent) throws AuthEndpointException {
        throw new AuthEndpointException(message, code, permanent);
    }

    /** Server text goes into our messages: keep it one short line. */
    private static String sanitize(String s) {
        String one = s.replaceAll("[\\r\\n\\t]+", " ").strip();
        return one.length() > 200 ? one.substring(0, 200) + "…" : one;
    }

    private static Long expiresIn(JsonNode r) {
        JsonNode e = r.path("expires_in");
        return e.isNumber() ? e.asLong() : null;
    }

    private static String text(JsonNode n, String k) {
        JsonNode v = n.path(k);
        return v.isTextual() && !v.asText().isEmpty() ? v.asText() : null;
    }

    private static String orElse(String a, String b) {
        return a != null ? a : b;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
