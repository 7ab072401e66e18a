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
}
