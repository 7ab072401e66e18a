package dev.monoagent.ui.port;

import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Policy;
import java.util.function.Consumer;

/**
 * What the workbench needs from the sandbox engine, kept small so the view-models can be built and tested before
 * (and independently of) the engine facade. Every method may block and is only called from the task executor's
 * workers. The production adapter wraps {@code sandbox.Sandbox}; {@link UnavailableSandbox} is the honest
 * fail-closed stand-in when no engine can be used.
 */
public interface SandboxPort {
    /** The compiled policy (roots, protected paths, network) for badges and the policy summary. */
    Policy policy();

    /** The current state, without running anything. */
    SandboxSnapshot snapshot();

    /**
     * What the reviewer must see before trusting the badge, one line each: the workspace settings held back until
     * accepted, and how the sandbox in effect is weaker than the playbook's. Empty when neither applies.
     */
    default java.util.List<String> notices() {
        return java.util.List.of();
    }

    /**
     * The self-check the sandbox state rests on, without running one: once the engine is open, the proof in force (a
     * cached pass or the run made when opening); before that, the last check recorded on disk. Null when none is
     * known. May block (it reads the private cache).
     */
    default CheckReport lastCheck() {
        return null;
    }

    /** Re-proves the engine: one {@code onProbe} call per probe as it finishes. */
    CheckReport check(Consumer<ProbeResult> onProbe);

    /** Installs the pinned engine into the private cache and then runs the full check. */
    CheckReport setup(Consumer<String> onStep, Consumer<ProbeResult> onProbe);

    /**
     * Runs a bash command line in the sandbox, streaming output chunks to {@code onOutput} as they arrive.
     * Fail-closed: returns {@link ExecOutcome.PrepareFailed} when the engine is not proven.
     */
    ExecOutcome bash(String command, String runId, String callId, Consumer<String> onOutput);

    /** Registers a sink for engine events (violations, state changes) not tied to a call made through this port. */
    void subscribe(EventSink sink);
}
