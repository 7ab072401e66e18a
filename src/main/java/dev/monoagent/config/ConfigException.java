package dev.monoagent.config;

import java.util.List;

/** The configuration cannot be used; carries every problem found, each naming its field. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient List<ConfigError> errors;
    private final transient java.nio.file.Path workspace;
    private final transient WorkspaceTrust trust;

    public ConfigException(List<ConfigError> errors) {
        this(errors, null, null);
    }

    /** A failed load that got as far as the trust boundary: what waits for the reviewer is known. */
    public ConfigException(List<ConfigError> errors, java.nio.file.Path workspace, WorkspaceTrust trust) {
        super(String.join("\n", errors.stream().map(ConfigError::message).toList()));
        this.errors = List.copyOf(errors);
        this.workspace = workspace;
        this.trust = trust;
    }

    /** The workspace of a load that reached the trust boundary, else null. */
    public java.nio.file.Path workspace() {
        return workspace;
    }

    /** What the trust boundary held back before the load failed, or null when it was not reached. */
    public WorkspaceTrust trust() {
        return trust;
    }

    public ConfigException(String field, String message) {
        this(List.of(new ConfigError(field, message)));
    }

    public List<ConfigError> errors() {
        return errors;
    }
}
