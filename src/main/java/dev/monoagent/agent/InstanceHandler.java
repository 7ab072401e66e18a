package dev.monoagent.agent;

/**
 * What the control endpoint asks of the running instance. Implemented by the process that owns the service layer
 * (the workbench or the headless runner); called on the endpoint's worker thread, so implementations must be
 * thread-safe and quick.
 */
public interface InstanceHandler {
    /** The current status (instance + sandbox blocks). */
    InstanceStatus status();

    /** Brings the window to the front; a headless instance ignores it. */
    void focus();

    /** Begins an orderly shutdown; returns at once. */
    void stop();

    /**
     * Runs one tool call in the instance's run context (so calls with the same run id share that run's NodeRepl),
     * or returns null when this instance does not serve tool calls. May block for as long as the tool runs.
     */
    default ToolCallReply callTool(String name, String argsJson, String runId) {
        return null;
    }

    /**
     * The service whose agent serves run requests (a prompt from {@code mono-agent run}, shown live in a window),
     * or null when this instance runs no agent.
     */
    default AgentService agentService() {
        return null;
    }

    /**
     * {@code sandbox check} against the running instance: re-proves its engine from scratch (a failed engine comes
     * back when the check passes) and returns the status after it, or null when this instance cannot. Blocks for the
     * length of a self-check.
     */
    default InstanceStatus recheck() {
        return null;
    }
}
