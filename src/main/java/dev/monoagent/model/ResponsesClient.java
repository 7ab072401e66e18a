package dev.monoagent.model;

import com.openai.client.OpenAIClientAsync;
import dev.monoagent.model.auth.AuthRequiredException;
import dev.monoagent.model.auth.AuthUnavailableException;
import dev.monoagent.model.auth.CodexCredential;
import dev.monoagent.model.auth.CodexCredentials;
import com.openai.core.JsonValue;
import com.openai.models.responses.ResponseCreateParams;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code openai} (Responses API with an API key) and {@code openai-codex} (the same wire on the ChatGPT backend at
 * {@code {base}/codex/responses}, with a sign-in token and the account header) through the OpenAI SDK. Stateless:
 * {@code store:false}, the whole conversation each turn, reasoning replayed from its encrypted content.
 */
final class ResponsesClient extends RetryingClient {
    /** Sent as {@code originator} to the Codex backend. */
    static final String ORIGINATOR = "mono-agent";
    /** What to run when the ChatGPT sign-in is refused. */
    static final String CODEX_LOGIN = "mono-agent auth login openai-codex";

    private final String baseUrl;
    private final Duration timeout;
    private final String apiKey;
    private final String keyEnv;
    private final CodexCredentials codex;
    private final Lazy<OpenAIClientAsync> sdk;
    /** The last ChatGPT token sent, so a message can never carry it. */
    private volatile String lastToken;

    private ResponsesClient(String provider, String baseUrl, RetryPolicy policy, Duration timeout, String apiKey,
                            String keyEnv, CodexCredentials codex) {
        super(provider, policy);
        this.baseUrl = baseUrl;
        this.timeout = timeout;
        this.apiKey = apiKey;
        this.keyEnv = keyEnv;
        this.codex = codex;
        this.sdk = new Lazy<>(() -> codex != null
                ? OpenAiSdk.client(strip(baseUrl) + "/codex", null, timeout,
                        Map.of("OpenAI-Beta", "responses=experimental", "originator", ORIGINATOR))
                : OpenAiSdk.client(baseUrl, apiKey, timeout, Map.of()));
    }

    /** The Responses API with an API key ({@code apiKey} null = missing, reported on the first call). */
    static ResponsesClient withApiKey(String provider, String baseUrl, RetryPolicy policy, Duration timeout,
                                      String apiKey, String keyEnv) {
        return new ResponsesClient(provider, baseUrl, policy, timeout, apiKey, keyEnv, null);
    }

    /** The ChatGPT Codex backend; {@code baseUrl} is the backend root ({@code https://chatgpt.com/backend-api}). */
    static ResponsesClient codex(String baseUrl, RetryPolicy policy, Duration timeout, CodexCredentials creds) {
        return new ResponsesClient("openai-codex", baseUrl, policy, timeout, null, null, creds);
    }

    private static String strip(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @Override
    public void warmUp() {
        sdk.get();
        OpenAiSdk.warmUp(com.openai.models.responses.ResponseStreamEvent.class,
                "{\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"m\","
                        + "\"output_index\":0,\"content_index\":0,\"delta\":\"x\",\"logprobs\":[]}");
    }

    @Override
    java.util.List<String> secrets() {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (apiKey != null) {
            out.add(apiKey);
        }
        if (lastToken != null) {
            out.add(lastToken);
        }
        return out;
    }

    @Override
    ModelEvent.Completed attempt(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel)
            throws ProviderFailure {
        if (codex == null && apiKey == null) {
            throw ProviderFailure.missingKey(provider(), keyEnv);
        }
        CodexCredential token = codex == null ? null : token(null);
        for (int authTry = 0; ; authTry++) {
            try {
                return once(request, sink, cancel, token);
            } catch (ProviderFailure f) {
                if (codex == null || f.status != 401 || authTry > 0 || cancel.isCancelled()) {
                    throw f;
                }
                token = token(token);
            }
        }
    }

    /**
     * The current sign-in, or after a 401 the recovered one. A refused sign-in is a permanent auth_required; an
     * unreachable authorization server is a transient provider failure (the sign-in may be fine).
     */
    private CodexCredential token(CodexCredential rejected) throws ProviderFailure {
        try {
            return rejected == null ? codex.current() : codex.afterUnauthorized(rejected);
        } catch (AuthRequiredException e) {
            throw ProviderFailure.permanent(FailureKind.AUTH_REQUIRED, rejected == null ? 0 : 401, e.getMessage());
        } catch (AuthUnavailableException e) {
            throw ProviderFailure.transientFailure(0, -1, "openai-codex: " + e.getMessage());
        }
    }

    private ModelEvent.Completed once(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel,
                                      CodexCredential token) throws ProviderFailure {
        ResponseCreateParams.Builder b = ResponseCreateParams.builder()
                .model(request.model())
                .instructions(request.instructions())
                .store(false)
                .putAdditionalBodyProperty("input", JsonValue.fromJsonNode(ResponsesWire.input(request.input())))
                .putAdditionalBodyProperty("include", JsonValue.from(List.of("reasoning.encrypted_content")));
        if (!request.tools().isEmpty()) {
            b.putAdditionalBodyProperty("tools", JsonValue.fromJsonNode(ResponsesWire.tools(request.tools())))
                    .putAdditionalBodyProperty("tool_choice", JsonValue.from("auto"))
                    .parallelToolCalls(true);
        }
        if (request.sessionId() != null) {
            b.promptCacheKey(request.sessionId());
        }
        if (codex != null || reasoningModel(request.model())) {
            b.putAdditionalBodyProperty("reasoning", JsonValue.from(Map.of("summary", "auto")));
        }
        String authFix = "check " + keyEnv;
        if (token != null) {
            lastToken = token.accessToken();
            b.putAdditionalHeader("Authorization", "Bearer " + token.accessToken())
                    .putAdditionalHeader("chatgpt-account-id", token.accountId());
            if (request.sessionId() != null) {
                b.putAdditionalHeader("session_id", request.sessionId());
            }
            authFix = "run: " + CODEX_LOGIN;
        }
        ResponsesWire.Reader reader = new ResponsesWire.Reader(provider());
        String tag = StreamPump.newTag();
        b.putAdditionalHeader(HttpCalls.TAG, tag);
        try {
            return OpenAiSdk.pump(provider(), authFix, tag, sdk.get().responses().createStreaming(b.build()), cancel,
                    ev -> reader.on(ev, sink), () -> {
                        throw reader.end();
                    });
        } catch (ProviderFailure f) {
            throw f;
        } catch (RuntimeException e) {
            throw OpenAiSdk.failure(provider(), e, authFix);
        }
    }

    /** Models that take a {@code reasoning} parameter (sending it to others is a 400). */
    static boolean reasoningModel(String model) {
        return model.matches("(?i)^(o\\d|gpt-5|codex).*");
    }
}
