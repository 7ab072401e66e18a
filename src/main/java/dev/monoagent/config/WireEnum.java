package dev.monoagent.config;

/** An enum whose JSON / env spelling differs from its Java name (e.g. {@code fail-closed}). */
public interface WireEnum {
    /** The exact spelling used in config files, env vars and output. */
    String wire();
}
