package dev.monoagent.ui.port;

/**
 * The current run's sandboxed Node REPL (the same one the agent's {@code NodeRepl} tool uses): state persists between
 * evaluations until {@link #restart}. Methods block; called from the task executor's workers only.
 */
public interface ReplPort {
    /** Evaluates {@code code}; the outcome is {@code ok} or a tool failure code such as {@code sandbox_prepare_failed}. */
    PortResult eval(String code, String runId, String callId);

    /** Drops the REPL's state; the next eval starts a fresh one. */
    void restart();
}
