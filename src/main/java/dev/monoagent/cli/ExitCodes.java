package dev.monoagent.cli;

/** Process exit codes shared by every command. */
public final class ExitCodes {
    private ExitCodes() {}

    public static final int OK = 0;
    public static final int ERROR = 1;
    public static final int USAGE = 2;
    public static final int INTERRUPTED = 130;
}
