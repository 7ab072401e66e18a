package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.okhttp.OpenAIOkHttpClientAsync;
import com.openai.core.ObjectMappers;
import com.openai.core.http.AsyncStreamResponse;
import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.SseException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The parts of {@code com.openai:openai-java} our OpenAI-shaped clients share: building the SDK client (its own
 * retries off: {@link RetryingClient} decides), pumping a stream to the caller with cancel wired to the HTTP call,
 * and mapping the SDK's exceptions into {@link ProviderFailure}s. Referenced only from a first model call, so the
 * SDK's classes stay off the start-up path.
 */
final class OpenAiSdk {
    private OpenAiSdk() {}

    /**
     * The OkHttp client every OpenAI-shaped client borrows: sockets without Nagle's delay ({@link NoDelaySockets}),
     * and as many concurrent calls per host as in all (the SDK's own default; OkHttp's is 5). Timeouts are set per
     * call by the SDK from {@code timeout}.
     */
    private static final okhttp3.OkHttpClient HTTP = http();

    private static okhttp3.OkHttpClient http() {
        okhttp3.OkHttpClient c = new okhttp3.OkHttpClient.Builder().socketFactory(NoDelaySockets.INSTANCE).build();
        c.dispatcher().setMaxRequestsPerHost(c.dispatcher().getMaxRequests());
        return c;
    }

    static OpenAIClientAsync client(String baseUrl, String apiKey, Duration timeout, Map<String, String> headers) {
        OpenAIOkHttpClientAsync.Builder b = OpenAIOkHttpClientAsync.builder()
                .okHttpClient(HTTP)
                .baseUrl(baseUrl)
                .apiKey(apiKey == null ? "unused" : apiKey)
                .maxRetries(0)
                .timeout(timeout)
                .addInterceptor(HttpCalls.INSTANCE);
        headers.forEach(b::putHeader);
        return b.build();
    }

    /** Runs {@code response} through a {@link StreamPump} with OpenAI's exception mapping. */
    static <T, R> R pump(String provider, String authFix, String tag, AsyncStreamResponse<T> response,
                         CancelSignal cancel, StreamPump.EventHandler<R> onEvent, StreamPump.AtEnd<R> atEnd)
            throws ProviderFailure {
        return StreamPump.run(tag, pump -> response.subscribe(new AsyncStreamResponse.Handler<T>() {
            @Override
            public void onNext(T event) {
                pump.offer(ObjectMappers.jsonMapper().valueToTree(event));
            }

            @Override
            public void onComplete(Optional<Throwable> error) {
                pump.complete(error);
            }
        }), response::close, cancel, onEvent, atEnd, t -> failure(provider, t, authFix));
    }

    /** Parses one canned event with the SDK's mapper so its deserializers exist before the first call. */
    static void warmUp(Class<?> eventType, String json) {
        try {
            ObjectMappers.jsonMapper().readValue(json, eventType);
        } catch (java.io.IOException | RuntimeException e) {
            // a warm-up that fails leaves the first call to pay
        }
    }

    /** Classifies whatever the SDK threw. */
    static ProviderFailure failure(String provider, Throwable t, String authFix) {
        Throwable e = StreamPump.unwrap(t);
        if (e instanceof ProviderFailure pf) {
            return pf;
        }
        if (e instanceof SseException s) {
            JsonNode body = tree(s.body());
            JsonNode err = body.has("error") ? body.get("error") : body;
            return Failures.inStream(provider, err.path("code").asText(err.path("type").asText("")),
                    err.path("message").asText(""));
        }
        if (e instanceof OpenAIServiceException s) {
            return Failures.http(provider, s.statusCode(), name -> first(s.headers().values(name)), tree(s.body()),
                    authFix);
        }
        if (e instanceof OpenAIIoException || e instanceof java.io.IOException) {
            return ProviderFailure.transientFailure(0, -1, provider + ": network error ("
                    + StreamPump.rootMessage(e) + ")");
        }
        if (e instanceof OpenAIInvalidDataException
                || e instanceof com.fasterxml.jackson.core.JacksonException) {
            return ProviderFailure.transientFailure(0, -1, provider + ": malformed stream event ("
                    + StreamPump.rootMessage(e) + ")");
        }
        return ProviderFailure.transientFailure(0, -1, provider + ": " + e.getClass().getSimpleName() + " ("
                + StreamPump.rootMessage(e) + ")");
    }

    static JsonNode tree(Object sdkJson) {
        try {
            return ObjectMappers.jsonMapper().valueToTree(sdkJson);
        } catch (IllegalArgumentException e) {
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
    }

    private static String first(List<String> values) {
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
