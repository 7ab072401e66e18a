package dev.monoagent.ui.port;

import dev.monoagent.agent.AgentService;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * The workbench's {@link SandboxPort}: an adapter over the workspace's {@link AgentService}, which owns the one
 * engine (the control endpoint's tool calls and the window's consoles use the same {@link Sandbox}). Opening the
 * engine proves it (≈ 1 s, cached self-check), so it happens on a worker, never on the UI thread; until then the
 * policy is the same compiler's result for the config. Engine events reach the window through the service's bus,
 * except probe/check events, which the sandbox panel publishes itself (they are routed to the running check's
 * progress callback instead).
 */
public final class EngineSandbox implements SandboxPort {
    private final AgentService service;
    private volatile Consumer<ProbeResult> activeProbe;

    @Override
    public java.util.List<String> notices() {
        java.util.List<String> out = new java.util.ArrayList<>();
        String held = service.config().trust().notice();
        if (held != null) {
            out.add(held);
        }
        String weaker = dev.monoagent.config.ConfigView.weakerWarning(service.config());
        if (weaker != null) {
            out.add(weaker);
        }
        return out;
    }

    public EngineSandbox(AgentService service) {
        this.service = service;
        service.events().subscribe(e -> {
            Consumer<ProbeResult> c = activeProbe;
            if (e instanceof Event.ProbeFinished p && c != null) {
                c.accept(p.result());
            }
        });
    }

    /** The engine, opened (and proven) on first use; null when it could not be opened. Blocking. */
    public Sandbox engine() {
        return service.openEngineNow();
    }

    @Override
    public Policy policy() {
        return service.policy();
    }

    @Override
    public SandboxSnapshot snapshot() {
        engine();
        return toSnapshot(service.sandboxStatus(), service.policy());
    }

    /** Maps the engine's status record to the panel's snapshot. */
    static SandboxSnapshot toSnapshot(SandboxStatus st, Policy policy) {
        SandboxSnapshot base = PolicyFactory.unproven(policy, st.effective(), st.reason(), st.engine().word());
        return new SandboxSnapshot(st.effective(), st.reason(), st.engine().word(), st.engine().source().wire(),
                st.engine().version(), st.engine().digest(), st.integrity(),
                st.engine().installRoot() == null ? null : st.engine().installRoot().toString(),
                base.readableRoots(), base.writableRoots(), base.protectedPaths(), base.network(), base.grants(),
                st.fallback().wire(), st.fallbackActive(), st.lastVerified());
    }

    /** The last recorded self-check: the live engine's, or the one on disk before the engine opens. */
    @Override
    public CheckReport lastCheck() {
        SandboxStatus st = service.sandboxStatus();
        if (st.probes().isEmpty() || st.lastVerified() == null) {
            return null;
        }
        return new CheckReport(st.probes().stream().allMatch(ProbeResult::passed), st.probes(), st.lastVerified());
    }

    @Override
    public CheckReport check(Consumer<ProbeResult> onProbe) {
        Sandbox s = engine();
        if (s == null) {
            return unopened(onProbe);
        }
        activeProbe = onProbe;
        try {
            List<ProbeResult> results = s.check();
            return new CheckReport(!results.isEmpty() && results.stream().allMatch(ProbeResult::passed), results,
                    Instant.now());
        } finally {
            activeProbe = null;
        }
    }

    @Override
    public CheckReport setup(Consumer<String> onStep, Consumer<ProbeResult> onProbe) {
        Sandbox s = engine();
        if (s == null) {
            return unopened(onProbe);
        }
        activeProbe = onProbe;
        try {
            SandboxStatus st = s.setup(onStep);
            List<ProbeResult> results = st.probes();
            return new CheckReport(st.ready() && !results.isEmpty()
                    && results.stream().allMatch(ProbeResult::passed), results, Instant.now());
        } finally {
            activeProbe = null;
        }
    }

    private CheckReport unopened(Consumer<ProbeResult> onProbe) {
        ProbeResult r = new ProbeResult("engine", false, String.valueOf(service.sandboxStatus().reason()), 0);
        onProbe.accept(r);
        return new CheckReport(false, List.of(r), Instant.now());
    }

    @Override
    public ExecOutcome bash(String command, String runId, String callId, Consumer<String> onOutput) {
        Sandbox s = engine();
        if (s == null) {
            return ExecOutcome.PrepareFailed.unavailable(String.valueOf(service.sandboxStatus().reason()));
        }
        return s.exec(CommandSpec.bash(command, service.workspace()).withAttribution(runId, callId, "Bash"),
                (stderr, text) -> onOutput.accept(text));
    }

    @Override
    public void subscribe(EventSink sink) {
        service.events().subscribe(e -> {
            if (!(e instanceof Event.ProbeFinished || e instanceof Event.SelfCheckStarted
                    || e instanceof Event.SelfCheckFinished)) {
                sink.accept(e);
            }
        });
    }
}
