package dev.monoagent.ui.port;

import java.util.function.Consumer;

/**
 * Runs a tool call for the consoles exactly as the agent would: {@code Bash} with {@code {"command": …}} and
 * {@code NodeRepl} with {@code {"code": …}} in the run's persistent REPL. Blocks; called from the task executor's
 * workers only. The production runner is the tools facade ({@link ToolsRunner}), which emits the call's events
 * itself ({@link #reportsEvents()}); simpler runners let the console publish them.
 */
public interface ToolRunner {
    /**
     * @param onOutput receives live output chunks when the runner can stream them (may never be called)
     */
    PortResult call(String runId, String callId, String tool, String argsJson, Consumer<String> onOutput);

    /** Ends the run's per-run resources (its NodeRepl): the next NodeRepl call starts a fresh REPL. */
    void endRun(String runId);

    /** True when the runner publishes ToolCallStarted/Finished (and violations) to the event stream itself. */
    boolean reportsEvents();
}
