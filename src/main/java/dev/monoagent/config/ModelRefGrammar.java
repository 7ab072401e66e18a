package dev.monoagent.config;

import java.util.Map;
import java.util.Set;

/**
 * The grammar of a {@code <provider>:<model>} reference, kept in config because validation needs it; the typed
 * reference the model layer works with is {@code dev.monoagent.model.ModelRef}. Only the first colon splits
 * ({@code ollama:gemma4:31b}); a leading {@code pi:} is dropped; retired provider prefixes are rejected with the
 * named replacement.
 */
public final class ModelRefGrammar {

    /** Providers built into the product; a {@code providers} entry adds more. */
    public static final Set<String> BUILT_IN_PROVIDERS =
            Set.of("openai-codex", "openai", "anthropic", "ollama", "lmstudio", "openrouter", "openai_compat");

    private static final Map<String, String> RETIRED = Map.of(
            "codex", "openai-codex",
            "codex-cli", "openai-codex",
            "claude", "anthropic",
            "claude-code", "anthropic");

    /** The two halves of a valid reference. */
    public record Parts(String provider, String model) {}

    private ModelRefGrammar() {}

    /**
     * Checks and splits a reference.
     *
     * @param text            the raw value
     * @param field           how to name the value in errors ({@code runtime.model} or {@code MONO_AGENT_MODEL})
     * @param extraProviders  provider names configured under {@code providers}
     */
    public static Parts parse(String text, String field, Set<String> extraProviders) throws ConfigException {
        String raw = text == null ? "" : text.trim();
        String s = raw.startsWith("pi:") ? raw.substring(3) : raw;
        int colon = s.indexOf(':');
        String head = "%s `%s` is not a valid runtime model reference: ".formatted(field, raw);
        if (colon <= 0 || colon == s.length() - 1) {
            throw new ConfigException(field, head + "expected <provider>:<model>, e.g. openai-codex:gpt-5.6-terra");
        }
        String provider = s.substring(0, colon);
        String model = s.substring(colon + 1);
        String replacement = RETIRED.get(provider);
        if (replacement != null) {
            throw new ConfigException(field, head + "%s is no longer a runtime backend; use %s:%s"
                    .formatted(provider, replacement, model));
        }
        if (!BUILT_IN_PROVIDERS.contains(provider) && !extraProviders.contains(provider)) {
            throw new ConfigException(field, head + unknownProvider(provider));
        }
        return new Parts(provider, model);
    }

    /** The sentence for a provider that is neither built in nor configured. */
    public static String unknownProvider(String provider) {
        return "unknown provider %s; known: %s (or add it under providers)"
                .formatted(provider, String.join(", ", BUILT_IN_PROVIDERS.stream().sorted().toList()));
    }
}
