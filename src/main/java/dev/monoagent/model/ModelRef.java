package dev.monoagent.model;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ModelRefGrammar;
import java.util.Set;

/**
 * A {@code <provider>:<model>} reference. The grammar (first colon splits, {@code pi:} dropped, retired prefixes
 * rejected with their replacement) lives in {@link ModelRefGrammar} so config validation can use it from below.
 */
public record ModelRef(String provider, String model) {

    /** Providers built into the product; a {@code providers} entry adds more. */
    public static final Set<String> BUILT_IN_PROVIDERS = ModelRefGrammar.BUILT_IN_PROVIDERS;

    @Override
    public String toString() {
        return provider + ":" + model;
    }

    /**
     * Parses a reference.
     *
     * @param text            the raw value
     * @param field           how to name the value in errors ({@code runtime.model} or {@code MONO_AGENT_MODEL})
     * @param extraProviders  provider names configured under {@code providers}
     */
    public static ModelRef parse(String text, String field, Set<String> extraProviders) throws ConfigException {
        ModelRefGrammar.Parts p = ModelRefGrammar.parse(text, field, extraProviders);
        return new ModelRef(p.provider(), p.model());
    }
}
