package dev.monoagent.agent;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;

import dev.monoagent.tools.ToolResult;
import dev.monoagent.tools.Tools;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The part of an instance that is not a window: the loaded config and the sandbox state that the control endpoint
 * reports. The sandbox state comes from the engine facade ({@link Sandbox}): the cheap on-disk status until the
 * engine is opened, then the live one; the workbench plugs in its sandbox panel's state instead. Whatever the engine
 * cannot prove is reported as it is ({@code blocked} under fail-closed), never silently relaxed.
 */
public final class ServiceLayer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ServiceLayer.class.getName());

    private final LoadedConfig config;
    private volatile Supplier<SandboxSummary> sandbox;
    private volatile Sandbox engine;
    private final java.util.concurrent.CountDownLatch engineSettled = new java.util.concurrent.CountDownLatch(1);
    private Tools tools;
    /** Serialises tool calls: one run context per run id, one REPL per run. */
    private final Object callLock = new Object();
    private final List<Violation> callViolations = new java.util.concurrent.CopyOnWriteArrayList<>();
    private boolean closed;

    private ServiceLayer(LoadedConfig config) {
        this.config = config;
        this.sandbox = () -> {
            try {
                return summary(Sandbox.quickStatus(config));
            } catch (RuntimeException e) {
                return withoutEngine(config, "sandbox status failed: " + e.getMessage());
            }
        };
    }

    /**
     * Opens (and proves) the sandbox engine on {@code executor}; from then on the status reports the live engine.
     * Until it is open, the status is the cheap on-disk one ({@link Sandbox#quickStatus}). Used by the headless
     * instance; the workbench opens its own engine and plugs its state in with {@link #sandboxState}.
     */
    public void openEngine(java.util.concurrent.Executor executor) {
        executor.execute(() -> {
            try {
                // the engine reports its own violations (write syscalls, proxy denies, scan findings) here
                Sandbox s = Sandbox.open(config, this::collect);
                synchronized (this) {
                    if (closed) {
                        s.close();
                        return;
                    }
                    engine = s;
                }
                sandbox = () -> summary(s.status());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "sandbox engine failed to open: " + e.getMessage());
                sandbox = () -> withoutEngine(config, "engine failed to open: " + e.getMessage());
            } finally {
                engineSettled.countDown();
            }
        });
    }

    /**
     * Runs one tool call for {@code mono-agent tools call} in this instance, so calls with the same run id share
     * that run's NodeRepl. Calls are serialised (one run context, one REPL per run). Waits for the engine opened by
     * {@link #openEngine}; without an engine the command tools fail closed like everywhere else.
     */
    public ToolCallReply callTool(String name, String argsJson, String runId) {
        // wait outside any lock: the engine-opening task needs this object's monitor to publish the engine
        try {
            if (!engineSettled.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                return new ToolCallReply("sandbox_prepare_failed", ExecOutcome.FAIL_CLOSED_TEXT, null, List.of());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ToolCallReply("failed", "interrupted", null, List.of());
        }
        synchronized (callLock) {
            return callToolLocked(name, argsJson, runId);
        }
    }

    /** Violations seen while a tool call runs belong to that call's reply (calls are serialised). */
    private void collect(Event e) {
        if (e instanceof Event.ViolationObserved v) {
            callViolations.add(v.violation());
        }
    }

    private ToolCallReply callToolLocked(String name, String argsJson, String runId) {
        Tools t;
        synchronized (this) {
            if (closed) {
                return new ToolCallReply("failed", "the instance is stopping", null, List.of());
            }
            t = tools;
        }
        try {
            if (t == null) {
                EventSink sink = this::collect;
                if (engine == null) {
                    return new ToolCallReply("sandbox_prepare_failed", ExecOutcome.FAIL_CLOSED_TEXT + " ("
                            + sandboxSummary().detail() + ")", null, List.of());
                }
                t = Tools.open(config, engine, sink);
                synchronized (this) {
                    if (closed) {
                        t.close();
                        return new ToolCallReply("failed", "the instance is stopping", null, List.of());
                    }
                    tools = t;
                }
            }
        } catch (ConfigException e) {
            return new ToolCallReply("invalid_tool_policy", e.getMessage(), null, List.of());
        }
        callViolations.clear();
        ToolResult r = t.call(name, argsJson, runId == null ? "cli" : runId);
        return ToolCallReply.of(r, List.copyOf(callViolations));
    }

    /** The status block in the contract's words, from the engine's status record. */
    public static SandboxSummary summary(SandboxStatus s) {
        return SandboxSummary.of(s);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (tools != null) {
            tools.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    /** Loads the workspace's config (the CLI already preflighted it; a broken one still yields defaults). */
    public static ServiceLayer open(StartOptions o) {
        LoadedConfig lc;
        try {
            lc = ConfigLoader.load(new ConfigLoader.Options(o.workspace(), o.configPath(), null, System.getenv()));
        } catch (ConfigException e) {
            lc = new LoadedConfig(o.configPath(), false, o.workspace(), MonoConfig.DEFAULTS, Map.of(),
                    java.util.List.of(e.getMessage()), Map.of());
        }
        return new ServiceLayer(lc);
    }

    public LoadedConfig config() {
        return config;
    }

    public Path workspace() {
        return config.workspace();
    }

    /** Plugs in the live sandbox state. */
    public void sandboxState(Supplier<SandboxSummary> supplier) {
        this.sandbox = supplier;
    }

    public SandboxSummary sandboxSummary() {
        return sandbox.get();
    }

    /** What this process reports over the control endpoint as a running instance. */
    public InstanceStatus instanceStatus(String startedAt, String frontend) {
        return new InstanceStatus(config.workspace().toString(), config.configPath().toString(),
                ProcessHandle.current().pid(), startedAt, frontend,
                ControlEndpoint.socketPath(config.workspace()).toString(), sandboxSummary());
    }

    /** The sandbox block when no engine could be proven: fail-closed blocks, unsafe fallback runs on the host. */
    public static SandboxSummary withoutEngine(LoadedConfig cfg, String reason) {
        return SandboxSummary.of(Sandbox.withoutEngine(cfg, reason));
    }
}
