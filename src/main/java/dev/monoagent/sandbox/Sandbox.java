package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Effective;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.LoadedConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * The sandbox facade the tools, the CLI and the workbench use. Opened from a loaded config; {@link #exec} and
 * {@link #start} either run under the proven engine or return {@link ExecOutcome.PrepareFailed} — fail-closed is a
 * type: with {@code fallback: fail-closed} nothing ever runs on the host. The gate is the functional self-check
 * ({@link SelfCheck}); its pass is cached per engine digest + host tool fingerprints + policy hash.
 *
 * <p>Flow of {@link #open}: policy → host tools → engine bytes (tree digest) → self-check (canary, own bridge) in
 * parallel with this workspace's bridge initialise → ready. Before every command: bridge alive, tool and helper files
 * unchanged since they were proven (stat identity), managed install still in place.
 */
public final class Sandbox implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CHECK_CACHE_TTL = Duration.ofHours(24);

    private final LoadedConfig cfg;
    private final EventSink sink;
    private final HostEnv env;
    private final SrtRuntime runtime;
    private final Policy policy;
    private final ViolationLog log;
    private volatile NativeEngine engine;
    private volatile SrtRuntime.Resolution resolution;
    private volatile HostTools tools;
    private volatile Path setsid;
    private volatile boolean ready;
    private volatile String reason;
    private volatile Instant lastVerified;
    private volatile List<ProbeResult> probes = List.of();
    private volatile Map<Path, Object> provenFiles = Map.of();

    private Sandbox(LoadedConfig cfg, EventSink sink, HostEnv env) {
        this.cfg = cfg;
        this.sink = sink;
        this.env = env;
        this.runtime = new SrtRuntime(env);
        this.policy = PolicyCompiler.compile(cfg, env.home(), env.cacheRoot());
        this.log = new ViolationLog(policy.workspace().resolve(".mono-agent"), sink, v -> keptOneByOne(v, policy));
        // host runs (mode off, unsafe fallback) also get their own process group
        this.setsid = MacHost.setsid(env, agentWritable());
    }

    /**
     * The records never aggregated however many come: network ones, those found by the host's scans, and any whose
     * target is a protected path or names one in its last components ({@code /proc/self/cwd/.env}), or cannot be read
     * as a path.
     */
    static boolean keptOneByOne(Violation v, Policy policy) {
        if (v.kind() == Violation.Kind.NETWORK || v.tier() == Violation.Tier.DETECTED) {
            return true;
        }
        if (v.target() == null) {
            return false;
        }
        Path t;
        try {
            t = Path.of(v.target()).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return true;
        }
        Path abs = t.isAbsolute() ? t : policy.workspace().resolve(t);
        return policy.protection(abs) != null || new WriteRecord(List.of(), List.of(), List.of(), policy.workspace(),
                policy::protection).protectedName(t) != null;
    }

    /** Where the sandboxed agent can write: host tools are never taken from PATH entries there. */
    private List<Path> agentWritable() {
        return policy.agentWritable();
    }

    /** The host {@code rg} and {@code node} the tools start, found by the same rule as the engine's tools. */
    public ToolBinaries binaries() {
        return ToolBinaries.find(env, policy);
    }

    /** Opens the sandbox for the real host and proves it (blocking; ≈ 1 s the first time, less when cached). */
    public static Sandbox open(LoadedConfig cfg, EventSink sink) {
        return open(cfg, sink, HostEnv.detect());
    }

    public static Sandbox open(LoadedConfig cfg, EventSink sink, HostEnv env) {
        return open(cfg, sink, env, false);
    }

    /** Opens and proves; {@code forceCheck} ignores a cached self-check pass (what {@code sandbox check} does). */
    public static Sandbox open(LoadedConfig cfg, EventSink sink, HostEnv env, boolean forceCheck) {
        Sandbox s = new Sandbox(cfg, sink, env);
        s.prepare(forceCheck);
        return s;
    }

    /** Opens without proving anything (for {@link #setup}, which installs first and proves afterwards). */
    public static Sandbox unproven(LoadedConfig cfg, EventSink sink, HostEnv env) {
        Sandbox s = new Sandbox(cfg, sink, env);
        s.reason = "sandbox_unavailable: not yet proven";
        return s;
    }

    public Policy policy() {
        return policy;
    }

    /** The engine's literal write denies now (the targets of protected links among them); empty before it opens. */
    public java.util.List<java.nio.file.Path> deniedPaths() {
        NativeEngine ne = engine;
        return ne == null ? java.util.List.of() : ne.denyLiterals();
    }

    /** Re-proves from scratch: re-verifies the engine bytes, restarts the bridge, runs every probe (no cache). */
    public synchronized List<ProbeResult> check() {
        prepare(true);
        return probes;
    }

    /** Installs (or repairs) the managed engine, then runs the full check. */
    public synchronized SandboxStatus setup(Consumer<String> progress) {
        if (!HostTools.hostNodeQualifies(env, agentWritable())) {
            progress.accept("No Node >= 20.11 on PATH; using the pinned Node " + NodeRuntime.VERSION + ".");
            switch (new NodeRuntime(env).setup(progress)) {
                case NodeRuntime.Verified v -> { }
                case NodeRuntime.Absent a -> progress.accept("Node setup failed: " + a.detail());
                case NodeRuntime.Corrupt c -> progress.accept("Node setup failed: " + c.detail());
            }
        }
        HostTools.Found found = HostTools.find(env, agentWritable());
        if (found instanceof HostTools.Missing m) {
            progress.accept(m.line());
            prepare(true);
            return status();
        }
        SrtRuntime.Resolution r = runtime.setup(((HostTools.Ok) found).tools(), progress);
        if (!r.usable()) {
            progress.accept("Setup failed: " + r.detail());
        }
        progress.accept("Running the sandbox self-check ...");
        prepare(true);
        return status();
    }

    private synchronized void prepare(boolean force) {
        ready = false;
        closeEngine();
        if (policy.mode() == SandboxMode.OFF) {
            reason = null;
            publishState();
            return;
        }
        HostTools.Found found = HostTools.find(env, agentWritable());
        if (found instanceof HostTools.Missing m) {
            unavailable(m.line());
            return;
        }
        tools = ((HostTools.Ok) found).tools();
        setsid = MacHost.setsid(env, agentWritable());
        if (setsid == null) {
            unavailable("setsid not found on PATH. Install with: " + MacHost.SETSID_HINT.get(Platform.current()));
            return;
        }
        resolution = runtime.resolve();
        if (!resolution.usable()) {
            unavailable(resolution.engineLine() + (resolution.source() == SrtRuntime.Source.ABSENT
                    ? "; run `mono-agent sandbox setup`" : ""));
            return;
        }
        Path apply = resolution.applySeccomp();
        try {
            if (!Files.isRegularFile(apply, LinkOption.NOFOLLOW_LINKS)
                    || !SrtRuntime.APPLY_SECCOMP_SHA256.get(SrtRuntime.arch()).equals(TreeDigest.sha256(apply))) {
                unavailable("apply-seccomp helper missing or not the pinned binary: " + apply);
                return;
            }
        } catch (IOException e) {
            unavailable("cannot read apply-seccomp: " + e.getMessage());
            return;
        }
        Map<Path, Object> fingerprint = fingerprint();
        String key = cacheKey(fingerprint);
        NativeEngine ne = new NativeEngine(env, tools, resolution, policy, setsid, log);
        Future<SrtBridge.InitResult> started = ProcessRunner.pump("bridge-start", ne::start).future();
        List<ProbeResult> results = force ? null : cachedPass(key);
        if (results == null) {
            String checkId = "check-" + java.util.UUID.randomUUID().toString().substring(0, 8);
            sink.accept(new Event.SelfCheckStarted(Instant.now(), checkId));
            results = SelfCheck.run(env, tools, resolution, setsid);
            for (ProbeResult pr : results) {
                sink.accept(new Event.ProbeFinished(Instant.now(), checkId, pr));
            }
            boolean passed = !results.isEmpty() && results.stream().allMatch(ProbeResult::passed);
            sink.accept(new Event.SelfCheckFinished(Instant.now(), checkId, passed, results));
            // an interrupted check (Ctrl-C, a window closed mid-check) proved nothing either way: the last verdict on
            // record stays as it was (this engine still fails closed: its probes did not pass)
            if (!Thread.currentThread().isInterrupted()) {
                writeCache(key, results, passed);
                lastVerified = Instant.now();
            }
        }
        probes = results;
        SrtBridge.InitResult init;
        try {
            init = started.get();
        } catch (ExecutionException e) {
            ne.close();
            unavailable("bridge failed to start: " + e.getCause().getMessage());
            return;
        } catch (InterruptedException e) {
            ne.close();
            Thread.currentThread().interrupt();
            unavailable("interrupted");
            return;
        }
        ProbeResult failed = results.stream().filter(p -> !p.passed()).findFirst().orElse(null);
        if (results.isEmpty() || failed != null) {
            ne.close();
            unavailable("self-check failed: " + (failed == null ? "no probes ran" : failed.id() + ": "
                    + failed.detail()));
            return;
        }
        if (!init.clean()) {
            ne.close();
            unavailable("srt initialize reported: " + init.problem());
            return;
        }
        if (resolution.pinPending()) {
            try {
                runtime.pinExternal(resolution);
            } catch (IOException e) {
                ne.close();
                unavailable("cannot pin external srt: " + e.getMessage());
                return;
            }
        }
        engine = ne;
        provenFiles = fingerprint;
        reason = null;
        ready = true;
        publishState();
    }

    private void unavailable(String why) {
        ready = false;
        reason = "sandbox_unavailable: " + why;
        closeEngine();
        publishState();
    }

    private void publishState() {
        SandboxState st = status().current();
        sink.accept(new Event.SandboxStateChanged(Instant.now(), st.effective(), st.reason()));
    }

    /** Files whose identity the proof depends on: host tools, helper, engine entry points. */
    private Map<Path, Object> fingerprint() {
        Map<Path, Object> m = new LinkedHashMap<>();
        // bwrap and socat are null on macOS (sandbox-exec is SIP-protected system software)
        List<Path> files = new ArrayList<>(java.util.Arrays.asList(tools.node(), tools.bwrap(), tools.socat(),
                tools.rg(), tools.bash(), setsid, resolution.applySeccomp(), resolution.indexJs(), resolution.cliJs()));
        files.removeIf(java.util.Objects::isNull);
        for (Path f : files) {
            m.put(f, statKey(f));
        }
        return m;
    }

    private static Object statKey(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            Object ctime = Files.getAttribute(f, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
            return List.of(a.size(), a.lastModifiedTime().toMillis(), String.valueOf(a.fileKey()), ctime.toString());
        } catch (IOException | UnsupportedOperationException e) {
            return "missing";
        }
    }

    /** Cheap per-command re-verification; null when intact, else what changed. */
    private String tamper() {
        NativeEngine ne = engine;
        if (ne == null || !ne.alive()) {
            return "the srt bridge is not running (it must be restarted and re-proved: `mono-agent sandbox check`)";
        }
        for (Map.Entry<Path, Object> e : provenFiles.entrySet()) {
            if (!statKey(e.getKey()).equals(e.getValue())) {
                return e.getKey() + " changed since the sandbox was proven";
            }
        }
        if (resolution.source() == SrtRuntime.Source.MANAGED && !Files.isDirectory(resolution.installRoot())) {
            return "managed install disappeared";
        }
        return null;
    }

    private String cacheKey(Map<Path, Object> fingerprint) {
        StringBuilder sb = new StringBuilder();
        sb.append("v").append(SelfCheck.VERSION).append('\n').append(resolution.source()).append(' ')
                .append(resolution.digest()).append('\n');
        fingerprint.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        sb.append(policy);
        return TreeDigest.sha256(sb.toString());
    }

    private Path cacheDir() {
        return env.cacheRoot().resolve("selfcheck");
    }

    private List<ProbeResult> cachedPass(String key) {
        Path f = cacheDir().resolve(key + ".json");
        try {
            if (!Files.isRegularFile(f)) {
                return null;
            }
            JsonNode n = JSON.readTree(f.toFile());
            Instant at = Instant.parse(n.path("time").asText());
            if (!n.path("passed").asBoolean() || at.isBefore(Instant.now().minus(CHECK_CACHE_TTL))) {
                return null;
            }
            lastVerified = at;
            return readProbes(n);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static List<ProbeResult> readProbes(JsonNode n) {
        List<ProbeResult> out = new ArrayList<>();
        for (JsonNode p : n.path("probes")) {
            out.add(new ProbeResult(p.path("id").asText(), p.path("passed").asBoolean(), p.path("detail").asText(),
                    p.path("millis").asLong()));
        }
        return out;
    }

    private void writeCache(String key, List<ProbeResult> results, boolean passed) {
        try {
            SrtRuntime.mkdirsPrivate(cacheDir());
            ObjectNode n = JSON.createObjectNode();
            n.put("time", Instant.now().toString());
            n.put("passed", passed);
            ArrayNode arr = n.putArray("probes");
            for (ProbeResult p : results) {
                ObjectNode o = arr.addObject();
                o.put("id", p.id());
                o.put("passed", p.passed());
                o.put("detail", p.detail());
                o.put("millis", p.millis());
            }
            String text = JSON.writeValueAsString(n);
            if (passed) {
                Files.writeString(cacheDir().resolve(key + ".json"), text);
            }
            Files.writeString(cacheDir().resolve("last.json"), text);
        } catch (IOException ignored) {
            // no cache: the next open re-runs the probes
        }
    }

    /** The current state, without running anything. */
    public SandboxStatus status() {
        SrtRuntime.Resolution r = resolution != null ? resolution : runtime.cheapStatus();
        boolean ok = policy.mode() != SandboxMode.OFF && ready && tamperFree();
        return new SandboxStatus(SandboxState.of(policy.mode(), ok, policy.unsafeAllowed(), reason), EngineInfo.of(r),
                policy.fallback(), policy.mode() == SandboxMode.OFF ? null : lastVerified,
                policy.mode() == SandboxMode.OFF ? List.of() : probes)
                .withNode(tools == null ? null : tools.nodeLine())
                .withWarm(engine == null ? null : engine.warmState());
    }

    private boolean tamperFree() {
        String t = tamper();
        if (t != null && ready) {
            ready = false;
            reason = "sandbox_unavailable: " + t;
            closeEngine();
        }
        return t == null;
    }

    /**
     * Status without proving anything or starting a process (for {@code mono-agent status}): the installed engine as
     * found on disk and the last recorded self-check. {@code ready} here means "passed when last checked".
     */
    public static SandboxStatus quickStatus(LoadedConfig cfg) {
        return quickStatus(cfg, HostEnv.detect());
    }

    /** The compiled policy for a config, proving nothing (for the accepted-policy check before a start). */
    public static Policy policyFor(LoadedConfig cfg, HostEnv env) {
        return PolicyCompiler.compile(cfg, env.home(), env.cacheRoot());
    }

    public static SandboxStatus quickStatus(LoadedConfig cfg, HostEnv env) {
        Policy p = PolicyCompiler.compile(cfg, env.home(), env.cacheRoot());
        SrtRuntime.Resolution r = new SrtRuntime(env).cheapStatus();
        if (p.mode() == SandboxMode.OFF) {
            return new SandboxStatus(new SandboxState.Off(), EngineInfo.of(r), p.fallback(), null, List.of());
        }
        Instant at = null;
        boolean passed = false;
        List<ProbeResult> last = List.of();
        try {
            JsonNode n = JSON.readTree(env.cacheRoot().resolve("selfcheck/last.json").toFile());
            at = Instant.parse(n.path("time").asText());
            passed = n.path("passed").asBoolean();
            last = readProbes(n);
        } catch (IOException | RuntimeException ignored) {
            // never checked
        }
        boolean ok = r.usable() && passed;
        String why = ok ? null : "sandbox_unavailable: " + (!r.usable() ? r.engineLine()
                : at == null ? "not yet proven (run `mono-agent sandbox check`)" : "last self-check failed");
        return new SandboxStatus(SandboxState.of(p.mode(), ok, p.unsafeAllowed(), why), EngineInfo.of(r),
                p.fallback(), at, last);
    }

    /** The state when no engine facade could even be opened (config-only): fail-closed blocks, unsafe runs on host. */
    public static SandboxStatus withoutEngine(LoadedConfig cfg, String reason) {
        var s = cfg.config().sandbox();
        return new SandboxStatus(SandboxState.of(s.mode(), false, s.unsafeFallbackAllowed(),
                s.unsafeFallbackAllowed() ? reason : "sandbox_unavailable: " + reason), EngineInfo.absent(),
                s.fallback(), null, List.of());
    }

    /**
     * Which Node the engine and NodeRepl would use, for {@code sandbox status}: the host's when it qualifies, else the
     * managed one. Runs {@code node --version} and hashes a managed binary, so it is not part of {@link #quickStatus}.
     */
    public static String nodeLine(HostEnv env, LoadedConfig cfg) {
        Policy p = PolicyCompiler.compile(cfg, env.home(), env.cacheRoot());
        return HostTools.chooseNode(env, p.agentWritable()).line();
    }

    /** Runs a command to completion under the policy, or returns {@code PrepareFailed} without running anything. */
    public ExecOutcome exec(CommandSpec spec) {
        return exec(spec, OutputListener.NONE);
    }

    /** As {@link #exec(CommandSpec)}, handing output to {@code live} while the command runs. */
    public ExecOutcome exec(CommandSpec spec, OutputListener live) {
        if (policy.mode() == SandboxMode.OFF) {
            return host(spec, Effective.OFF, live);
        }
        NativeEngine ne = engine;
        if (!ready || ne == null || !tamperFree()) {
            if (policy.unsafeAllowed()) {
                return host(spec, Effective.UNSAFE_HOST_PROCESS, live);
            }
            return ExecOutcome.PrepareFailed.unavailable(reason == null ? "sandbox_unavailable" : reason);
        }
        NativeEngine.Attribution who = new NativeEngine.Attribution(spec.runId(), spec.callId(), spec.tool(),
                commandText(spec));
        try {
            return ne.run(spec.argv(), who, spec.extraEnv(), spec.workdir(), spec.stdin(), spec.timeout(),
                    spec.maxOutputBytes(), live);
        } catch (IOException e) {
            if (!ne.alive()) {
                unavailable("the srt bridge died: " + e.getMessage());
                return ExecOutcome.PrepareFailed.unavailable(reason);
            }
            return new ExecOutcome.Completed(127, 0, "", "mono-agent: cannot start command: " + e.getMessage() + "\n",
                    false, false, List.of(), 0, Effective.NATIVE);
        }
    }

    /** Starts a long-lived sandboxed process (NodeRepl), or returns {@code PrepareFailed}. */
    public StartOutcome start(CommandSpec spec) {
        NativeEngine ne = engine;
        if (policy.mode() != SandboxMode.OFF && (!ready || ne == null || !tamperFree())) {
            if (!policy.unsafeAllowed()) {
                return ExecOutcome.PrepareFailed.unavailable(reason == null ? "sandbox_unavailable" : reason);
            }
            ne = null;
        }
        try {
            if (policy.mode() == SandboxMode.OFF || ne == null) {
                Process p = ProcessRunner.spawn(setsid, spec.argv(), SandboxEnv.host(env, spec.extraEnv()), spec.workdir());
                return new StartOutcome.Started(new SandboxProcess(p, List::of),
                        policy.mode() == SandboxMode.OFF ? Effective.OFF : Effective.UNSAFE_HOST_PROCESS);
            }
            NativeEngine.Attribution who = new NativeEngine.Attribution(spec.runId(), spec.callId(), spec.tool(),
                    commandText(spec));
            return new StartOutcome.Started(ne.spawn(spec.argv(), who, spec.extraEnv(), spec.workdir()), Effective.NATIVE);
        } catch (IOException e) {
            if (ne != null && !ne.alive()) {
                unavailable("the srt bridge died: " + e.getMessage());
            }
            return ExecOutcome.PrepareFailed.unavailable("cannot start: " + e.getMessage());
        }
    }

    private ExecOutcome host(CommandSpec spec, Effective mode, OutputListener live) {
        try {
            ProcessRunner.Result r = ProcessRunner.run(setsid, spec.argv(), SandboxEnv.host(env, spec.extraEnv()),
                    spec.workdir(), spec.stdin(), spec.timeout(), spec.maxOutputBytes(), live);
            return new ExecOutcome.Completed(r.exitCode(), r.signal(), r.out(), r.err(), r.truncated(), r.timedOut(),
                    List.of(), r.elapsedMillis(), mode);
        } catch (IOException e) {
            return new ExecOutcome.Completed(127, 0, "", "mono-agent: cannot start command: " + e.getMessage() + "\n",
                    false, false, List.of(), 0, mode);
        }
    }

    private static String commandText(CommandSpec spec) {
        List<String> a = spec.argv();
        if (a.size() >= 2 && a.get(a.size() - 2).equals("-c") && a.get(0).endsWith("bash")) {
            return a.get(a.size() - 1);
        }
        return String.join(" ", a);
    }

    /** The bridge's pid, for diagnostics and the fail-closed tests; -1 when none. */
    long bridgePid() {
        NativeEngine ne = engine;
        return ne == null || ne.bridge() == null ? -1 : ne.bridge().pid();
    }

    NativeEngine engine() {
        return engine;
    }

    private synchronized void closeEngine() {
        NativeEngine ne = engine;
        engine = null;
        if (ne != null) {
            ne.close();
        }
    }

    @Override
    public void close() {
        ready = false;
        closeEngine();
    }
}
