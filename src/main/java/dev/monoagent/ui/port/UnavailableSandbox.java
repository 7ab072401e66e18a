package dev.monoagent.ui.port;

import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Policy;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * The sandbox when no engine can be used: everything fails closed. Commands return {@code sandbox_prepare_failed},
 * the check reports the {@code engine} probe as failed, and the state is {@code blocked} (or {@code off} when the
 * config turns the sandbox off). Used when the engine facade is missing or fails to initialise, and by tests.
 */
public final class UnavailableSandbox implements SandboxPort {
    private final Policy policy;
    private final String reason;

    public UnavailableSandbox(Policy policy, String reason) {
        this.policy = policy;
        this.reason = reason;
    }

    @Override
    public Policy policy() {
        return policy;
    }

    @Override
    public SandboxSnapshot snapshot() {
        dev.monoagent.common.Effective effective = policy.mode() == dev.monoagent.config.Enums.SandboxMode.OFF
                ? dev.monoagent.common.Effective.OFF : dev.monoagent.common.Effective.BLOCKED;
        return PolicyFactory.unproven(policy, effective, "sandbox_unavailable: " + reason, "absent");
    }

    @Override
    public CheckReport check(Consumer<ProbeResult> onProbe) {
        ProbeResult r = new ProbeResult("engine", false, "Sandbox engine is unavailable: " + reason, 0);
        onProbe.accept(r);
        return new CheckReport(false, List.of(r), Instant.now());
    }

    @Override
    public CheckReport setup(Consumer<String> onStep, Consumer<ProbeResult> onProbe) {
        onStep.accept("Setup is not possible: " + reason);
        return check(onProbe);
    }

    @Override
    public ExecOutcome bash(String command, String runId, String callId, Consumer<String> onOutput) {
        return ExecOutcome.PrepareFailed.unavailable(reason);
    }

    @Override
    public void subscribe(EventSink sink) {
        // no engine, no events
    }

    /** The matching tool runner: every command and REPL evaluation fails closed. */
    public static ToolRunner tools() {
        return new ToolRunner() {
            @Override
            public PortResult call(String runId, String callId, String tool, String argsJson,
                                   Consumer<String> onOutput) {
                return new PortResult(dev.monoagent.common.ToolOutcome.SANDBOX_PREPARE_FAILED, ExecOutcome.FAIL_CLOSED_TEXT, List.of(), 0);
            }

            @Override
            public void endRun(String runId) {
                // nothing runs
            }

            @Override
            public boolean reportsEvents() {
                return false;
            }
        };
    }
}
