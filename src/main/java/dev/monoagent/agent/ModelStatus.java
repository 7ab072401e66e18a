package dev.monoagent.agent;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigView;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.model.ModelRef;
import dev.monoagent.model.auth.AuthStatus;
import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.model.auth.CredentialState;

/**
 * The configured model and whether its provider's credentials are there, as validate's "Provider credentials"
 * section judges them ({@code present | expired | missing}; local providers need none). For the window's prompt box;
 * never holds a secret, only whether one is set.
 *
 * @param model      the {@code <provider>:<model>} reference, or null when {@code runtime.model} is not set
 * @param provider   the provider id, or null with {@code model}
 * @param credential the credential state, or null when the provider needs none (or there is no model)
 * @param detail     one line for people: which variable or sign-in, or what to do
 */
public record ModelStatus(String model, String provider, CredentialState credential, String detail) {

    /** Reads the config and, for {@code openai-codex}, the sign-in store (may touch the disk). */
    public static ModelStatus of(LoadedConfig lc) {
        String configured = lc.config().runtime().model();
        if (configured == null || configured.isBlank()) {
            return new ModelStatus(null, null, null, "set runtime.model (e.g. openai:gpt-5) or MONO_AGENT_MODEL");
        }
        ModelRef ref;
        try {
            ref = ModelRef.parse(configured, "runtime.model", lc.config().providers().keySet());
        } catch (ConfigException e) {
            return new ModelStatus(configured, null, null, e.getMessage());
        }
        String provider = ref.provider();
        if (provider.equals(CodexAuth.PROVIDER)) {
            try {
                AuthStatus st = CodexAuth.fromEnv(lc.env()).status();
                String how = st.state() == CredentialState.PRESENT ? "ChatGPT sign-in"
                        : "run mono-agent auth login openai-codex";
                return new ModelStatus(ref.toString(), provider, st.state(), how);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                return new ModelStatus(ref.toString(), provider, CredentialState.MISSING,
                        "cannot read the sign-in: " + e.getMessage());
            }
        }
        MonoConfig.Provider custom = lc.config().providers().get(provider);
        String keyEnv = custom != null && custom.apiKeyEnv() != null ? custom.apiKeyEnv()
                : ConfigView.PROVIDER_KEY_ENV.get(provider);
        if (keyEnv == null) {
            return new ModelStatus(ref.toString(), provider, null, "local provider, no key needed");
        }
        return lc.envValue(keyEnv) != null
                ? new ModelStatus(ref.toString(), provider, CredentialState.PRESENT, keyEnv + " is set")
                : new ModelStatus(ref.toString(), provider, CredentialState.MISSING, keyEnv + " is not set");
    }
}
