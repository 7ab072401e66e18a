package dev.monoagent.model.auth;

/**
 * An environment variable that configures the sign-in holds an unusable value. The message names the variable and
 * what it must be, for people; the CLI prints it without a stack trace and exits non-zero.
 */
public final class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String variable;

    public InvalidSettingException(String variable, String message) {
        super(message);
        this.variable = variable;
    }

    /** The environment variable at fault, e.g. {@code MONO_AGENT_CODEX_ISSUER}. */
    public String variable() {
        return variable;
    }
}
