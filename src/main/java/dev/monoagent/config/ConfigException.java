package dev.monoagent.config;

import java.util.List;

/** The configuration cannot be used; carries every problem found, each naming its field. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(String.join("\n", errors.stream().map(ConfigError::message).toList()));
        this.errors = List.copyOf(errors);
    }

    public ConfigException(String field, String message) {
        this(List.of(new ConfigError(field, message)));
    }

    public List<ConfigError> errors() {
        return errors;
    }
}
