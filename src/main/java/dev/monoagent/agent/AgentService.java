package dev.monoagent.agent;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventBus;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.memory.MemoryStore;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxState;
import dev.monoagent.sandbox.SandboxStatus;
import dev.monoagent.sandbox.ToolBinaries;
import dev.monoagent.tools.MemoryTools;
import dev.monoagent.tools.SandboxPort;
import dev.monoagent.tools.ToolResult;
import dev.monoagent.tools.Tools;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The one service core of a workspace, under every frontend (the window, the headless instance, the CLI's one-shot
 * commands): loaded config → {@link Sandbox} (the engine, opened and proven once) → {@link Tools} → the
 * {@link EventBus}, with the run log ({@link RunLogs}) subscribed from the start. Frontends subscribe their own
 * consumers (the window's models, the CLI printers) to {@link #events()}.
 *
 * <p>Runs: {@link #startRun} publishes {@code RunStarted} (the run log opens with its header), tool calls in the run
 * go through {@link #callTool} or {@link #tools()}, and {@link #finishRun} ends the run's resources (its NodeRepl),
 * publishes {@code RunFinished} and so fsyncs and closes its log. An agent loop plugs in here: it takes a run id,
 * publishes {@code UserMessage}/{@code AssistantDelta} to the same bus, calls tools through {@code tools().run(id)},
 * and finishes the run with its status.
 */
public final class AgentService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AgentService.class.getName());
    /** How long a tool call waits for the engine that is still being proven. */
    static final Duration ENGINE_WAIT = Duration.ofSeconds(60);

    private volatile LoadedConfig config;
    private final HostEnv env;
    private final TaskExecutor executor;
    private final java.util.function.Function<dev.monoagent.common.EventSink, Sandbox> opener;
    private final EventBus bus = new EventBus();
    private final RunLogs runLogs;
    private final CompletableFuture<Sandbox> engine = new CompletableFuture<>();
    private final CompletableFuture<Tools> tools = new CompletableFuture<>();
    private final Object memoryLock = new Object();
    private MemoryStore memory;
    private String memoryProblem;
    private AgentRuns agent;
    private volatile boolean opening;
    private volatile boolean closed;

    private AgentService(LoadedConfig config, HostEnv env, TaskExecutor executor,
                         java.util.function.Function<dev.monoagent.common.EventSink, Sandbox> opener) {
        this.config = config;
        this.env = env;
        this.executor = executor;
        this.opener = opener != null ? opener : sink -> Sandbox.open(this.config, sink, env);
        this.runLogs = new RunLogs(config.workspace(), this::header, RunRecords.userSeal(
                dev.monoagent.memory.MemoryStore.sealEnv(config)));
        bus.subscribe(runLogs);
    }

    /** The service for a loaded config on a host, on the process-wide executor (the CLI's one-shot commands). */
    public static AgentService of(LoadedConfig config, HostEnv env) {
        return new AgentService(config, env, TaskExecutor.shared(), null);
    }

    /** The service for a loaded config on a host, doing its background work on {@code executor}. */
    public static AgentService of(LoadedConfig config, HostEnv env, TaskExecutor executor) {
        return new AgentService(config, env, executor, null);
    }

    /**
     * As {@link #of(LoadedConfig, HostEnv)} with a custom way to open the engine (tests hold it back to see what a
     * window shows before the engine is proven).
     */
    public static AgentService withOpener(LoadedConfig config, HostEnv env,
                                          java.util.function.Function<dev.monoagent.common.EventSink, Sandbox> opener) {
        return new AgentService(config, env, TaskExecutor.shared(), opener);
    }

    /** Loads the workspace's config for an instance (the CLI already preflighted it; a broken one yields defaults). */
    public static AgentService open(StartOptions o, TaskExecutor executor) {
        LoadedConfig lc;
        try {
            lc = ConfigLoader.load(new ConfigLoader.Options(o.workspace(), o.configPath(), null, System.getenv()));
        } catch (ConfigException e) {
            lc = new LoadedConfig(o.configPath(), false, o.workspace(), MonoConfig.DEFAULTS, Map.of(),
                    List.of(e.getMessage()), Map.of());
        }
        return new AgentService(lc, HostEnv.detect(), executor, null);
    }

    public EventBus events() {
        return bus;
    }

    public LoadedConfig config() {
        return config;
    }

    public Path workspace() {
        return config.workspace();
    }

    /**
     * Accepts every workspace setting that waits for the reviewer ({@link LoadedConfig#trust()}) in the reviewer's
     * trust records and reloads the config so they take effect. Only before the engine opens: the window asks on open.
     *
     * @throws IllegalStateException when the engine is already open or opening
     */
    public void acceptWorkspaceSettings() throws java.io.IOException, ConfigException {
        synchronized (engine) {
            if (opening) {
                throw new IllegalStateException("the engine is already open; accept with mono-agent trust and reopen");
            }
            LoadedConfig lc = config;
            ConfigLoader.accept(System.getenv(), lc.workspace(), lc.trust());
            config = ConfigLoader.load(new ConfigLoader.Options(lc.workspace(), lc.configPath(), lc.envFile() == null
                    || lc.envFile().equals(lc.workspace().resolve(".env")) ? null : lc.envFile(), System.getenv()));
        }
    }

    public HostEnv host() {
        return env;
    }

    /** The executor this service runs its work on (an agent run submits itself here to be cancellable). */
    public TaskExecutor executor() {
        return executor;
    }

    /** Opens and proves the engine in the background (once); engine events go to the bus. */
    public void openEngine() {
        synchronized (engine) {
            if (opening) {
                return;
            }
            opening = true;
        }
        executor.submit("open-engine", this::openEngineNow);
    }

    /** Opens and proves the engine in this thread (once), and returns it. */
    public Sandbox openEngineNow() {
        synchronized (engine) {
            opening = true;
            if (!engine.isDone()) {
                try {
                    Sandbox s = opener.apply(bus);
                    if (closed) {
                        s.close();
                        engine.completeExceptionally(new IllegalStateException("the service is closing"));
                    } else {
                        engine.complete(s);
                    }
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "sandbox engine failed to open: " + e.getMessage());
                    engine.completeExceptionally(e);
                }
            }
        }
        return engine.getNow(null);
    }

    /** The engine when it is open, else null. */
    public Sandbox engineIfOpen() {
        return engine.isDone() && !engine.isCompletedExceptionally() ? engine.getNow(null) : null;
    }

    /** The compiled policy: the engine's once open, else the same compiler's result for the config. */
    public Policy policy() {
        Sandbox s = engineIfOpen();
        return s != null ? s.policy() : Sandbox.policyFor(config, env);
    }

    /**
     * Re-proves the engine from scratch ({@code sandbox check} sent to a running instance): the self-check runs again
     * and an engine that had failed is usable again when it passes. Opens the engine first when it was not yet.
     */
    public SandboxStatus recheck() {
        Sandbox s = engineIfOpen();
        if (s == null) {
            openEngineNow();
            return sandboxStatus();
        }
        s.check();
        return s.status();
    }

    /** The sandbox state: the live engine's, the cheap on-disk one before it opens, or why it could not open. */
    public SandboxStatus sandboxStatus() {
        Sandbox s = engineIfOpen();
        if (s != null) {
            return s.status();
        }
        if (engine.isCompletedExceptionally()) {
            return Sandbox.withoutEngine(config, "engine failed to open: " + failure());
        }
        try {
            SandboxStatus q = Sandbox.quickStatus(config, env);
            if (opening && !engine.isDone() && q.current() instanceof SandboxState.Unavailable u
                    && (u.reason().endsWith("last self-check failed") || u.reason().contains("not yet proven"))) {
                // the on-disk record is the last check of any workspace on this host, possibly an old failure:
                // while this instance proves its engine, say that instead of a stale verdict
                return new SandboxStatus(new SandboxState.Unavailable("sandbox_unavailable: " + PROVING),
                        q.engine(), q.fallback(), q.lastVerified(), q.probes());
            }
            return q;
        } catch (RuntimeException e) {
            return Sandbox.withoutEngine(config, "sandbox status failed: " + e.getMessage());
        }
    }

    /** The status detail while the engine is being proven (the instance just started, or a re-check runs). */
    public static final String PROVING = "proving the engine now (self-check running)";

    private String failure() {
        try {
            engine.getNow(null);
            return "unknown";
        } catch (RuntimeException e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            return c.getMessage();
        }
    }

    /**
     * The tools over the proven engine (waits for it while it is being proven). Without an engine the command tools
     * fail closed and the file tools work under the compiled policy.
     *
     * @throws ConfigException when the tool lists are invalid
     */
    public Tools tools() throws ConfigException {
        if (tools.isDone()) {
            return tools.join();
        }
        Sandbox s = awaitEngine();
        synchronized (tools) {
            if (!tools.isDone()) {
                List<dev.monoagent.tools.Tool> extra = memoryTools();
                Tools t = s != null ? Tools.open(config, s, bus, extra)
                        : Tools.open(config, policy(), SandboxPort.unavailable(ExecOutcome.FAIL_CLOSED_TEXT), bus,
                                extra, ToolBinaries.find(env, policy()));
                tools.complete(t);
            }
        }
        return tools.join();
    }

    /** The memory tools the config enables ({@code memory.recallTool}/{@code rememberTool}); the store opens on first use. */
    private List<dev.monoagent.tools.Tool> memoryTools() {
        return MemoryTools.of(() -> {
            MemoryStore m = memory();
            if (m == null) {
                throw new IllegalStateException(memoryProblem());
            }
            return m;
        }, config.config().memory());
    }

    /**
     * The workspace's long-term memory, opened on first use and closed with the service; null when it cannot be
     * opened ({@link #memoryProblem()} says why).
     */
    public MemoryStore memory() {
        synchronized (memoryLock) {
            if (memory == null && memoryProblem == null && !closed) {
                try {
                    memory = MemoryStore.open(config);
                } catch (java.io.IOException | RuntimeException e) {
                    memoryProblem = e.getMessage();
                    LOG.log(System.Logger.Level.WARNING, "memory unavailable: " + e.getMessage());
                }
            }
            return memory;
        }
    }

    /** Why {@link #memory()} is null, or null. */
    public String memoryProblem() {
        synchronized (memoryLock) {
            return memoryProblem;
        }
    }

    /** The agent runs of this service (the prompt box, {@code mono-agent run}, the control endpoint's run op). */
    public AgentRuns agent() {
        synchronized (memoryLock) {
            if (agent == null) {
                agent = new AgentRuns(this);
            }
            return agent;
        }
    }

    /** The engine, waiting up to {@link #ENGINE_WAIT} for one being proven; null when none could be opened. */
    private Sandbox awaitEngine() {
        if (!opening) {
            return openEngineNow();
        }
        try {
            return engine.get(ENGINE_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Starts a run: publishes {@code RunStarted} (its log opens with the header). */
    public void startRun(String runId) {
        bus.accept(new Event.RunStarted(Instant.now(), runId, workspace().toString()));
    }

    /** Ends a run's resources (its NodeRepl) without finishing it: the next NodeRepl call starts a fresh REPL. */
    public void endRun(String runId) {
        Tools t = tools.getNow(null);
        if (t != null) {
            t.endRun(runId);
        }
    }

    /** Ends a run: stops its NodeRepl, publishes {@code RunFinished} (its log is fsynced and closed). */
    public void finishRun(String runId, RunStatus status) {
        Tools t = tools.getNow(null);
        if (t != null) {
            t.endRun(runId);
        }
        bus.accept(new Event.RunFinished(Instant.now(), runId, status));
    }

    /**
     * The instance is being stopped: cancels the agent runs still going (each finishes itself), then ends every
     * other run still open in this process's logs with {@link RunStatus#STOPPED} (its NodeRepl stopped, its log
     * closed), so {@code runs list} tells a run ended by {@code mono-agent stop} from one whose process died.
     */
    public void stopOpenRuns() {
        AgentRuns a;
        synchronized (memoryLock) {
            a = agent;
        }
        if (a != null) {
            a.stopAll();
        }
        for (String id : runLogs.openRuns()) {
            finishRun(id, RunStatus.STOPPED);
        }
    }

    /**
     * Runs one tool call in {@code runId}'s run (created on first use; calls with the same run id share its NodeRepl;
     * calls within one run are serialised) and returns the result with every event of the call.
     */
    public ToolCallReply callTool(String name, String argsJson, String runId) {
        return callTool(name, argsJson, runId, "call-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /** As {@link #callTool(String, String, String)} with the caller's call id (the window's consoles). */
    public ToolCallReply callTool(String name, String argsJson, String runId, String callId) {
        String run = runId == null ? "cli" : runId;
        List<Event> seen = new CopyOnWriteArrayList<>();
        try (EventBus.Subscription sub = bus.subscribe(e -> {
            if (callId.equals(Event.callIdOf(e))) {
                seen.add(e);
            }
        })) {
            if (closed) {
                return ToolCallReply.of(ToolOutcome.FAILED, "the instance is stopping", List.of());
            }
            Tools.Run r;
            try {
                r = tools().run(run);
            } catch (ConfigException e) {
                return ToolCallReply.of(ToolOutcome.INVALID_TOOL_POLICY, e.getMessage(), List.of());
            }
            ToolResult result;
            synchronized (r) {
                result = r.call(callId, name, argsJson);
            }
            return ToolCallReply.of(result, seen);
        }
    }

    /**
     * Every violation this machine recorded in a workspace's run logs (all sessions, sealed lines only), oldest
     * first: the inspector's history.
     */
    public static List<dev.monoagent.common.Violation> violationHistory(Path workspace) {
        return RunLogs.violations(workspace, RunRecords.userSeal(System.getenv()));
    }

    /** What this process reports over the control endpoint as a running instance. */
    public InstanceStatus instanceStatus(String startedAt, String frontend) {
        return new InstanceStatus(config.workspace().toString(), config.configPath().toString(),
                ProcessHandle.current().pid(), startedAt, frontend,
                ControlEndpoint.socketPath(config.workspace()).toString(), SandboxSummary.of(sandboxStatus()));
    }

    /** The first line of every run log: the policy in force, the engine fingerprint, the last self-check. */
    Event.RunHeader header(String runId) {
        SandboxStatus s = sandboxStatus();
        List<ProbeResult> probes = s.probes();
        boolean passed = !probes.isEmpty() && probes.stream().allMatch(ProbeResult::passed);
        return new Event.RunHeader(Instant.now(), runId, policyMap(policy()),
                new Event.EngineFingerprint(s.engine().version(), s.engine().digest(), s.engine().source().wire()),
                new Event.LastCheck(passed, s.lastVerified()));
    }

    /** The policy as the run log records it. */
    static Map<String, Object> policyMap(Policy p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workspace", p.workspace().toString());
        m.put("mode", p.mode().wire());
        m.put("fallback", p.fallback().wire());
        m.put("unsafeAllowed", p.unsafeAllowed());
        m.put("readableRoots", p.readableRoots().stream().map(Path::toString).toList());
        m.put("writableRoots", p.writableRoots().stream().map(Path::toString).toList());
        m.put("denyWrite", p.denyWriteGlobs());
        m.put("protectedPaths", p.protectedLiterals().stream().map(Path::toString).toList());
        m.put("denyRead", p.denyRead().stream().map(Path::toString).toList());
        m.put("network", p.network().wire());
        m.put("allowlist", p.allowlist());
        return m;
    }

    @Override
    public void close() {
        closed = true;
        AgentRuns a;
        synchronized (memoryLock) {
            a = agent;
        }
        if (a != null) {
            a.stopAll();
        }
        Tools t = tools.getNow(null);
        if (t != null) {
            t.close();
        }
        Sandbox s = engineIfOpen();
        if (s != null) {
            s.close();
        }
        runLogs.close();
        synchronized (memoryLock) {
            if (memory != null) {
                try {
                    memory.close();
                } catch (java.io.IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "closing memory: " + e.getMessage());
                }
                memory = null;
            }
        }
    }
}
