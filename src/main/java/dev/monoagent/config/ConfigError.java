package dev.monoagent.config;

/**
 * One problem with the configuration.
 *
 * @param field   the full key path ({@code sandbox.network.mode}) or, for env-sourced values, the env var name
 * @param message the complete human sentence, which names {@code field}
 */
public record ConfigError(String field, String message) {}
