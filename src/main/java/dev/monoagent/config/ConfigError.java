package dev.monoagent.config;

import dev.monoagent.common.Printable;

/**
 * One problem with the configuration. Its message often quotes the repository's own text (a tool name, a root, a
 * host); every printer (the CLI's error lines, {@code validate}, {@code status}, the window) shows it as one line, so
 * it is one line from the start: control characters and line breaks in it are escaped ({@link Printable#oneLine}),
 * and quoted text cannot add lines of its own to what the reviewer reads.
 *
 * @param field   the full key path ({@code sandbox.network.mode}) or, for env-sourced values, the env var name
 * @param message the complete human sentence, which names {@code field}
 */
public record ConfigError(String field, String message) {
    public ConfigError {
        field = Printable.oneLine(field);
        message = Printable.oneLine(message);
    }
}
