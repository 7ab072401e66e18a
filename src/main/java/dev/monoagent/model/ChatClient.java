package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClientAsync;
import com.openai.core.JsonField;
import com.openai.core.JsonValue;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code ollama}, {@code lmstudio}, {@code openrouter} and {@code openai_compat}: OpenAI-compatible Chat
 * Completions at the provider's base URL, through the OpenAI SDK (retries off). Local servers need no key; a
 * placeholder bearer is sent then, as they expect.
 */
final class ChatClient extends RetryingClient {
    private final String baseUrl;
    private final Duration timeout;
    private final String apiKey;
    private final String keyEnv;
    private final Lazy<OpenAIClientAsync> sdk;

    ChatClient(String provider, String baseUrl, RetryPolicy policy, Duration timeout, String apiKey, String keyEnv) {
        super(provider, policy);
        this.baseUrl = baseUrl;
        this.timeout = timeout;
        this.apiKey = apiKey;
        this.keyEnv = keyEnv;
        this.sdk = new Lazy<>(() -> OpenAiSdk.client(baseUrl, apiKey == null ? provider : apiKey, timeout, Map.of()));
    }

    @Override
    public void warmUp() {
        sdk.get();
        OpenAiSdk.warmUp(com.openai.models.chat.completions.ChatCompletionChunk.class,
                "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}");
    }

    @Override
    java.util.List<String> secrets() {
        return apiKey == null ? java.util.List.of() : java.util.List.of(apiKey);
    }

    @Override
    ModelEvent.Completed attempt(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel)
            throws ProviderFailure {
        if (apiKey == null && keyEnv != null) {
            throw ProviderFailure.missingKey(provider(), keyEnv);
        }
        ChatCompletionCreateParams.Builder b = ChatCompletionCreateParams.builder()
                .model(request.model())
                .messages(raw(ChatWire.messages(request.instructions(), request.input())))
                .putAdditionalBodyProperty("stream_options", JsonValue.from(Map.of("include_usage", true)));
        if (!request.tools().isEmpty()) {
            b.putAdditionalBodyProperty("tools", JsonValue.fromJsonNode(ChatWire.tools(request.tools())));
        }
        String tag = StreamPump.newTag();
        b.putAdditionalHeader(HttpCalls.TAG, tag);
        ChatWire.Reader reader = new ChatWire.Reader(provider());
        String authFix = keyEnv == null ? "check the endpoint's credentials" : "check " + keyEnv;
        try {
            return OpenAiSdk.pump(provider(), authFix, tag, sdk.get().chat().completions().createStreaming(b.build()),
                    cancel, ev -> {
                        reader.on(ev, sink);
                        return null;
                    }, reader::end);
        } catch (ProviderFailure f) {
            throw f;
        } catch (RuntimeException e) {
            throw OpenAiSdk.failure(provider(), e, authFix);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> JsonField<T> raw(JsonNode node) {
        return (JsonField<T>) (JsonField<?>) JsonValue.fromJsonNode(node);
    }
}
