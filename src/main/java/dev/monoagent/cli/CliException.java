package dev.monoagent.cli;

/** An expected failure with a message for the user and an exit code; printed without a stack trace. */
public class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
