package dev.monoagent.model;

import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.client.okhttp.AnthropicOkHttpClientAsync;
import com.anthropic.core.JsonValue;
import com.anthropic.core.ObjectMappers;
import com.anthropic.core.http.AsyncStreamResponse;
import com.anthropic.errors.AnthropicInvalidDataException;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.MessageCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code anthropic}: the Messages API through {@code com.anthropic:anthropic-java} (its retries off). In-stream
 * {@code error} events (overloaded after a 200) are classified by their error type, not the HTTP status.
 */
final class AnthropicClient extends RetryingClient {
    private final String baseUrl;
    private final Duration timeout;
    private final String apiKey;
    private final String keyEnv;
    private final long maxTokens;
    private final Lazy<AnthropicClientAsync> sdk;

    AnthropicClient(String provider, String baseUrl, RetryPolicy policy, Duration timeout, String apiKey,
                    String keyEnv, long maxTokens) {
        super(provider, policy);
        this.baseUrl = baseUrl;
        this.timeout = timeout;
        this.apiKey = apiKey;
        this.keyEnv = keyEnv;
        this.maxTokens = maxTokens;
        this.sdk = new Lazy<>(() -> AnthropicOkHttpClientAsync.builder()
                .baseUrl(baseUrl)
                .apiKey(apiKey)
                .maxRetries(0)
                .timeout(timeout)
                .addInterceptor(AnthropicCalls.INTERCEPTOR)
                .build());
    }

    @Override
    public void warmUp() {
        sdk.get();
        try {
            ObjectMappers.jsonMapper().readValue("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                    + "{\"type\":\"text_delta\",\"text\":\"x\"}}",
                    com.anthropic.models.messages.RawMessageStreamEvent.class);
        } catch (java.io.IOException | RuntimeException e) {
            // a warm-up that fails leaves the first call to pay
        }
    }

    @Override
    java.util.List<String> secrets() {
        return apiKey == null ? java.util.List.of() : java.util.List.of(apiKey);
    }

    @Override
    ModelEvent.Completed attempt(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel)
            throws ProviderFailure {
        if (apiKey == null) {
            throw ProviderFailure.missingKey(provider(), keyEnv);
        }
        MessageCreateParams.Builder b = MessageCreateParams.builder()
                .model(request.model())
                .maxTokens(maxTokens)
                .messages(raw(AnthropicWire.messages(request.input())));
        if (request.instructions() != null && !request.instructions().isBlank()) {
            b.putAdditionalBodyProperty("system", JsonValue.from(request.instructions()));
        }
        if (!request.tools().isEmpty()) {
            b.putAdditionalBodyProperty("tools", JsonValue.fromJsonNode(AnthropicWire.tools(request.tools())));
        }
        String tag = StreamPump.newTag();
        b.putAdditionalHeader(HttpCalls.TAG, tag);
        AnthropicWire.Reader reader = new AnthropicWire.Reader(provider());
        String authFix = "check " + keyEnv;
        try {
            AsyncStreamResponse<?> response = sdk.get().messages().createStreaming(b.build());
            return StreamPump.run(tag, pump -> subscribe(response, pump), () -> {
                response.close();
                AnthropicCalls.abort(tag);
            }, cancel, ev -> reader.on(ev, sink), () -> {
                throw reader.end();
            }, t -> failure(t, authFix));
        } catch (ProviderFailure f) {
            throw f;
        } catch (RuntimeException e) {
            throw failure(e, authFix);
        }
    }

    /** Our own JSON where the SDK wants a typed list (the request body is ours; the SDK carries it). */
    @SuppressWarnings("unchecked")
    private static <T> com.anthropic.core.JsonField<T> raw(JsonNode node) {
        return (com.anthropic.core.JsonField<T>) (com.anthropic.core.JsonField<?>) JsonValue.fromJsonNode(node);
    }

    private static <T> void subscribe(AsyncStreamResponse<T> response, EventPump<JsonNode> pump) {
        response.subscribe(new AsyncStreamResponse.Handler<T>() {
            @Override
            public void onNext(T event) {
                pump.offer(ObjectMappers.jsonMapper().valueToTree(event));
            }

            @Override
            public void onComplete(Optional<Throwable> error) {
                pump.complete(error);
            }
        });
    }

    private ProviderFailure failure(Throwable t, String authFix) {
        Throwable e = StreamPump.unwrap(t);
        if (e instanceof ProviderFailure pf) {
            return pf;
        }
        if (e instanceof AnthropicServiceException s) {
            JsonNode body = ObjectMappers.jsonMapper().valueToTree(s.body());
            if (s.statusCode() == 200 || e instanceof com.anthropic.errors.SseException) {
                JsonNode err = body.has("error") ? body.get("error") : body;
                return Failures.inStream(provider(), err.path("type").asText(""), err.path("message").asText(""));
            }
            return Failures.http(provider(), s.statusCode(), name -> first(s.headers().values(name)), body, authFix);
        }
        if (e instanceof AnthropicIoException || e instanceof java.io.IOException) {
            return ProviderFailure.transientFailure(0, -1, provider() + ": network error ("
                    + StreamPump.rootMessage(e) + ")");
        }
        if (e instanceof AnthropicInvalidDataException || e instanceof com.fasterxml.jackson.core.JacksonException) {
            return ProviderFailure.transientFailure(0, -1, provider() + ": malformed stream event ("
                    + StreamPump.rootMessage(e) + ")");
        }
        return ProviderFailure.transientFailure(0, -1, provider() + ": " + StreamPump.rootMessage(e));
    }

    private static String first(List<String> values) {
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
