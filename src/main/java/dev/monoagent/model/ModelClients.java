package dev.monoagent.model;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigView;
import dev.monoagent.config.Enums.ProviderApi;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.ModelRefGrammar;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.model.auth.AuthRequiredException;
import dev.monoagent.model.auth.CodexCredential;
import dev.monoagent.model.auth.CodexCredentials;
import java.time.Duration;
import java.util.Map;

/**
 * Makes the {@link ModelClient} for a model reference from the configuration: the provider's wire, its base URL
 * (built-in default, or {@code providers.<id>.baseUrl}), its key ({@code providers.<id>.apiKeyEnv} or the
 * provider's standard variable, read from the environment or {@code .env}), {@code runtime.retry} and
 * {@code runtime.requestTimeoutMs}. Nothing here touches the network or loads an SDK.
 */
public final class ModelClients {

    /** A built-in provider's wire and default base URL. */
    record BuiltIn(ProviderApi api, String baseUrl) {}

    static final Map<String, BuiltIn> BUILT_IN = Map.of(
            "openai-codex", new BuiltIn(ProviderApi.OPENAI_RESPONSES, "https://chatgpt.com/backend-api"),
            "openai", new BuiltIn(ProviderApi.OPENAI_RESPONSES, "https://api.openai.com/v1"),
            "anthropic", new BuiltIn(ProviderApi.ANTHROPIC_MESSAGES, "https://api.anthropic.com"),
            "ollama", new BuiltIn(ProviderApi.OPENAI_CHAT, "http://localhost:11434/v1"),
            "lmstudio", new BuiltIn(ProviderApi.OPENAI_CHAT, "http://localhost:1234/v1"),
            "openrouter", new BuiltIn(ProviderApi.OPENAI_CHAT, "https://openrouter.ai/api/v1"),
            "openai_compat", new BuiltIn(ProviderApi.OPENAI_CHAT, null));

    /** Stands in when the caller has no sign-in store: every call is auth_required naming the login command. */
    private static final CodexCredentials NO_SIGN_IN = new CodexCredentials() {
        @Override
        public CodexCredential current() {
            throw AuthRequiredException.notSignedIn("openai-codex", "No ChatGPT sign-in is available.");
        }

        @Override
        public CodexCredential afterUnauthorized(CodexCredential rejected) {
            return current();
        }
    };

    private ModelClients() {}

    /**
     * The client for {@code ref}.
     *
     * @param codex the ChatGPT sign-in for {@code openai-codex} (the auth package's {@code CodexAuth}); null when
     *              none is available (the first call then fails with {@code auth_required} naming the login command)
     * @throws ConfigException when the provider is unknown or has no base URL
     */
    public static ModelClient create(ModelRef ref, LoadedConfig lc, CodexCredentials codex) throws ConfigException {
        MonoConfig cfg = lc.config();
        String id = ref.provider();
        MonoConfig.Provider custom = cfg.providers().get(id);
        BuiltIn builtIn = BUILT_IN.get(id);
        if (builtIn == null && custom == null) {
            throw new ConfigException("runtime.model", "runtime.model `%s` is not a valid runtime model reference: %s"
                    .formatted(ref, ModelRefGrammar.unknownProvider(id)));
        }
        String baseUrl = custom != null && custom.baseUrl() != null ? custom.baseUrl()
                : builtIn == null ? null : builtIn.baseUrl();
        if (baseUrl == null) {
            String field = "providers." + id + ".baseUrl";
            throw new ConfigException(field, field + " is required for provider " + id + ".");
        }
        ProviderApi api = custom != null && custom.api() != null ? custom.api()
                : builtIn == null ? ProviderApi.OPENAI_CHAT : builtIn.api();
        String keyEnv = custom != null && custom.apiKeyEnv() != null ? custom.apiKeyEnv()
                : ConfigView.PROVIDER_KEY_ENV.get(id);
        String key = keyEnv == null ? null : lc.envValue(keyEnv);
        RetryPolicy retry = RetryPolicy.of(cfg.runtime().retry());
        Duration timeout = Duration.ofMillis(cfg.runtime().requestTimeoutMs());
        if (id.equals("openai-codex")) {
            CodexCredentials creds = codex != null ? codex : NO_SIGN_IN;
            return ResponsesClient.codex(baseUrl, retry, timeout, creds);
        }
        return switch (api) {
            case OPENAI_RESPONSES -> ResponsesClient.withApiKey(id, baseUrl, retry, timeout, key,
                    keyEnv == null ? "an API key" : keyEnv);
            case ANTHROPIC_MESSAGES -> new AnthropicClient(id, baseUrl, retry, timeout, key,
                    keyEnv == null ? "an API key" : keyEnv, Math.max(1024, cfg.context().reserveTokens()));
            case OPENAI_CHAT -> new ChatClient(id, baseUrl, retry, timeout, key, keyEnv);
        };
    }
}
