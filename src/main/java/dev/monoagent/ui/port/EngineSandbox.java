package dev.monoagent.ui.port;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.HostEnv;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The workbench's {@link SandboxPort} over the real engine facade {@link Sandbox}. Opening the engine proves it
 * (≈ 1 s, cached self-check), so it happens lazily on the first call from a worker, never on the UI thread; until
 * then the policy comes from the config ({@link PolicyFactory}). Engine events are forwarded to the subscribers,
 * except probe/check events, which the sandbox panel publishes itself (they are routed to the running check's
 * progress callback instead). Closing it stops the engine's bridge.
 */
public final class EngineSandbox implements SandboxPort, AutoCloseable {
    private final LoadedConfig cfg;
    private final Function<EventSink, Sandbox> opener;
    private final java.util.function.Supplier<SandboxStatus> recorded;
    private final Policy provisional;
    private final List<EventSink> subscribers = new CopyOnWriteArrayList<>();
    private final List<Event> early = new ArrayList<>();
    private volatile Sandbox sandbox;
    private volatile Consumer<ProbeResult> activeProbe;

    public EngineSandbox(LoadedConfig cfg) {
        this(cfg, HostEnv.detect());
    }

    /** For the given host env (tests pass one with a private cache). */
    public EngineSandbox(LoadedConfig cfg, HostEnv env) {
        this(cfg, sink -> Sandbox.open(cfg, sink, env), () -> Sandbox.quickStatus(cfg, env));
    }

    /** With a custom opener; no recorded self-check is read before the engine opens. */
    public EngineSandbox(LoadedConfig cfg, Function<EventSink, Sandbox> opener) {
        this(cfg, opener, null);
    }

    /** With a custom opener and a reader of the recorded self-check ({@code Sandbox.quickStatus}), or null. */
    public EngineSandbox(LoadedConfig cfg, Function<EventSink, Sandbox> opener,
                         java.util.function.Supplier<SandboxStatus> recorded) {
        this.cfg = cfg;
        this.opener = opener;
        this.recorded = recorded;
        this.provisional = PolicyFactory.fromConfig(cfg);
    }

    /** The engine, opened (and proven) on first use. Blocking. */
    public synchronized Sandbox engine() {
        if (sandbox == null) {
            sandbox = opener.apply(this::fromEngine);
        }
        return sandbox;
    }

    private void fromEngine(Event e) {
        if (e instanceof Event.ProbeFinished p) {
            Consumer<ProbeResult> c = activeProbe;
            if (c != null) {
                c.accept(p.result());
            }
            return;
        }
        if (e instanceof Event.SelfCheckFinished) {
            return;
        }
        synchronized (early) {
            if (subscribers.isEmpty()) {
                early.add(e);
                return;
            }
        }
        subscribers.forEach(s -> s.accept(e));
    }

    @Override
    public Policy policy() {
        Sandbox s = sandbox;
        return s != null ? s.policy() : provisional;
    }

    @Override
    public SandboxSnapshot snapshot() {
        return toSnapshot(engine().status(), engine().policy());
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

    @Override
    public CheckReport lastCheck() {
        Sandbox s = sandbox;
        SandboxStatus st = s != null ? s.status() : recorded != null ? recorded.get() : null;
        if (st == null || st.probes().isEmpty() || st.lastVerified() == null) {
            return null;
        }
        return new CheckReport(st.probes().stream().allMatch(ProbeResult::passed), st.probes(), st.lastVerified());
    }

    @Override
    public CheckReport check(Consumer<ProbeResult> onProbe) {
        activeProbe = onProbe;
        try {
            List<ProbeResult> results = engine().check();
            return new CheckReport(!results.isEmpty() && results.stream().allMatch(ProbeResult::passed), results,
                    Instant.now());
        } finally {
            activeProbe = null;
        }
    }

    @Override
    public CheckReport setup(Consumer<String> onStep, Consumer<ProbeResult> onProbe) {
        activeProbe = onProbe;
        try {
            SandboxStatus st = engine().setup(onStep);
            List<ProbeResult> results = st.probes();
            return new CheckReport(st.ready() && !results.isEmpty()
                    && results.stream().allMatch(ProbeResult::passed), results, Instant.now());
        } finally {
            activeProbe = null;
        }
    }

    @Override
    public ExecOutcome bash(String command, String runId, String callId, Consumer<String> onOutput) {
        return engine().exec(CommandSpec.bash(command, cfg.workspace()).withAttribution(runId, callId, "Bash"));
    }

    @Override
    public void subscribe(EventSink sink) {
        List<Event> replay;
        synchronized (early) {
            subscribers.add(sink);
            replay = List.copyOf(early);
            early.clear();
        }
        replay.forEach(sink::accept);
    }

    /** The sink the tools facade should report to (same subscribers). */
    public EventSink events() {
        return this::fromEngine;
    }

    @Override
    public synchronized void close() {
        if (sandbox != null) {
            sandbox.close();
        }
    }
}
