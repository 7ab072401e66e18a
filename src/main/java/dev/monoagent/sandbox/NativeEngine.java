package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import dev.monoagent.common.Event;
import dev.monoagent.common.Printable;
import dev.monoagent.common.Violation;
import dev.monoagent.common.Violation.Kind;
import dev.monoagent.common.Violation.Tier;
import dev.monoagent.config.Enums.NetworkMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One proven-able srt session for one workspace and policy: the bridge, its initialised config, the per-session temp
 * dir, and the whole command flow, top to bottom in {@link #run}: snapshot protected paths → (re-initialise when the
 * protected set grew) → grant current host ports → wrap → spawn in our own process group → cleanup → scan → collect
 * violations. Used by the {@link Sandbox} facade and by {@link SelfCheck} (with a canary policy).
 */
final class NativeEngine implements AutoCloseable {
    private static final Pattern FS_DENY = Pattern.compile("^deny (\\S+) (.+)$");
    private static final Pattern NET_DENY = Pattern.compile("^deny network-outbound (\\S+)(?: \\((.*)\\))?$");
    private static final Pattern NET_ALLOW = Pattern.compile("^allow network-outbound (\\S+):(\\d+)$");

    /** Who a command belongs to, for attributing engine events that arrive by commandId. */
    record Attribution(String runId, String callId, String tool, String command) {}

    /** A wrapped command ready to spawn. */
    record Prepared(String commandId, List<String> argv, Map<String, String> env, ProtectedScan.Snapshot before,
                    Attribution who, boolean reused, String startMarker, long watchMark, List<String> extras) {
        /** The same command judged from a later snapshot and watch mark (a long-lived process's last checkpoint). */
        Prepared since(ProtectedScan.Snapshot later, long mark) {
            return new Prepared(commandId, argv, env, later, who, reused, startMarker, mark, extras);
        }
    }

    private final HostEnv env;
    private final HostTools tools;
    private final SrtRuntime.Resolution engine;
    private final Policy policy;
    private final Path setsid;
    private final ViolationLog log;
    private volatile dev.monoagent.common.OwnPorts.Hold ownPortsSubscription = () -> { };
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Attribution> commands = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Attribution> e) {
            return size() > 512;
        }
    });
    private final Map<String, List<Violation>> perCommand = new ConcurrentHashMap<>();
    private final java.util.ArrayDeque<Violation> late = new java.util.ArrayDeque<>();
    private final Map<String, List<Event.NetworkAllowed>> allowedPerCommand = new ConcurrentHashMap<>();
    /** The read-denied directories srt mounts an empty tmpfs of the sandbox's own over ({@link WriteRecord}). */
    private volatile List<Path> privateDirs = List.of();
    /** The read-only dirs bound back inside them (tool dirs, toolchain roots). */
    private volatile List<Path> readOnlyBinds = List.of();
    private final AtomicInteger longLived = new AtomicInteger();
    /** Commands running now (commandIds): a proxy connection that names no known command is the only one's. */
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private volatile SrtBridge bridge;
    private volatile SrtBridge.InitResult init;
    private volatile List<Path> denyLiterals = List.of();
    private volatile List<Integer> grantedPorts = List.of();
    /** The workspace layout the bridge's prepared wrap was made for (null: none may be reused). */
    private volatile String preparedLayout;
    /** {@link SrtMountPoints#generation} when the bridge was last asked to prepare a wrap (init, cleanup). */
    private volatile long preparedGeneration = -1;
    private Path sessionTmp;
    private volatile Limits limits;
    /** Protected names appearing while commands run (null: no watch service on this host). */
    private volatile ProtectedWatch watch;
    /**
     * Sandboxed commands and long-lived processes running now, by commandId: what a mid-command intervention (a
     * repository planted while a command runs) must stop before it moves anything.
     */
    private final Map<String, Live> live = new ConcurrentHashMap<>();
    /** The snapshot a running command is judged from after an intervention handled part of what it did. */
    private final Map<String, Prepared> rebased = new ConcurrentHashMap<>();
    /** Repositories an intervention already neutralised (not reported again as created and deleted). */
    private final Set<Path> neutralised = ConcurrentHashMap.newKeySet();
    /** Serialises every scan that moves things (after a command, a checkpoint, an intervention) with thawing. */
    private final Object scanLock = new Object();
    private final java.util.concurrent.atomic.AtomicBoolean linkGuardQueued =
            new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean interventionQueued =
            new java.util.concurrent.atomic.AtomicBoolean();

    /** A running command: its slot (freezer), its process once spawned, its attribution and current judgement. */
    private record Live(Limits.Slot slot, java.util.concurrent.atomic.AtomicReference<Process> process,
                        Attribution who, Prepared prep, boolean longLived) {}

    /**
     * What an intervention handled in a long-lived process's evaluation, recorded at that evaluation's checkpoint
     * (the engine learns the evaluation's callId only then), or at exit.
     */
    private final Map<String, List<ProtectedScan.Change>> pendingGit = new ConcurrentHashMap<>();

    /** How engines pick their limits; tests swap in small ones so a memory or file cap trips in a second. */
    static volatile java.util.function.Supplier<Limits> limitsFactory = Limits::detect;
    /**
     * Whether new engines run commands on a per-run warm shell ({@link WarmShell}): the default on Linux (ADR 0021).
     * Each command binds srt's placeholders for itself and the host removes them once it is swept, so none stays in
     * the workspace between commands. {@code -Dmonoagent.sandbox.warm=off} (or {@code MONO_AGENT_WARM_SHELL=off})
     * gives a fresh sandbox per command instead; macOS always has that (Seatbelt has no namespaces to keep).
     */
    /**
     * Whether a protected symlink (or one on its way) changed while a command runs is put back at once
     * ({@link #guardLinks}). Tests turn it off to exercise the after-command restoration alone, which stays the
     * backstop (a REPL evaluation, an event the watch lost).
     */
    static volatile boolean linkGuard = true;

    static volatile boolean warmDefault = Platform.current() != Platform.MACOS
            && !"off".equals(System.getProperty("monoagent.sandbox.warm", System.getenv("MONO_AGENT_WARM_SHELL")));
    static final String WARM_OFF = "off (a fresh sandbox per command: set by -Dmonoagent.sandbox.warm=off or "
            + "MONO_AGENT_WARM_SHELL=off, or on macOS)";
    /** Warm shells kept at once (one per run; the least recently used one goes first). */
    static final int MAX_SHELLS = 4;

    private final boolean warm = warmDefault;
    /** The warm shells by run id ("" for commands outside a run); guarded by itself. */
    private final Map<String, WarmShell> shells = new LinkedHashMap<>(8, 0.75f, true);
    /** The same shells by the commandId srt wrapped them with, for attributing engine events. */
    private final Map<String, WarmShell> shellsByWrap = new ConcurrentHashMap<>();
    /** Every commandId a warm shell was wrapped with (from before its start, so its start-up events are known). */
    private final Set<String> warmWraps = ConcurrentHashMap.newKeySet();
    /** Runs whose shell is being started (by one command; see {@link #acquireShell}). */
    private final Set<String> startingShells = ConcurrentHashMap.newKeySet();
    /** Per live long-lived process: the identities of the protected files it was started over. */
    private final Map<String, Map<Path, Object>> longLivedStart = new ConcurrentHashMap<>();
    /** Test seam: runs after a warm shell's wrap is made, before it is spawned (and its mounts made). */
    volatile Runnable shellStarting = () -> { };
    /** Set when {@link #close()} begins: the bridge prepares no further wrap (its shutdown would wait for it). */
    private volatile boolean closing;
    /** Why this engine stopped using warm shells (null: it uses them); set when one failed to start. */
    private volatile String warmOff;
    /** Bumped at every initialise: a warm shell or long-lived process of an older one runs under an old deny set. */
    private volatile long generation;
    /** Long-lived sandboxed processes (NodeRepl) alive now. */
    private final Set<SandboxProcess> liveProcesses = ConcurrentHashMap.newKeySet();
    /**
     * Long-lived processes whose end (cleanup, end scan, quarantine into the state dir) has not finished: one leaves
     * {@link #liveProcesses} as its end begins, and {@link #awaitEnds} waits for these.
     */
    private final Set<SandboxProcess> unfinished = ConcurrentHashMap.newKeySet();
    /** Test hook: runs as a long-lived process's end begins (after it left {@link #liveProcesses}). */
    volatile Runnable longLivedEnding = () -> { };
    /**
     * Test hook: runs in {@link #spawn} once the long-lived process started, before the engine's lists hold it (where a
     * close that began meanwhile did not see it).
     */
    volatile Runnable spawnStarted = () -> { };
    /** Test hook: runs in {@link #prepare} after the start snapshot was judged, before srt makes the wrap. */
    volatile Runnable wrapping = () -> { };
    /** srt's placeholders of every live wrap (per-command sandboxes, long-lived processes, warm shells). */
    private final SrtMountPoints mounts;
    /**
     * For each sandboxed command or long-lived process now judged (by commandId): the other calls that ran at some
     * moment of its window. A protected file its scan finds changed may be theirs: the record says so.
     */
    private final Map<String, Set<Attribution>> overlap = new ConcurrentHashMap<>();

    NativeEngine(HostEnv env, HostTools tools, SrtRuntime.Resolution engine, Policy policy, Path setsid,
                 ViolationLog log) {
        this.env = env;
        this.tools = tools;
        this.engine = engine;
        this.policy = policy;
        this.setsid = setsid;
        this.log = log;
        this.mounts = new SrtMountPoints(policy.writableRoots(), policy.workspace().resolve(".mono-agent")
                .resolve("warm-stash"));
    }

    Policy policy() {
        return policy;
    }

    /** The protected-path snapshot: from the watch's index when it can be trusted, else the full walk. */
    ProtectedScan.Snapshot scan() {
        return withoutMountPoints(ProtectedScan.snapshot(policy, denyLiterals, tools.rg(), watch, mounts::excused));
    }

    private long watchMark() {
        ProtectedWatch w = watch;
        return w == null ? -1 : w.mark();
    }

    Path sessionTmp() {
        return sessionTmp;
    }

    /**
     * The protected-path watch, or null (macOS); tests take its repository trigger to time {@link #intervene} and read
     * its private sync dir.
     */
    ProtectedWatch watch() {
        return watch;
    }

    /** The per-command limits in force (null before {@link #start()}). */
    Limits limits() {
        return limits;
    }

    SrtBridge bridge() {
        return bridge;
    }

    List<Path> denyLiterals() {
        return denyLiterals;
    }

    boolean alive() {
        SrtBridge b = bridge;
        return b != null && b.alive() && init != null && init.clean();
    }

    /** Creates the session temp dir, starts the bridge and initialises srt with the compiled config. */
    SrtBridge.InitResult start() throws IOException {
        Path base = env.tmpRoot().resolve("mono-agent-" + HostTools.currentUid());
        SrtRuntime.mkdirsPrivate(base);
        sessionTmp = Files.createTempDirectory(base, "s-", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        // the state dir must exist as a directory before srt sees it: an absent literal deny becomes a read-only
        // /dev/null mount point *file* on the host for the command's duration, and the host could not write
        // violations or quarantine into it meanwhile
        Files.createDirectories(policy.workspace().resolve(".mono-agent"));
        Path bridgeTmp = SrtBridge.bridgeTmp(sessionTmp);
        Files.createDirectory(bridgeTmp, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        limits = limitsFactory.get();
        // our own listeners opened or closed while the engine runs reach the bridge's refusal list at once (the
        // bridge starts with the list in its environment; one that changed in between is sent right after)
        ownPortsSubscription = dev.monoagent.common.OwnPorts.subscribe(ports -> {
            SrtBridge b = bridge;
            if (b != null && b.alive()) {
                try {
                    b.ownPorts(ports, Duration.ofSeconds(5));
                } catch (IOException e) {
                    // the bridge is gone: noticed by alive()
                }
            }
        });
        bridge = SrtBridge.start(tools, engine, policy.workspace(), sessionTmp, env, setsid, this::onEngineEvent);
        bridge.ownPortsLater(dev.monoagent.common.OwnPorts.current());
        // the workspace facts and the config are gathered while Node starts and imports srt (≈ 190 ms here)
        Map<String, Object> config = compileConfig();
        bridge.awaitReady(Duration.ofSeconds(20));
        preparedGeneration = mounts.generation();
        init = bridge.init(config, Duration.ofSeconds(30));
        // macOS: the JDK's WatchService polls there (seconds per event), so each command's sync would stall; no watch
        // (a known difference, docs/sandbox-probes.md "macOS")
        watch = Platform.current() == Platform.MACOS ? null : ProtectedWatch.start(policy, () -> denyLiterals,
                Files.createTempDirectory(syncBase(base), "mono-agent-w-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))));
        if (watch != null) {
            watch.onRepository(p -> repositoryMayHaveAppeared());
            watch.onGuarded(p -> linkMayHaveChanged());
        }
        preparedLayout = scan().layout();
        return init;
    }

    /**
     * Where the watch's sync marker goes (renamed twice per command): the host's {@code /dev/shm} when there is one (a
     * tmpfs, where a rename costs microseconds; on a disk it can cost a millisecond), else {@code base}.
     * The marker dir is made there with a random name, private to this user.
     */
    private static Path syncBase(Path base) {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm, java.nio.file.LinkOption.NOFOLLOW_LINKS) && Files.isWritable(shm) ? shm : base;
    }

    /**
     * A workspace {@code .git} directory without {@code hooks} (made by {@code git init --template=}, or by a tool
     * that leaves it out) gets an empty one; this runs when srt is initialised, with no sandboxed process alive (a
     * long-lived one is ended first), and the {@code .git} checked not to be a link or another sandbox's placeholder.
     * The whole {@code .git} is denied, and srt adds {@code .git/hooks} for a {@code .git} directory: for an absent
     * path bubblewrap must create a mount point inside the read-only {@code .git}, which fails, and so did every command
     * in such a repository. Git makes this directory itself in a normal repository.
     */
    private void giveHooksDir() {
        if (Platform.current() == Platform.MACOS) {
            return;
        }
        Path git = policy.workspace().resolve(".git");
        if (!Files.isDirectory(git, java.nio.file.LinkOption.NOFOLLOW_LINKS) || mounts.excused(git)
                || Files.exists(git.resolve("hooks"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.createDirectory(git.resolve("hooks"));
        } catch (IOException ignored) {
            // made meanwhile, or not ours to change: the wrap reports what fails
        }
    }

    /** Gathers the workspace facts (I/O), then compiles the deny list and the srt config from them (pure). */
    private Map<String, Object> compileConfig() {
        giveHooksDir();
        WorkspaceFacts ws = WorkspaceFacts.scan(policy, tools.rg(), env.home());
        denyLiterals = literalsOf(ws);
        return (Platform.current() == Platform.MACOS
                ? SeatbeltPolicy.config(policy, denyLiterals, facts(), currentPorts(), ws)
                : PolicyCompiler.srtConfig(policy, denyLiterals, facts(), currentPorts(), ws)).toMap();
    }

    /** The deny literals for the workspace's facts now (what an initialise gives srt). */
    private List<Path> literalsOf(WorkspaceFacts facts) {
        return withLinkTargets(PolicyCompiler.denyLiterals(policy, facts), facts.found());
    }

    /**
     * {@code lits} and the target of each symlink among them and among the protected files {@code found} that leads to a
     * regular file the agent could write. srt denies a symlinked path's target only when it finds the link there at
     * wrap time: a command wrapped while another sandboxed process had the link replaced got the agent's file bound
     * instead, and once the guard put the link back it wrote the human's file through it ({@code LinkWrapWindowTest}).
     * Denied by name, the target is read-only in every wrap whatever stands at the link then.
     */
    private List<Path> withLinkTargets(List<Path> lits, Collection<Path> found) {
        Set<Path> out = new java.util.LinkedHashSet<>(lits);
        for (Path p : java.util.stream.Stream.concat(lits.stream(), found.stream()).toList()) {
            Path real = Files.isSymbolicLink(p) ? linkTarget(ProtectedScan.Key.read(p)) : null;
            if (real != null) {
                out.add(real);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The targets of the protected symlinks in {@code s} that {@code lits} do not name (links made or repointed since
     * the last initialise): srt denies a link's target only if it finds the link there when it wraps.
     */
    private List<Path> unnamedLinkTargets(ProtectedScan.Snapshot s, List<Path> lits) {
        List<Path> out = new ArrayList<>();
        for (ProtectedScan.Key k : s.files().values()) {
            // named already (the usual case, checked on every command's start): no file system access
            if (k.real() == null || lits.stream().anyMatch(Path.of(k.real())::startsWith)) {
                continue;
            }
            Path real = linkTarget(k);
            if (real != null) {
                out.add(real);
            }
        }
        return out;
    }

    /**
     * What a protected symlink's key leads to when the agent could write it, or null: a regular file, or a directory
     * strictly inside a writable root ({@code .mvn -> tools/mvn}: the host's mvn reads {@code jvm.config} through the
     * link). A link to a whole root ({@code .env.dir -> .}) is left alone: denying it would deny the root.
     */
    private Path linkTarget(ProtectedScan.Key k) {
        if (k == null || k.link() == null || k.real() == null) {
            return null;
        }
        Path real = Path.of(k.real());
        if (Files.isRegularFile(real, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return policy.agentWritable().stream().anyMatch(real::startsWith) ? real : null;
        }
        return Files.isDirectory(real, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                && policy.agentWritable().stream().anyMatch(r -> real.startsWith(r) && !real.equals(r)) ? real : null;
    }

    PolicyCompiler.EngineFacts facts() {
        List<Path> extras = new ArrayList<>();
        boolean mac = Platform.current() == Platform.MACOS;
        if (!mac) {
            extras.add(engine.applySeccomp().getParent());
        }
        extras.add(SrtBridge.bridgeTmp(sessionTmp));
        List<Path> pathDirs = new ArrayList<>();
        for (String d : env.pathEntries()) {
            pathDirs.add(Path.of(d));
        }
        extras.addAll(ReadScope.toolDirs(pathDirs, java.util.Arrays.asList(tools.node(), tools.bash(), tools.socat(),
                tools.rg()), env.home()));
        // version-manager roots behind PATH entries: readable, with their secrets denied by literal path
        List<Path> readable = new ArrayList<>(extras);
        readable.addAll(policy.readableRoots());
        Toolchains.Plan tc = Toolchains.plan(env, policy.agentWritable(), readable);
        extras.addAll(tc.roots());
        // a dir inside an opened root is already readable through it: each extra bind costs every command's wrap
        List<Path> roots = tc.roots();
        extras.removeIf(x -> roots.stream().anyMatch(r -> !r.equals(x) && x.normalize().startsWith(r)));
        List<Path> readDenied = new ArrayList<>(mac ? SeatbeltPolicy.readDenied(Path.of("/")) : ReadScope.readDenied());
        readDenied.addAll(tc.secrets());
        privateDirs = privateDirs(readDenied);
        readOnlyBinds = List.copyOf(extras);
        return new PolicyCompiler.EngineFacts(env.home(), sessionTmp, tools.bwrap(), tools.socat(), tools.rg(),
                mac ? null : engine.applySeccomp(), extras, readDenied);
    }

    private List<Integer> currentPorts() {
        if (policy.network() != NetworkMode.LOCALHOST) {
            return List.of();
        }
        Set<Integer> own = new HashSet<>(env.extraProtected());
        // this process's own listeners (the sign-in callback): never granted, whatever localhostPorts says
        own.addAll(dev.monoagent.common.OwnPorts.current());
        if (init != null) {
            own.add(init.proxyPort());
            own.add(init.socksPort());
        }
        List<Integer> listening = MacHost.listening(own);
        if (policy.localhostPorts().isEmpty()) {
            return listening;
        }
        // sandbox.network.localhostPorts narrows the grants to the listed ports (those listening now)
        return listening.stream().filter(policy.localhostPorts()::contains).toList();
    }

    /**
     * Snapshot of the protected paths before a command; re-initialises srt first (outside any read lock) when a
     * protected file appeared that the initialised deny list does not cover, so it is denied at the engine level too.
     */
    private ProtectedScan.Snapshot before() throws IOException {
        ProtectedScan.Snapshot before = scan();
        List<Path> lits = denyLiterals;
        String uncovered = uncovered(before, lits);
        if (uncovered != null) {
            uncovered += " appeared";
        } else {
            uncovered = replacedUnderLongLived(before);
        }
        if (uncovered != null && liveProcesses.stream().allMatch(SandboxProcess::stopped)) {
            // every command runs under the protected set current at its start: a long-lived process
            // started under the old set would keep writing where the new one denies, so it is ended (its owner says
            // so: NodeRepl reports the lost state) and srt re-initialised before this command is wrapped. Only when
            // each is stopped between evaluations: then the new paths are provably not its doing. One that is running
            // keeps running, and the command gets the new paths as per-command denies (prepare)
            if (!liveProcesses.isEmpty()) {
                endLongLived("the protected files changed while it ran (" + uncovered
                        + "), so it was ended to run under the new protected set");
            }
            reinit();
            before = scan();
        }
        Path unnamed = unnameable(before);
        if (unnamed != null) {
            // srt's configuration and the warm server's requests are text: srt would be told to protect another path
            // and this one would be writable (a command could write a human's sub\xff/.vscode/settings.json)
            throw new IOException("the protected path " + unnamed + " has a name that is not valid UTF-8 (shown with "
                    + "\uFFFD for its bytes): the sandbox engine is configured in text and cannot be told to protect it, "
                    + "so nothing runs while it is there; rename it, then run the command again");
        }
        ProtectedWatch w = watch;
        if (w != null) {
            // this command's links and those of every command still running: one that started while a command's
            // replacement stood took in the agent's file, and must not end the guard of the link
            Set<Path> guarded = new HashSet<>(ProtectedScan.guarded(policy.workspace(), before.files()));
            guarded.addAll(ProtectedScan.guarded(policy.workspace(), humanLinks()));
            w.guard(guarded);
        }
        return before;
    }

    /**
     * A path to protect now (a deny literal, or a protected file, link, link target or repository the scan found) whose
     * name does not survive the text it is given to srt and the warm server in (a name that is not valid UTF-8), or null.
     * Checked on every command's start: no file system access unless a link's key shows a name that text could not
     * carry.
     */
    Path unnameable(ProtectedScan.Snapshot s) {
        for (Collection<Path> c : List.of(denyLiterals, s.files().keySet(), s.repos())) {
            for (Path p : c) {
                if (!inText(p)) {
                    return p;
                }
            }
        }
        // a protected link's target is protected by name too (srt resolves it, in text). The key's own text was decoded
        // with U+FFFD for bytes that are not UTF-8, and resolving such text finds no target: only then is the link read
        // again here, by its bytes
        for (Map.Entry<Path, ProtectedScan.Key> e : s.files().entrySet()) {
            ProtectedScan.Key k = e.getValue();
            if (k.link() == null
                    || k.real() != null && k.real().indexOf('\uFFFD') < 0 && k.link().indexOf('\uFFFD') < 0) {
                continue;
            }
            try {
                Path text = Files.readSymbolicLink(e.getKey());
                if (!inText(text)) {
                    return e.getKey().resolveSibling(text);
                }
                Path real = e.getKey().toRealPath();
                if (!inText(real)) {
                    return real;
                }
            } catch (IOException | UnsupportedOperationException gone) {
                // no link there now, or it leads nowhere: nothing to name
            }
        }
        return null;
    }

    /** Whether {@code p} is the same path once written as text and read back (its name is valid UTF-8). */
    static boolean inText(Path p) {
        String t = p.toString();
        return t.indexOf('\uFFFD') < 0 || Path.of(t).equals(p);
    }

    /**
     * The protected symlinks the live commands started with, each as the newest start that saw it as a link: a command
     * that started while another's replacement stood saw the agent's file there, not the human's link
     * (judged from that command alone, the link would not be guarded while it ran). Reads only concurrent maps, so a
     * command's start does not wait on {@link #scanLock} for it (another command's end scan may hold it).
     */
    private Map<Path, ProtectedScan.Key> humanLinks() {
        List<Map.Entry<String, Live>> byStart = new ArrayList<>(live.entrySet());
        byStart.sort(java.util.Comparator.comparingLong(e -> judgedFrom(e).watchMark()));
        Map<Path, ProtectedScan.Key> out = new java.util.HashMap<>();
        long now = System.nanoTime();
        ending.values().removeIf(e -> now - e.since() > ENDING_MAX_NANOS);
        ending.values().forEach(e -> out.putAll(e.links()));
        for (Map.Entry<String, Live> e : byStart) {
            out.putAll(links(judgedFrom(e).before()));
        }
        return out;
    }

    /** The protected symlinks in {@code s}, with their keys. */
    private static Map<Path, ProtectedScan.Key> links(ProtectedScan.Snapshot s) {
        Map<Path, ProtectedScan.Key> out = new java.util.HashMap<>();
        s.files().forEach((f, k) -> {
            if (k.link() != null) {
                out.put(f, k);
            }
        });
        return out;
    }

    /**
     * The protected symlinks the engine put back (the human's, as a command started with it): a command whose start
     * saw such a path without its link (while another command's replacement stood, or in the moment between moving
     * that away and making the link again) must not take the link for a new file of its own at its end, and must get
     * the link's target denied (see {@link #linkTargets}).
     */
    private final Map<Path, ProtectedScan.Key> restoredLinks = new ConcurrentHashMap<>();

    /**
     * The targets (regular files in a writable root) of the human's protected symlinks — those live commands started
     * with and those the engine put back — where {@code before} does not hold that same link leading to that same
     * file. srt denies a symlinked
     * path's target only when the link stands at wrap time: a command wrapped while the link was gone or replaced got
     * a placeholder at the link's path and no deny on its target, and once the link was put back it wrote the human's
     * file through it (found in LinkGuardTest's flake; {@code LinkPutBackWindowTest}). Given as per-command denies.
     */
    List<String> linkTargets(ProtectedScan.Snapshot before) {
        if (live.isEmpty()) {
            // nothing sandboxed runs: a put-back link that is not there now was removed or changed by the human
            restoredLinks.entrySet().removeIf(e -> {
                ProtectedScan.Key now = before.files().get(e.getKey());
                return now == null || !e.getValue().link().equals(now.link());
            });
        }
        Map<Path, ProtectedScan.Key> known = new java.util.HashMap<>(restoredLinks);
        known.putAll(humanLinks());
        Set<String> out = new java.util.LinkedHashSet<>();
        known.forEach((path, k) -> {
            ProtectedScan.Key now = before.files().get(path);
            // the same link leading to the same file: a symlink on its way replaced (a directory or another link in a
            // hop's place) leads srt to the agent's file instead, and the human's stays writable
            if (now != null && k.link() != null && k.link().equals(now.link()) && k.real() != null
                    && k.real().equals(now.real())) {
                return;
            }
            Path real = linkTarget(k);
            if (real != null) {
                out.add(real.toString());
            }
        });
        return List.copyOf(out);
    }

    /**
     * Notes each human link {@code changes} put back or tried to (see {@link #restoredLinks}); {@code human}: their
     * keys. One that could not be made (another sandbox's placeholder stood at its path: that sandbox was wrapped while
     * the link was gone) is made by a later end scan once nothing stands there ({@link #owedLinks}).
     */
    private void noteRestored(List<ProtectedScan.Change> changes, Map<Path, ProtectedScan.Key> human) {
        for (ProtectedScan.Change c : changes) {
            ProtectedScan.Key k = human.get(c.path());
            if (c.link() != null && c.via() == null && k != null && c.link().equals(k.link())) {
                restoredLinks.put(c.path(), k);
            }
        }
    }

    /**
     * Makes each noted human link ({@link #restoredLinks}) whose path holds nothing now: a put-back that a placeholder
     * blocked (else the human's .env would be gone for good once that sandbox ended). Unrecorded: its
     * removal was recorded when it happened.
     */
    private void owedLinks() {
        Map<Path, ProtectedScan.Key> owed = new java.util.HashMap<>();
        restoredLinks.forEach((path, k) -> {
            if (ProtectedScan.Key.read(path) == null) {
                owed.put(path, k);
            }
        });
        if (!owed.isEmpty()) {
            ProtectedScan.restoreLinks(policy, owed, false);
        }
    }

    /**
     * A protected file that a live long-lived process was started over and that the host has since replaced (another
     * inode at the path: an editor's save renames a new file over it), or null. The bind srt made over the old one
     * went with it out of that process's mount namespace, so the process could write the new one (the
     * human's editor saves .env while the REPL lives): like a new protected file, it ends the process before its next
     * evaluation.
     */
    private String replacedUnderLongLived(ProtectedScan.Snapshot now) {
        for (Map<Path, Object> start : longLivedStart.values()) {
            for (Map.Entry<Path, Object> e : start.entrySet()) {
                ProtectedScan.Key k = now.files().get(e.getKey());
                if (k != null && !k.identity().equals(e.getValue())) {
                    return e.getKey() + " was replaced on the host";
                }
            }
        }
        return null;
    }

    /**
     * A protected file or repository the initialised deny list does not cover, or null. A repository directory that
     * holds nothing but srt's own mount points (a workspace with no {@code .git} while a sandboxed process lives) is
     * srt's doing, not a new repository.
     */
    private String uncovered(ProtectedScan.Snapshot s, List<Path> lits) {
        for (Path p : s.files().keySet()) {
            if (lits.stream().noneMatch(p::startsWith) && !srtMountPoint(p)) {
                return p.toString();
            }
        }
        // a protected symlink made or repointed since: its target is denied by name only after a re-initialise
        // (withLinkTargets); until then each wrap gets it by name (uncovered(before))
        List<Path> unnamed = unnamedLinkTargets(s, lits);
        if (!unnamed.isEmpty()) {
            return unnamed.get(0) + " (the target of a protected symlink)";
        }
        for (Path p : s.repos()) {
            if (lits.stream().noneMatch(p::startsWith) && !onlyMountPoints(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /**
     * srt's own mount point for one of its built-in dangerous names ({@code .claude/commands}, {@code .bashrc}, …): an
     * empty file or directory, there while a sandboxed process lives. Not a new protected file to re-initialise for
     * (an empty one holds nothing; a per-command deny still covers it, and srt binds its names in every new wrap).
     */
    private static boolean srtMountPoint(Path p) {
        String name = p.getFileName().toString();
        String two = p.getNameCount() >= 2 ? p.getName(p.getNameCount() - 2) + "/" + name : name;
        if (!ProtectedScan.SRT_DANGEROUS.contains(name) && !Policy.ENGINE_DANGEROUS_DIRS.contains(two)) {
            return false;
        }
        try {
            var a = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
            if (a.isRegularFile()) {
                return a.size() == 0;
            }
            if (a.isDirectory()) {
                try (var list = Files.list(p)) {
                    return list.findAny().isEmpty();
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Whether long-lived process {@code p} may run its next step: re-checks the protected files first (as before a
     * command) and, when one appeared that the deny list does not cover, ends every long-lived process and
     * re-initialises. Returns why {@code p} was ended, else null.
     */
    String refresh(SandboxProcess p) {
        try {
            before();
        } catch (IOException e) {
            p.end("the sandbox could not be re-initialised for the changed protected files: " + e.getMessage());
        }
        return p.endedBecause();
    }

    /**
     * Ends every long-lived process and waits (bounded) for its after-exit scan, and for any other end still under way
     * ({@link #awaitEnds}).
     */
    private void endLongLived(String why) {
        List.copyOf(liveProcesses).forEach(p -> p.end(why));
        awaitEnds();
    }

    /**
     * Waits until every long-lived process's end has finished — its wrap's cleanup, its end scan, what it quarantines
     * into the state dir — including one that began before (it left {@link #liveProcesses} then), under one 10 s
     * deadline for all of them: a process whose scan fails or hangs is dead already (its group was killed).
     */
    private void awaitEnds() {
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        for (SandboxProcess p : List.copyOf(unfinished)) {
            try {
                p.violations().get(Math.max(0, until - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                // its scan failed or hangs
            }
        }
    }

    /**
     * Gets a wrap for the next command — the one the bridge prepared after the last cleanup when the workspace layout
     * is unchanged since, else a fresh one — and the environment carrying the real script ({@code MONO_AGENT_CMD}).
     */
    Prepared prepare(List<String> argv, Attribution who, Map<String, String> extraEnv, ProtectedScan.Snapshot before,
                     boolean allowReuse) throws IOException {
        return prepare(argv, who, extraEnv, before, allowReuse, false);
    }

    /** {@code marked}: the script first writes a per-command random start marker to stderr (see {@link #run}). */
    Prepared prepare(List<String> argv, Attribution who, Map<String, String> extraEnv, ProtectedScan.Snapshot before,
                     boolean allowReuse, boolean marked) throws IOException {
        List<Integer> ports = currentPorts();
        grantedPorts = ports;
        List<String> domains = policy.network() == NetworkMode.LOCALHOST ? PolicyCompiler.allowedDomains(policy, ports)
                : null;
        List<String> extras = new ArrayList<>(longLived.get() > 0 ? uncovered(before) : List.of());
        extras.addAll(linkTargets(before));
        // another sandbox's .git placeholder (an empty directory) looks like a repository to srt's wrap: its entries
        // that would make it one are denied too (SrtMountPoints#REPOSITORY_ENTRIES)
        extras.addAll(mounts.repositoryEntriesOfPlaceholders());
        // the prepared wrap has none of these per-command denies, and fits only while no placeholder came, went or
        // moved since srt prepared it (the layout leaves placeholders out)
        boolean reuse = allowReuse && extras.isEmpty() && before.layout().equals(preparedLayout)
                && mounts.generation() == preparedGeneration;
        preparedLayout = null;
        // counted before srt decides which denied paths exist (at wrap time): a placeholder on the way to one is held
        // from now on, so no other command's end moves it away before this sandbox's bubblewrap binds it (else
        // bubblewrap fails with "Can't find source path .git" when a warm command ends meanwhile)
        String pending = "pending-" + UUID.randomUUID();
        mounts.open(pending, deniedPaths(extras));
        wrapping.run();
        SrtBridge.Wrapped w;
        try {
            w = bridge.wrap(reuse, domains, extras, Duration.ofSeconds(30));
        } catch (IOException | RuntimeException e) {
            mounts.close(pending);
            throw e;
        }
        mounts.rekey(pending, w.commandId());
        commands.put(w.commandId(), who);
        Map<String, String> e = sandboxEnv(extraEnv);
        String marker = marked ? "\u0001mono-agent-started-" + UUID.randomUUID() + "\u0001" : null;
        HostPorts.Families families = ports.isEmpty() || Platform.current() == Platform.MACOS
                ? HostPorts.Families.NONE : HostPorts.families(Path.of("/proc/net/tcp"));
        e.put("MONO_AGENT_CMD", Platform.current() == Platform.MACOS ? MacHost.command(argv, marker)
                : CommandScript.build(argv, ports, families, tools.socat().toString(), marker));
        return new Prepared(w.commandId(), List.of(tools.bash().toString(), "-c", w.wrapped()), e, before, who,
                w.prepared(), marker, watchMark(), List.copyOf(extras));
    }

    /** Every path srt is given to deny on a wrap now: our literals, the per-command extras, srt's own at the cwd. */
    private List<Path> deniedPaths(List<String> extras) {
        List<Path> denied = new ArrayList<>(denyLiterals);
        extras.forEach(x -> denied.add(Path.of(x)));
        denied.addAll(SrtMountPoints.srtCwdDenies(policy.workspace()));
        return denied;
    }

    /**
     * Protected paths in {@code before} that the initialised deny list does not cover (a hook file, a repository, an
     * {@code .env.*} or one of srt's dangerous names the human created meanwhile), as the outermost protected path
     * holding each; a symlink only when its target is a regular file (srt denies the target). Normally a re-initialise adds them; while a
     * long-lived process runs it cannot, so each command gets them as per-command denies instead.
     */
    List<String> uncovered(ProtectedScan.Snapshot before) {
        List<Path> lits = denyLiterals;
        Set<String> out = new java.util.LinkedHashSet<>();
        List<Path> all = new ArrayList<>(before.files().keySet());
        all.addAll(before.repos());
        Path ws = policy.workspace();
        for (Path f : all) {
            Path root = policy.rootOf(f);
            if (root == null || lits.stream().anyMatch(f::startsWith)) {
                continue;
            }
            Path acc = root;
            for (Path part : root.relativize(f)) {
                acc = acc.resolve(part);
                if (policy.namedProtection(root.relativize(acc)) != null || policy.protectedGlob(acc) != null) {
                    break;
                }
            }
            // a symlinked one goes too when its target is a regular file: srt denies the target, as a re-initialise
            // would (else a `.env.custom -> config/prod.env` made beside a running process is written through). Not
            // a dangling one (srt would make a placeholder at its target), nor one to a directory: srt would bind
            // that read-only whole (`.env.dir -> .` would make the workspace read-only, and a per-command wrap
            // fail on the placeholders inside it)
            if (Files.isSymbolicLink(acc) ? Files.isRegularFile(acc)
                    : Files.exists(acc, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                out.add(acc.toString());
            } else if (Files.isSymbolicLink(acc)) {
                // a symlinked protected directory (.husky -> tools/husky): its target itself, when
                // that is a directory inside the workspace holding nothing srt would have to make a placeholder in
                Path target = denyableDirTarget(acc, ws, lits);
                if (target != null) {
                    out.add(target.toString());
                }
            }
        }
        // the target of each protected symlink no literal names (made or repointed since the last initialise, which a
        // running long-lived process put off), by name: another sandboxed process may have replaced the link by the
        // time srt wraps (LinkWrapWindowTest)
        unnamedLinkTargets(before, lits).forEach(real -> out.add(real.toString()));
        return List.copyOf(out);
    }

    /**
     * The real directory a symlinked protected name leads to, when srt can bind it read-only whole without harm: inside
     * the workspace, neither the workspace nor above it, and holding no denied path (srt would have to make a
     * placeholder inside the read-only bind: "Can't create file") and no {@code .git}. Else null (not denied).
     */
    private static Path denyableDirTarget(Path link, Path ws, List<Path> lits) {
        try {
            Path t = link.toRealPath();
            if (!Files.isDirectory(t) || !t.startsWith(ws) || ws.startsWith(t)
                    || t.startsWith(ws.resolve(".mono-agent")) || lits.stream().anyMatch(l -> l.startsWith(t))) {
                return null;
            }
            // bounded: a target too large to look through is not bound (left to the after-command scan)
            try (var w = Files.walk(t, 8)) {
                long[] n = {0};
                boolean clean = w.takeWhile(x -> ++n[0] <= 20_000).noneMatch(x -> x.getFileName() != null
                        && x.getFileName().toString().equals(".git"));
                return clean && n[0] <= 20_000 ? t : null;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Test hook: runs as a re-initialisation begins, after it waited for the ends under way. */
    volatile Runnable reiniting = () -> { };

    private void reinit() throws IOException {
        // whoever re-initialises (a command's start, a warm shell's start): a long-lived process's end under way must
        // not clean up its wrap beside srt's re-initialise
        awaitEnds();
        reiniting.run();
        lock.writeLock().lock();
        try {
            closeShells();
            generation++;
            warmOff = null;
            preparedGeneration = mounts.generation();
            init = bridge.init(compileConfig(), Duration.ofSeconds(30));
            preparedLayout = null;
            if (!init.clean()) {
                throw new IOException("re-initialise failed: " + init.problem());
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The sandboxed environment ({@link SandboxEnv}): the session temp dir, our bash. */
    Map<String, String> sandboxEnv(Map<String, String> extra) {
        // .git is read-only inside: git status/diff would otherwise try (and fail) to refresh the index each time
        Map<String, String> withGit = new LinkedHashMap<>();
        withGit.put("GIT_OPTIONAL_LOCKS", "0");
        withGit.putAll(extra);
        return SandboxEnv.of(env, sessionTmp.toString(), tools.bash().toString(), withGit);
    }

    /** Runs a command to completion (bounded), then cleans up, scans and collects violations. */
    ExecOutcome.Completed run(List<String> argv, Attribution who, Map<String, String> extraEnv, Path workdir,
                              String stdin, Duration timeout, long maxBytes) throws IOException {
        return run(argv, who, extraEnv, workdir, stdin, timeout, maxBytes, OutputListener.NONE);
    }

    /**
     * As above, streaming output to {@code live} while the command runs (stderr only once it provably started). On
     * the run's warm shell when there is one to be had, else (and on any doubt before the command started) on a
     * fresh per-command sandbox — never on the host.
     */
    ExecOutcome.Completed run(List<String> argv, Attribution who, Map<String, String> extraEnv, Path workdir,
                              String stdin, Duration timeout, long maxBytes, OutputListener live) throws IOException {
        if (warm && warmOff == null) {
            ExecOutcome.Completed c = runWarm(argv, who, extraEnv, workdir, stdin, timeout, maxBytes, live);
            if (c != null) {
                return c;
            }
        }
        return runCold(argv, who, extraEnv, workdir, stdin, timeout, maxBytes, live);
    }

    /** Warm shells alive now (their srt mount points are in the workspace while they live). */
    int warmShellsAlive() {
        return shellsByWrap.size();
    }

    /** The run's warm shell now, or null (tests: its control group slot). */
    WarmShell warmShell(String runId) {
        synchronized (shells) {
            return shells.get(runId == null ? "" : runId);
        }
    }

    /** Why commands do not use a warm shell here, or null when they do. */
    String warmState() {
        return !warm ? WARM_OFF : warmOff != null ? "unavailable, per-command sandboxes: "
                + warmOff : "on";
    }

    /**
     * One command on the run's warm shell: the same snapshot before, scan and violation collection as
     * {@link #runCold}; null when it did not run there (no shell to be had, or the shell failed before starting it).
     */
    private ExecOutcome.Completed runWarm(List<String> argv, Attribution who, Map<String, String> extraEnv,
                                          Path workdir, String stdin, Duration timeout, long maxBytes,
                                          OutputListener live) throws IOException {
        // the layout is compared with the one the shell's mounts were made for: both from a synced index (the scan
        // syncs the watch first)
        ProtectedScan.Snapshot before = before();
        if (!linkTargets(before).isEmpty()) {
            // a human link's target must be denied for this command alone (linkTargets): a fresh sandbox's wrap gets it
            return null;
        }
        List<Integer> ports = currentPorts();
        String key = who.runId() == null ? "" : who.runId();
        boolean[] started = {false};
        WarmShell shell = acquireShell(key, ports, before, started);
        if (shell == null) {
            return null;
        }
        String id = "ma-warm-" + UUID.randomUUID();
        WarmShell.Outcome o;
        Prepared prep;
        boolean stale = false;
        try {
            if (started[0]) {
                // the shell's mount points (srt's denies for absent paths) appeared after the snapshot above; the
                // layout seen now is the one its mounts were made for (the watch's index must have seen them too)
                syncWatch();
                before = scan();
                // unless a protected path came meanwhile that its wrap was not given (saved while it started, after
                // the snapshot its denies came from; or a long-lived process ended in between, so none were given):
                // the shell would keep it writable for the rest of the run. It is dropped, and this
                // command goes to a fresh sandbox, whose start judges the new path as any command's does
                List<String> given = shell.denied();
                // srt's own mount points (another live sandbox's empty .claude/commands, …) are no new paths
                List<String> missed = uncovered(before).stream().filter(x -> !given.contains(x)
                        && !srtMountPoint(Path.of(x))).toList();
                if (!missed.isEmpty()) {
                    stale = true;
                    return null;
                }
                shell.layout(before.layout());
            }
            lock.readLock().lock();
            try {
                prep = new Prepared(id, argv, Map.of(), before, who, false, null, watchMark(), shell.denied());
                commands.put(id, who);
                grantedPorts = shell.ports();
                running.add(id);
                // srt's placeholders are made for this command alone, bound in the shell before it starts
                // (SrtMountPoints#openWarm) and removed from the host once it is swept and scanned
                List<SrtMountPoints.Mark> marks = mounts.openWarm(id, deniedPaths(List.of()));
                // like a per-command sandbox, the command is stopped (with its shell) when a repository appears
                // while it runs (intervene)
                this.live.put(id, new Live(shell.slot(), new java.util.concurrent.atomic.AtomicReference<>(
                        shell.process()), who, prep, false));
                began(id, who, true);
                try {
                    o = shell.run(id, argv, sandboxEnv(extraEnv), workdir, stdin, timeout, maxBytes, live, marks);
                    // srt's feed (refused writes) and the proxy's connects to granted host ports reach us through the
                    // bridge: a round trip lets those of this command arrive while it still counts as running and
                    // before its result is put together (a per-command sandbox's cleanup call does the same)
                    SrtBridge.Pending ping = null;
                    try {
                        ping = bridge.pingLater();
                    } catch (IOException ignored) {
                        // the bridge is gone: noticed by alive()
                    }
                    if (o instanceof WarmShell.Outcome.Ran ran && ran.doubt() == null) {
                        // meanwhile: nothing of the command runs any more, so its placeholders leave the workspace
                        // now (into the stash, their binds in the shell with them): the scan below and a host check
                        // or `git status` right after the call see none
                        mounts.close(id);
                    }
                    try {
                        if (ping != null) {
                            ping.await(Duration.ofSeconds(10));
                        }
                    } catch (IOException ignored) {
                        // the bridge is gone: noticed by alive()
                    }
                } finally {
                    untrack(id);
                    running.remove(id);
                }
            } finally {
                lock.readLock().unlock();
            }
        } finally {
            shell.release();
            if (stale) {
                dropShell(shell);
            }
        }
        if (o instanceof WarmShell.Outcome.NotRun nr) {
            commands.remove(id);
            overlap.remove(id);
            ending.remove(id);
            perCommand.remove(id);
            // its placeholders leave the host before the shell's wrap is cleaned up (after which the bridge prepares
            // the next wrap, and would take them for paths that exist)
            mounts.close(id);
            dropShell(shell);
            return null;
        }
        WarmShell.Outcome.Ran ran = (WarmShell.Outcome.Ran) o;
        ProcessRunner.Result r = ran.result();
        List<Violation> vs;
        try {
            vs = new ArrayList<>(finish(prep, r.err(), r.exitCode()));
        } finally {
            if (ran.doubt() != null) {
                // killed already (nothing of it runs): its placeholders go first, then its wrap (see NotRun above)
                mounts.close(id);
                dropShell(shell);
            }
        }
        if (ran.doubt() != null) {
            // the shell is dead already (killed before the scan above); later commands get a fresh one
            Violation v = new Violation(Instant.now(), Tier.DETECTED, Kind.OTHER, who.runId(), who.callId(),
                    who.tool(), who.command(), null, "the run's warm shell was stopped after this command: "
                    + ran.doubt() + "; the next command gets a fresh sandbox");
            log.record(v);
            vs.add(v);
        }
        return new ExecOutcome.Completed(r.exitCode(), r.signal(), r.out(), r.err(), r.truncated(), r.timedOut(), vs,
                r.elapsedMillis(), dev.monoagent.common.Effective.NATIVE, takeAllowed(id));
    }

    /**
     * The run's warm shell, started (lazily) when there is none or the one there is stale — made for an older deny
     * set, other granted ports, another protected layout, or doubted. Null when it is busy with another command of the
     * run, another command of the run is starting it, or it cannot start.
     *
     * <p>The layout matters even when the deny set is unchanged: srt's mounts are made at wrap time, over the paths as
     * they were then. A protected path the host deletes (a {@code .git} removed and made again) takes the bind over it
     * out of the shell's mount namespace, so the new one would be writable there; a fresh wrap binds it again.
     */
    private WarmShell acquireShell(String key, List<Integer> ports, ProtectedScan.Snapshot before,
                                   boolean[] started) {
        String layout = before.layout();
        WarmShell stale = null;
        synchronized (shells) {
            WarmShell s = shells.get(key);
            if (s != null && (!s.usable() || s.generation() != generation || !s.ports().equals(ports)
                    || !layout.equals(s.layout()))) {
                shells.remove(key);
                stale = s;
                s = null;
            }
            if (s != null) {
                // null when it is busy with another command of the run: this one runs on a fresh sandbox
                return s.tryAcquire() ? s : null;
            }
            // one shell start per run at a time; a second command of the run meanwhile goes to a fresh sandbox (two
            // starts raced, and the later shell took the run's slot and closed the first while it ran a command)
            if (!startingShells.add(key)) {
                return null;
            }
        }
        try {
            return startShellFor(key, ports, before, stale, started);
        } finally {
            startingShells.remove(key);
        }
    }

    /** {@link #acquireShell}'s start, by the one command of the run that claimed it. */
    private WarmShell startShellFor(String key, List<Integer> ports, ProtectedScan.Snapshot before, WarmShell stale,
                                    boolean[] started) {
        if (stale != null) {
            // a re-initialise needs every command out of the way (the write lock); the deny list may be out of date
            // for the layout now: a repository deleted on the host keeps its .git/hooks literal, whose mount point (a
            // file in the host's new .git) would last as long as the new shell does
            lock.writeLock().lock();
            try {
                closeShell(stale);
                List<Path> fresh = literalsOf(WorkspaceFacts.scan(policy, tools.rg(), env.home()));
                // as before() decides: a long-lived process that runs keeps running under the set it started with
                // (ending it judged the human's new files as its doing and quarantined them), and the new shell's
                // wrap gets the new paths as per-wrap denies (prepare); one stopped between evaluations is ended
                if (!fresh.equals(denyLiterals) && liveProcesses.stream().allMatch(SandboxProcess::stopped)) {
                    if (!liveProcesses.isEmpty()) {
                        endLongLived("the protected layout changed while it ran, so it was ended to run under the "
                                + "new protected set");
                    }
                    reinit();
                }
            } catch (IOException e) {
                return null; // re-initialise failed: the per-command path reports it
            } finally {
                lock.writeLock().unlock();
            }
        }
        // starting one beside running commands: the placeholders srt makes for it are placed before bubblewrap
        // creates them (SrtMountPoints), so their scans leave them out, and it holds none once it is up
        lock.readLock().lock();
        try {
            WarmShell s = startShell(key, ports, before);
            if (s == null) {
                return null;
            }
            List<WarmShell> evicted = new ArrayList<>();
            synchronized (shells) {
                WarmShell other = shells.put(key, s);
                // none: a run's shell is started by one command at a time (startingShells), after the old one left
                if (other != null) {
                    evicted.add(other);
                }
                for (var it = shells.entrySet().iterator(); shells.size() > MAX_SHELLS && it.hasNext(); ) {
                    WarmShell old = it.next().getValue();
                    if (old != s && old.tryAcquire()) {
                        it.remove();
                        evicted.add(old);
                    }
                }
                s.tryAcquire();
            }
            evicted.forEach(this::closeShell);
            started[0] = true;
            return s;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * A program the warm server runs with its namespace's capabilities, by absolute path: one that nothing sandboxed
     * can replace — not in a writable root, nor in what is a private writable tmpfs inside the sandbox (the home,
     * {@code /tmp}, {@code /var/tmp}, {@code /dev/shm}, {@code /run}), nor relative.
     */
    private Path insideTool(String name) {
        List<Path> untrusted = new ArrayList<>(policy.agentWritable());
        untrusted.add(env.home());
        for (String d : List.of("/tmp", "/var/tmp", "/dev/shm", "/run")) {
            untrusted.add(Path.of(d));
        }
        return env.which(name, untrusted);
    }

    /** Starts a warm shell: the server is the command srt wraps, in a control group slot of its own. */
    private WarmShell startShell(String key, List<Integer> ports, ProtectedScan.Snapshot before) {
        Path unshare = insideTool("unshare");
        if (unshare == null) {
            warmOff = "unshare (util-linux) not found on PATH outside what the sandbox can write";
            return null;
        }
        Path perl = insideTool("perl");
        if (perl == null) {
            warmOff = "perl not found on PATH outside what the sandbox can write (the warm shell binds its "
                    + "placeholders and starts its commands with perl)";
            return null;
        }
        // the bridge's prepared wrap first; if the shell does not start on it, once more on a fresh wrap: srt decides at
        // wrap time which denied paths exist, and one prepared while another command's placeholders were on the host
        // names paths that are gone by now (bubblewrap: "Can't find source path")
        for (boolean reuse : new boolean[] {true, false}) {
            Limits.Slot slot = null;
            Process p = null;
            Prepared prep = null;
            try {
                Map<String, String> launched = new LinkedHashMap<>();
                launched.put("NODE_OPTIONS", "");
                launched.put("NODE_NO_WARNINGS", "1");
                launched.put("MONO_AGENT_PERL", perl.toString());
                launched.put("MONO_AGENT_IDS", Files.getAttribute(Path.of("/proc/self"), "unix:uid") + ":"
                        + Files.getAttribute(Path.of("/proc/self"), "unix:gid"));
                Map<String, String> own = sandboxEnv(launched);
                launched.put("MONO_AGENT_OWN", new com.fasterxml.jackson.databind.ObjectMapper()
                        .writeValueAsString(own));
                Attribution who = new Attribution(key.isEmpty() ? null : key, null, "warm-shell", "warm shell");
                // the server is root of a user namespace of its own, owning the mount namespace its commands run in
                prep = prepare(List.of(unshare.toString(), "--user", "--map-root-user", "--mount", "--propagation",
                        "private", "--", tools.node().toString(), "--no-warnings", "-e", WarmShell.script()), who,
                        launched, before, reuse);
                warmWraps.add(prep.commandId());
                slot = limits.acquire();
                shellStarting.run();
                p = ProcessRunner.spawn(setsid, slot.wrap(tools.bash(), prep.argv()), prep.env(), policy.workspace());
                WarmShell s = WarmShell.handshake(p, slot, prep.commandId(), ports, generation, prep.extras(),
                        Duration.ofSeconds(20));
                shellsByWrap.put(prep.commandId(), s);
                mounts.holdNone(prep.commandId());
                return s;
            } catch (IOException | RuntimeException e) {
                if (p != null) {
                    ProcessRunner.killGroup(p, "KILL");
                }
                if (slot != null) {
                    slot.release();
                }
                if (prep != null) {
                    try {
                        bridge.discard();
                    } catch (IOException ignored) {
                        // bridge gone: noticed by the next alive() check
                    }
                    cleanupWrap(prep.commandId());
                }
                if (prep == null || !prep.reused()) {
                    // until the next initialise: commands go to per-command sandboxes, which retry a set-up failure
                    warmOff = e.getMessage();
                    return null;
                }
            }
        }
        return null;
    }

    /** Takes a doubted or stale shell out of use and stops it. */
    private void dropShell(WarmShell s) {
        boolean mine;
        synchronized (shells) {
            mine = shells.values().remove(s);
        }
        if (mine || shellsByWrap.containsKey(s.wrapId())) {
            closeShell(s); // its placeholders are placed and held per command: other commands may go on meanwhile
        }
    }

    private void closeShell(WarmShell s) {
        if (shellsByWrap.remove(s.wrapId()) == null) {
            return;
        }
        s.close();
        cleanupWrap(s.wrapId());
    }

    /**
     * srt's cleanup for a wrap whose sandbox is gone (or never started); from then on its placeholders no longer
     * count, and when it was the last live one the placeholders still on the host are removed ({@link SrtMountPoints}).
     * The bridge drops its prepared wrap when no handed-out one is outstanding, so srt's own counter reaches zero too
     * (it used to hold one count, which kept an empty {@code .git} on the host that every later wrap failed on).
     */
    private void cleanupWrap(String commandId) {
        try {
            preparedGeneration = mounts.generation();
            bridge.cleanup(!closing);
        } catch (IOException ignored) {
            // the bridge is gone (its exit removed srt's mount points; ours are removed below); noticed by alive()
        } finally {
            mounts.close(commandId);
        }
    }

    /** Stops every warm shell (before a re-initialise and at close). */
    private void closeShells() {
        List<WarmShell> all;
        synchronized (shells) {
            all = new ArrayList<>(shells.values());
            shells.clear();
        }
        all.forEach(this::closeShell);
    }

    /** The per-command sandbox: a fresh srt wrap for this command alone. */
    private ExecOutcome.Completed runCold(List<String> argv, Attribution who, Map<String, String> extraEnv,
                                          Path workdir, String stdin, Duration timeout, long maxBytes,
                                          OutputListener live) throws IOException {
        ProtectedScan.Snapshot before = before();
        lock.readLock().lock();
        Prepared prep;
        ProcessRunner.Result r;
        Limits.Slot slot = limits.acquire();
        String firstId = null;
        try {
            prep = prepare(argv, who, extraEnv, before, true, true);
            firstId = prep.commandId();
            running.add(firstId);
            r = runOnce(prep, slot, workdir, stdin, timeout, maxBytes, live);
            untrack(prep.commandId());
            boolean started = startedMarker(r, prep.startMarker());
            r = stripMarker(r, prep.startMarker());
            if (!started && bwrapSetupFailed(r)) {
                // the wrap no longer fits the filesystem (bwrap refused to set up, nothing ran — the start marker is
                // absent): wrap fresh once. A prepared wrap goes stale when the layout changed after it was made; a
                // fresh one was seen to as well (bwrap "Can't create file at <ws>/.git/hooks: Read-only file system"
                // right after a repository appeared), so either kind gets one fresh retry
                Prepared failed = prep;
                overlap.remove(failed.commandId()); // nothing of it ran (no start marker)
                ending.remove(failed.commandId());
                prep = prepare(argv, who, extraEnv, rebased.getOrDefault(failed.commandId(), failed).before(), false,
                        true);
                rebased.remove(failed.commandId());
                running.add(prep.commandId());
                r = stripMarker(runOnce(prep, slot, workdir, stdin, timeout, maxBytes, live), prep.startMarker());
                untrack(prep.commandId());
                running.remove(prep.commandId());
            }
        } finally {
            if (firstId != null) {
                running.remove(firstId);
                untrack(firstId);
            }
            // nothing the command started may run on (or write) past this point: the scan below sees its final state
            slot.release();
            lock.readLock().unlock();
        }
        List<Violation> vs = finish(prep, r.err(), r.exitCode());
        return new ExecOutcome.Completed(r.exitCode(), r.signal(), r.out(), r.err(), r.truncated(), r.timedOut(), vs,
                r.elapsedMillis(), dev.monoagent.common.Effective.NATIVE, takeAllowed(firstId, prep.commandId()));
    }

    private ProcessRunner.Result runOnce(Prepared prep, Limits.Slot slot, Path workdir, String stdin, Duration timeout,
                                         long maxBytes, OutputListener live) throws IOException {
        java.util.concurrent.atomic.AtomicReference<Process> proc = new java.util.concurrent.atomic.AtomicReference<>();
        this.live.put(prep.commandId(), new Live(slot, proc, prep.who(), prep, false));
        began(prep.commandId(), prep.who(), true);
        try {
            return ProcessRunner.run(setsid, slot.wrap(tools.bash(), prep.argv()), prep.env(), workdir, stdin, timeout,
                    maxBytes, afterMarker(prep.startMarker(), live), proc::set);
        } finally {
            cleanupWrap(prep.commandId());
        }
    }

    /**
     * The live view of a command's output: stdout as it comes (bwrap's own setup failure prints none), stderr only
     * after the random start marker (before it, stderr is the engine's; a wrap that failed to set up is retried and its
     * text must not reach the user), without the marker itself.
     */
    static OutputListener afterMarker(String marker, OutputListener live) {
        if (live == OutputListener.NONE || marker == null) {
            return live;
        }
        StringBuilder held = new StringBuilder();
        boolean[] seen = {false};
        return (stderr, text) -> {
            if (!stderr) {
                live.output(false, text);
                return;
            }
            synchronized (held) {
                if (seen[0]) {
                    live.output(true, text);
                    return;
                }
                held.append(text);
                int at = held.indexOf(marker);
                if (at >= 0) {
                    seen[0] = true;
                    String rest = held.substring(at + marker.length());
                    held.setLength(0);
                    if (!rest.isEmpty()) {
                        live.output(true, rest);
                    }
                }
            }
        };
    }

    /**
     * Whether the script inside the sandbox started: its first act is writing the random marker to stderr, before
     * the command runs, so no command output can forge its absence. Without it nothing of the command ran.
     */
    static boolean startedMarker(ProcessRunner.Result r, String marker) {
        return marker != null && indexOf(r.stderr(), marker.getBytes(java.nio.charset.StandardCharsets.UTF_8)) >= 0;
    }

    /** The result without the start marker in its stderr (the caller never sees it). */
    static ProcessRunner.Result stripMarker(ProcessRunner.Result r, String marker) {
        if (marker == null) {
            return r;
        }
        byte[] m = marker.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int at = indexOf(r.stderr(), m);
        if (at < 0) {
            return r;
        }
        byte[] err = new byte[r.stderr().length - m.length];
        System.arraycopy(r.stderr(), 0, err, 0, at);
        System.arraycopy(r.stderr(), at + m.length, err, at, err.length - at);
        return new ProcessRunner.Result(r.exitCode(), r.signal(), r.stdout(), err, r.truncated(), r.timedOut(),
                r.elapsedMillis());
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** bwrap's own setup errors: exit 1, only a {@code bwrap:} line on stderr, no output, fast. */
    static boolean bwrapSetupFailed(ProcessRunner.Result r) {
        return r.exitCode() == 1 && r.stdout().length == 0 && r.err().startsWith("bwrap: ")
                && r.err().strip().lines().count() == 1 && r.elapsedMillis() < 1000;
    }

    /** Spawns a long-lived sandboxed process; {@code onExit} runs cleanup and the scan. */
    SandboxProcess spawn(List<String> argv, Attribution who, Map<String, String> extraEnv, Path workdir)
            throws IOException {
        if (closing) {
            throw new IOException("the sandbox is closing");
        }
        Prepared prep = prepare(argv, who, extraEnv, before(), true);
        Process p;
        Limits.Slot slot;
        try {
            slot = limits.acquire();
        } catch (IOException e) {
            cleanupWrap(prep.commandId());
            throw e;
        }
        try {
            p = ProcessRunner.spawn(setsid, slot.wrap(tools.bash(), prep.argv()), prep.env(), workdir);
        } catch (IOException e) {
            slot.release();
            cleanupWrap(prep.commandId());
            throw e;
        }
        java.util.concurrent.atomic.AtomicReference<Prepared> seen = new java.util.concurrent.atomic.AtomicReference<>(
                prep);
        longLived.incrementAndGet();
        Map<Path, Object> startKeys = new java.util.HashMap<>();
        prep.before().files().forEach((f, k) -> startKeys.put(f, k.identity()));
        longLivedStart.put(prep.commandId(), startKeys);
        running.add(prep.commandId());
        live.put(prep.commandId(), new Live(slot, new java.util.concurrent.atomic.AtomicReference<>(p), prep.who(),
                prep, true));
        began(prep.commandId(), prep.who(), true);
        SandboxProcess[] self = new SandboxProcess[1];
        SandboxProcess sp = new SandboxProcess(p, () -> {
            if (self[0] != null) {
                liveProcesses.remove(self[0]);
            }
            longLivedEnding.run();
            untrack(prep.commandId());
            Prepared re = rebased.remove(prep.commandId());
            if (re != null) {
                seen.set(re);
            }
            running.remove(prep.commandId());
            allowedPerCommand.remove(prep.commandId()); // published as events as they happened
            recordPending(prep.commandId(), prep.who());
            slot.release();
            longLived.decrementAndGet();
            longLivedStart.remove(prep.commandId());
            cleanupWrap(prep.commandId());
            // what earlier checkpoints handled is not reported again
            return finish(seen.get(), "", 0);
        }, callId -> {
            synchronized (scanLock) {
                Prepared re = rebased.remove(prep.commandId());
                if (re != null) {
                    seen.set(re);
                }
                Attribution at = new Attribution(prep.who().runId(), callId, prep.who().tool(), prep.who().command());
                List<Violation> vs = new ArrayList<>(recordPending(prep.commandId(), at));
                vs.addAll(checkpoint(prep.who(), callId, seen, slot, p));
                Live l = live.get(prep.commandId());
                if (l != null) {
                    live.put(prep.commandId(), new Live(l.slot(), l.process(), l.who(), seen.get(), true));
                }
                return vs;
            }
        }, () -> {
            // never while an intervention has the tree: it thaws what it froze itself
            synchronized (scanLock) {
                slot.thaw();
                began(prep.commandId(), prep.who(), false);
            }
        }, sp0 -> refresh(sp0));
        self[0] = sp;
        spawnStarted.run();
        unfinished.add(sp);
        sp.violations().whenComplete((v, e) -> unfinished.remove(sp));
        sp.rebaseWhileFrozen(() -> {
            synchronized (scanLock) {
                syncWatch();
                Prepared last = seen.get();
                seen.set(last.since(scan(), watchMark()));
            }
        });
        liveProcesses.add(sp);
        if (!p.isAlive()) {
            liveProcesses.remove(sp);
        }
        if (closing) {
            // close began while this one started, and may have taken its lists before it was in them: it ends now,
            // and close waits for its end (awaitEnds) if it has not passed that wait yet
            sp.end("the sandbox was closed");
        }
        return sp;
    }

    /**
     * Between two evaluations of a long-lived process: freeze it (verified), then scan and handle what changed since
     * the last checkpoint like after a command (quarantine, repositories neutralised), attributed to {@code callId}.
     * A freeze that cannot be verified ends the process: it must never run unobserved after its scan.
     */
    private List<Violation> checkpoint(Attribution who, String callId,
                                       java.util.concurrent.atomic.AtomicReference<Prepared> seen,
                                       Limits.Slot slot, Process p) {
        List<Violation> out = new ArrayList<>();
        Attribution at = new Attribution(who.runId(), callId, who.tool(), who.command());
        if (slot.freeze(p.toHandle()) instanceof Freezer.Result.Failed f) {
            ProcessRunner.killGroup(p, "KILL");
            slot.thaw();
            Violation v = new Violation(Instant.now(), Tier.DETECTED, Kind.OTHER, at.runId(), callId, at.tool(),
                    at.command(), null, "the process could not be stopped between evaluations (" + f.why()
                    + "): it was killed so that nothing runs after the scan");
            log.record(v);
            out.add(v);
            return out;
        }
        Prepared last = seen.get();
        syncWatch();
        long mark = watchMark();
        ProtectedScan.Snapshot now = scan();
        List<Violation> found = scanResult(last.commandId(), at, last.before(), now, last.watchMark(),
                " during the evaluation");
        out.addAll(found);
        seen.set(last.since(found.isEmpty() ? now : scan(), mark));
        return out;
    }

    /**
     * While a sandboxed process runs, srt's placeholders for absent denied paths are on the host: in a workspace with
     * no {@code .git}, a {@code .git} directory holding only the ones for {@code .git/config}, {@code .git/hooks} and
     * friends. Such an entry is not the sandbox's doing, so every snapshot describes it as absent (snapshots taken
     * while different sandboxes live then agree); anything else in it (a planted {@code HEAD}) still counts.
     */
    private ProtectedScan.Snapshot withoutMountPoints(ProtectedScan.Snapshot now) {
        if (!mounts.anyLive()) {
            return now;
        }
        Map<Path, ProtectedScan.GitEntry> git = new LinkedHashMap<>(now.git());
        for (Map.Entry<Path, ProtectedScan.GitEntry> e : now.git().entrySet()) {
            if (e.getValue().kind() != 'A' && mounts.excused(e.getKey())) {
                git.put(e.getKey(), new ProtectedScan.GitEntry('A', null, null));
            }
        }
        Set<Path> repos = new java.util.LinkedHashSet<>(now.repos());
        repos.removeIf(mounts::excused);
        return new ProtectedScan.Snapshot(now.files(), now.layout(), git, repos);
    }

    private boolean onlyMountPoints(Path dir) {
        List<Path> lits = denyLiterals;
        try (var s = Files.list(dir)) {
            return s.allMatch(lits::contains);
        } catch (IOException e) {
            return false;
        }
    }

    /** After exit: post-scan (DETECTED), engine events (OBSERVED) and stderr heuristics (INFERRED). */
    List<Violation> finish(Prepared prep, String stderr, int exit) {
        Prepared re = rebased.remove(prep.commandId());
        if (re != null) {
            prep = re;
        }
        List<Violation> out = new ArrayList<>(perCommand.getOrDefault(prep.commandId(), List.of()));
        perCommand.remove(prep.commandId());
        Attribution who = prep.who();
        List<Violation> found;
        ProtectedScan.Snapshot after;
        synchronized (scanLock) {
            after = scan();
            found = scanResult(prep.commandId(), who, prep.before(), after, prep.watchMark(), "");
            overlap.remove(prep.commandId());
            ending.remove(prep.commandId());
        }
        // the bridge prepares the next wrap right after cleanup: it fits the layout seen now (after quarantine)
        preparedLayout = found.isEmpty() ? after.layout() : null;
        out = notRefused(out, found);
        out.addAll(found);
        long tmpFound = limits == null || sessionTmp == null ? -1 : limits.enforceTmp(sessionTmp);
        if (tmpFound >= 0) {
            Violation v = new Violation(Instant.now(), Tier.DETECTED, Kind.OTHER, who.runId(), who.callId(),
                    who.tool(), who.command(), sessionTmp.toString(), "the session temp dir held " + tmpFound
                    + " bytes, over its " + limits.tmpCap() + "-byte cap: it was emptied");
            log.record(v);
            out.add(v);
        }
        out.addAll(writeFollowUps(who, stderr, out));
        out.addAll(infer(who, stderr, exit, out));
        // what was counted rather than kept one by one: one record per kind, with how many
        out.addAll(log.settle(who.runId(), who.callId()));
        return out;
    }

    /**
     * srt's Linux feed reports write attempts on denied paths and they read "refused" — true while the read-only bind
     * is in place. When the scan then finds the file written (a bind detached from the host meanwhile), the attempt
     * was not refused: the engine's words for it are replaced, naming the detected record instead.
     */
    static List<Violation> notRefused(List<Violation> observed, List<Violation> found) {
        List<Path> written = new ArrayList<>();
        for (Violation v : found) {
            Path t = pathOrNull(v.target());
            if (v.kind() == Kind.WRITE && t != null) {
                written.add(t);
            }
        }
        List<Violation> out = new ArrayList<>();
        for (Violation v : observed) {
            Path t = pathOrNull(v.target());
            String refused = "write refused by the sandbox (";
            if (v.tier() == Tier.OBSERVED && v.kind() == Kind.WRITE && t != null && v.reason() != null
                    && v.reason().startsWith(refused)
                    && written.stream().anyMatch(w -> w.startsWith(t) || t.startsWith(w))) {
                String call = v.reason().substring(refused.length() - 1);
                v = new Violation(v.time(), v.tier(), v.kind(), v.runId(), v.callId(), v.tool(), v.command(),
                        v.target(), "write attempt reported by the sandbox " + call + ", and not refused: the path "
                        + "was found written on the host afterwards (see the detected record)");
            }
            out.add(v);
        }
        return out;
    }

    /** The errors that say a write did not happen, as the command prints them ({@code bash: PATH: ERROR}). */
    private static final List<String> WRITE_ERRORS = List.of("Read-only file system", "Permission denied",
            "Operation not permitted", "No such file or directory", "Not a directory");

    /**
     * For each write whose outcome the feed could not tell ({@link WriteRecord#NOT_KNOWN}), what the host learnt
     * afterwards, as an INFERRED record of its own: the command's own error for that path (it was not written), or
     * a workspace file at the path's last components modified since the attempt (it may have been written there).
     * Nothing is claimed where neither is seen.
     */
    private List<Violation> writeFollowUps(Attribution who, String stderr, List<Violation> seen) {
        List<Violation> out = new ArrayList<>();
        Set<String> done = new HashSet<>();
        for (Violation v : List.copyOf(seen)) {
            if (v.tier() != Tier.OBSERVED || v.kind() != Kind.WRITE || v.target() == null || v.reason() == null
                    || !v.reason().contains(WriteRecord.NOT_KNOWN) || !done.add(v.target())) {
                continue;
            }
            // the error right after the path itself (bash's "PATH: ERROR", coreutils' "'PATH': ERROR"): a longer
            // path that starts with this one is another path
            String said = null;
            for (String err : WRITE_ERRORS) {
                for (String end : List.of(": ", "': ", "’: ", "\": ")) {
                    if (stderr.contains(v.target() + end + err)) {
                        said = err;
                    }
                }
            }
            String reason = null;
            if (said != null) {
                reason = "the command's own error for this path says \"" + said + "\": the write via it did not happen";
            } else {
                Path hit = modifiedSince(v.target(), v.time().minusSeconds(2));
                if (hit != null) {
                    reason = "the host's " + hit + " was modified since this attempt: the write via " + v.target()
                            + " may have reached it";
                }
            }
            if (reason != null) {
                Violation f = new Violation(Instant.now(), Tier.INFERRED, Kind.WRITE, who.runId(), who.callId(),
                        who.tool(), who.command(), v.target(), reason);
                if (log.record(f)) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    private static Path pathOrNull(String s) {
        try {
            return s == null ? null : Path.of(s).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return null;
        }
    }

    /** The workspace file at the longest run of {@code target}'s last components, when modified after {@code t}. */
    private Path modifiedSince(String target, Instant t) {
        Path p;
        try {
            p = Path.of(target).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return null;
        }
        int n = p.getNameCount();
        for (int k = 0; k < n; k++) {
            Path candidate = policy.workspace().resolve(p.subpath(k, n));
            try {
                if (Files.getLastModifiedTime(candidate, java.nio.file.LinkOption.NOFOLLOW_LINKS).toInstant()
                        .isAfter(t)) {
                    return candidate;
                }
            } catch (IOException e) {
                // not there: a shorter run may be
            }
        }
        return null;
    }

    /** The command no longer runs: no intervention may stop (or thaw) it from here on. */
    private void untrack(String commandId) {
        synchronized (scanLock) {
            Live l = live.remove(commandId);
            if (l != null) {
                Map<Path, ProtectedScan.Key> links = links(rebased.getOrDefault(commandId, l.prep()).before());
                if (!links.isEmpty()) {
                    ending.put(commandId, new Ending(links, System.nanoTime()));
                }
            }
        }
    }

    /**
     * The protected symlinks a command started with, from its untracking until its end scan has run: meanwhile its
     * replacement of one may still stand, and a command wrapped then must get the link's target denied (with the
     * end scan held up, a command wrapped in that gap could write the human's file once the link was back).
     */
    private final Map<String, Ending> ending = new ConcurrentHashMap<>();

    private record Ending(Map<Path, ProtectedScan.Key> links, long since) {}

    /** How long an untracked command's links count at most (one whose end scan never comes: a wrap retried afresh). */
    private static final long ENDING_MAX_NANOS = 60_000_000_000L;

    /**
     * The watch saw a name that may complete a repository layout: while a command runs, host git in
     * that directory would obey the agent's config at once. Handled off the watch thread (which the scan needs).
     */
    private void repositoryMayHaveAppeared() {
        if (live.isEmpty() || !interventionQueued.compareAndSet(false, true)) {
            return;
        }
        dev.monoagent.common.TaskExecutor.shared().io("repo-intervention", () -> {
            interventionQueued.set(false);
            intervene();
            return null;
        });
    }

    /**
     * The watch saw a protected symlink, or a symlink on the way to one, created, removed or renamed over while a
     * command may run: srt binds only the link's target, so the command may have put its own file where the host's
     * tools read {@code .env}. Handled off the watch thread; repeated events while one is queued are one.
     */
    private void linkMayHaveChanged() {
        if (!linkGuard || live.isEmpty() || !linkGuardQueued.compareAndSet(false, true)) {
            return;
        }
        dev.monoagent.common.TaskExecutor.shared().io("link-guard", () -> {
            linkGuardQueued.set(false);
            guardLinks();
            return null;
        });
    }

    /**
     * Puts back, while the command still runs, each protected symlink (and symlink on its way) that is no longer what
     * the newest running command started with — what took its place moved to the quarantine — and records it on that
     * command. Without this the agent's file stood where the human's link was until the command ended, for a host dev
     * server watching {@code .env} to load. A REPL evaluation or background process is left to its end scan, as the
     * human's own change while only such a process runs cannot be told from its doing.
     */
    void guardLinks() {
        synchronized (scanLock) {
            Map.Entry<String, Live> newest = null;
            for (Map.Entry<String, Live> e : live.entrySet()) {
                Process proc = e.getValue().process().get();
                if (e.getValue().longLived() || proc == null || !proc.isAlive()) {
                    continue;
                }
                if (newest == null || judgedFrom(e).watchMark() > judgedFrom(newest).watchMark()) {
                    newest = e;
                }
            }
            if (newest == null) {
                return;
            }
            Attribution who = newest.getValue().who();
            long running = live.values().stream().filter(l -> l.process().get() != null
                    && l.process().get().isAlive()).count();
            if (running > 1) {
                // a long-lived process beside it may have done it: said so, as for a repository (intervene)
                who = new Attribution(who.runId(), who.callId(), who.tool(), who.command() + " (one of " + running
                        + " sandboxed commands running)");
            }
            guardRecords.keySet().retainAll(live.keySet());
            Map<Path, Integer> counts = guardRecords.computeIfAbsent(newest.getKey(), k -> new ConcurrentHashMap<>());
            Map<Path, ProtectedScan.Key> human = humanLinks();
            List<ProtectedScan.Change> restored = ProtectedScan.restoreLinks(policy, human, false);
            noteRestored(restored, human);
            for (ProtectedScan.Change c : restored) {
                // a command replacing it in a loop is put back each time, but recorded a few times only (one 4 s
                // command can replace it hundreds of times)
                int n = counts.merge(c.path(), 1, Integer::sum);
                if (n > GUARD_RECORDS + 1) {
                    continue;
                }
                String when = !c.linkRestored() ? (n > GUARD_RECORDS ? LINK_AGAIN_FAILED : LINK_WHILE_RUNNING_FAILED)
                        : n > GUARD_RECORDS ? LINK_AGAIN : LINK_WHILE_RUNNING;
                Violation v = changeViolation(who, c, when, owed(c));
                log.record(v);
                perCommand.computeIfAbsent(newest.getKey(), k -> Collections.synchronizedList(new ArrayList<>()))
                        .add(v);
            }
        }
    }

    /** Records of the guard per path and command; further changes are put back without a record each. */
    private static final int GUARD_RECORDS = 3;
    private final Map<String, Map<Path, Integer>> guardRecords = new ConcurrentHashMap<>();
    private static final String LINK_WHILE_RUNNING = " while the command ran (put back at once)";
    private static final String LINK_AGAIN = " again while the command ran (put back at once; from here on it is put "
            + "back each time without a record of its own)";
    /** The same two, for a link that could not be made again then (the record says what becomes of it). */
    private static final String LINK_WHILE_RUNNING_FAILED = " while the command ran";
    private static final String LINK_AGAIN_FAILED = " again while the command ran (from here on without a record of "
            + "its own each time)";

    /**
     * Whether a link {@code c} could not put back is owed: a human link noted in {@link #restoredLinks} with that
     * text, which a later end scan makes once nothing stands at its path ({@link #owedLinks}).
     */
    private boolean owed(ProtectedScan.Change c) {
        ProtectedScan.Key k = c.linkRestored() || c.link() == null || c.via() != null ? null
                : restoredLinks.get(c.path());
        return k != null && c.link().equals(k.link());
    }

    /**
     * Stops every sandboxed process of the engine (verified freeze; one that cannot be stopped is killed), then
     * moves any repository that appeared since each command's snapshot out of host git's sight and restores the
     * workspace's git redirection entries — only then, so nothing sandboxed can swap a path under the move — records
     * it as DETECTED on the running command, and lets the processes run again. Protected files are left to the
     * after-command scan: the command may still be using them, and they are quarantined when it ends.
     */
    void intervene() {
        synchronized (scanLock) {
            List<Map.Entry<String, Live>> now = List.copyOf(live.entrySet());
            if (now.isEmpty()) {
                return;
            }
            List<Live> stopped = new ArrayList<>();
            List<Violation> killed = new ArrayList<>();
            for (Map.Entry<String, Live> e : now) {
                Live l = e.getValue();
                Process proc = l.process().get();
                if (proc == null || !proc.isAlive() || l.slot().frozen()) {
                    continue; // not spawned yet, ended (its after-command scan follows), or stopped between evaluations
                }
                if (l.slot().freeze(proc.toHandle()) instanceof Freezer.Result.Failed f) {
                    if (!proc.isAlive()) {
                        l.slot().thaw();
                        continue; // it ended meanwhile: the after-command scan judges it
                    }
                    ProcessRunner.killGroup(proc, "KILL");
                    l.slot().thaw();
                    Attribution who = l.who();
                    Violation v = new Violation(Instant.now(), Tier.DETECTED, Kind.OTHER, who.runId(), who.callId(),
                            who.tool(), who.command(), null, "a repository may have appeared while the command ran "
                            + "and the command could not be stopped (" + f.why() + "): it was killed");
                    log.record(v);
                    killed.add(v);
                    perCommand.computeIfAbsent(e.getKey(), k -> Collections.synchronizedList(new ArrayList<>()))
                            .add(v);
                } else {
                    stopped.add(l);
                }
            }
            try {
                // the commands that could have acted: stopped here, so running (not a REPL stopped between
                // evaluations). Judged from the earliest start among them: what appeared since may be the doing of
                // any of them. Judging from a later command's start (the next Bash command beside a long-lived
                // process) left a repository that appeared before it in host git's sight until the long-lived
                // process ended — or moved it, when this ran before that command was live: a race, now one outcome
                List<Map.Entry<String, Live>> acted = now.stream().filter(e -> stopped.contains(e.getValue()))
                        .toList();
                Map.Entry<String, Live> judged = acted.stream().min(java.util.Comparator.comparingLong(
                        e -> judgedFrom(e).watchMark())).orElse(now.get(0));
                // recorded on a Bash command rather than a REPL evaluation when both run and it is new to both
                Map.Entry<String, Live> first = acted.stream().filter(e -> !e.getValue().longLived()).findFirst()
                        .orElse(judged);
                ProtectedScan.Snapshot was = judgedFrom(judged).before();
                ProtectedScan.Snapshot firstWas = judgedFrom(first).before();
                ProtectedScan.Snapshot seen = scan();
                List<ProtectedScan.Change> git = new ArrayList<>(ProtectedScan.detectGit(policy, was.git(),
                        seen.git()));
                // a new .git directory with no HEAD is no repository to host git (a hooks-only one the human made
                // beside a long-lived process): it is left where it is, denied to each command, for the after-command
                // scan; a HEAD appearing in it brings the watch back here (ProtectedWatch)
                Set<Path> notYet = new HashSet<>();
                for (Path r : seen.repos()) {
                    if (!was.repos().contains(r) && r.getFileName().toString().equals(".git")
                            && Files.isDirectory(r, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                            && !Files.exists(r.resolve("HEAD"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        notYet.add(r);
                    }
                }
                Set<Path> obeyable = new HashSet<>(seen.repos());
                obeyable.removeAll(notYet);
                git.addAll(ProtectedScan.detectRepos(policy, was.repos(), obeyable));
                if (git.isEmpty()) {
                    return;
                }
                // a stopped process working inside what goes to the quarantine (its cwd, root or an open directory
                // there) would follow it into the state dir and write on in there (it could re-arm
                // the quarantined repository with a core.fsmonitor config): such a process is ended, not thawed; the
                // rest of the command runs on
                List<Path> moved = git.stream().map(ProtectedScan.Change::quarantinedTo).filter(q -> q != null)
                        .toList();
                if (!moved.isEmpty()) {
                    Set<Object> inside = fileKeys(moved);
                    for (Map.Entry<String, Live> e : now) {
                        Live l = e.getValue();
                        Process proc = l.process().get();
                        List<Long> holders = proc == null || !stopped.contains(l) ? List.of()
                                : holders(l, proc, inside);
                        if (holders.isEmpty()) {
                            continue;
                        }
                        // a stopped process meets its SIGKILL before it runs on
                        holders.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                        Attribution w = l.who();
                        Violation v = new Violation(Instant.now(), Tier.DETECTED, Kind.OTHER, w.runId(), w.callId(),
                                w.tool(), w.command(), null, holders.size() + " process(es) of this command were "
                                + "working inside the repository that was moved to the quarantine (their directory was "
                                + "in it): they were ended, so that nothing writes on in the quarantine");
                        log.record(v);
                        perCommand.computeIfAbsent(e.getKey(), k -> Collections.synchronizedList(new ArrayList<>()))
                                .add(v);
                    }
                }
                for (ProtectedScan.Change c : git) {
                    if (c.quarantinedTo() != null) {
                        neutralised.add(c.path());
                    }
                    Map.Entry<String, Live> to = first != judged && newSince(firstWas, was, c) ? first : judged;
                    if (to.getValue().longLived()) {
                        pendingGit.computeIfAbsent(to.getKey(), k -> Collections.synchronizedList(
                                new ArrayList<>())).add(c);
                        continue;
                    }
                    Attribution who = to.getValue().who();
                    if (now.size() > 1) {
                        who = new Attribution(who.runId(), who.callId(), who.tool(), who.command() + " (one of "
                                + now.size() + " sandboxed commands running)");
                    }
                    Violation v = gitViolation(who, c, WHILE_RUNNING);
                    log.record(v);
                    perCommand.computeIfAbsent(to.getKey(), k -> Collections.synchronizedList(new ArrayList<>()))
                            .add(v);
                }
                // every running command is judged from here on for git: what was just handled is not reported twice
                ProtectedScan.Snapshot after = scan();
                for (Map.Entry<String, Live> e : now) {
                    Prepared p = rebased.getOrDefault(e.getKey(), e.getValue().prep());
                    ProtectedScan.Snapshot b = p.before();
                    // what was left in place stays new to the commands it is new to
                    Set<Path> repos = new HashSet<>(after.repos());
                    repos.removeIf(r -> notYet.contains(r) && !b.repos().contains(r));
                    rebased.put(e.getKey(), p.since(new ProtectedScan.Snapshot(b.files(), b.layout(), after.git(),
                            Set.copyOf(repos)), p.watchMark()));
                }
            } finally {
                stopped.forEach(l -> l.slot().thaw());
            }
        }
    }

    /** The prepared command a live entry is judged from: its last checkpoint's, else its start's. */
    private Prepared judgedFrom(Map.Entry<String, Live> e) {
        return rebased.getOrDefault(e.getKey(), e.getValue().prep());
    }

    /**
     * Whether change {@code c}, found against {@code was}, is new since {@code later} too (a later start): the same
     * old state of a workspace {@code .git} entry there, or no part of the repository there.
     */
    private static boolean newSince(ProtectedScan.Snapshot later, ProtectedScan.Snapshot was, ProtectedScan.Change c) {
        ProtectedScan.GitEntry old = was.git().get(c.path());
        if (old != null) {
            return old.same(later.git().get(c.path()));
        }
        return later.repos().stream().noneMatch(r -> r.startsWith(c.path()));
    }

    private static final String WHILE_RUNNING = " while the command ran (it was stopped meanwhile)";

    /** The identities (device + inode) of everything under {@code roots}, not following links. */
    private static Set<Object> fileKeys(List<Path> roots) {
        Set<Object> out = new HashSet<>();
        for (Path r : roots) {
            try (var s = Files.walk(r)) {
                s.forEach(p -> {
                    try {
                        Object k = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class,
                                java.nio.file.LinkOption.NOFOLLOW_LINKS).fileKey();
                        if (k != null) {
                            out.add(k);
                        }
                    } catch (IOException gone) {
                        // gone meanwhile
                    }
                });
            } catch (IOException | java.io.UncheckedIOException gone) {
                // nothing there
            }
        }
        return out;
    }

    /**
     * The processes of {@code l} (its control group's members, else its process tree) whose cwd, root or an open
     * directory is one of {@code keys}. Read from outside by following {@code /proc/<pid>/…}, which reaches the
     * object itself in any mount namespace.
     */
    private static List<Long> holders(Live l, Process proc, Set<Object> keys) {
        List<Long> pids = l.slot().members();
        if (pids == null) {
            pids = Freezer.tree(proc.toHandle()).stream().map(ProcessHandle::pid).toList();
        }
        List<Long> out = new ArrayList<>();
        for (long pid : pids) {
            Path at = Path.of("/proc", Long.toString(pid));
            List<Path> refs = new ArrayList<>(List.of(at.resolve("cwd"), at.resolve("root")));
            try (var s = Files.list(at.resolve("fd"))) {
                s.forEach(refs::add);
            } catch (IOException | java.io.UncheckedIOException gone) {
                // gone, or not readable
            }
            for (Path ref : refs) {
                try {
                    var a = Files.readAttributes(ref, java.nio.file.attribute.BasicFileAttributes.class);
                    // a directory it holds lets it make, rename or remove entries in there (put a .git back); an open
                    // file only lets it rewrite that file, which the quarantine holds under a name host git ignores
                    if (a.isDirectory() && keys.contains(a.fileKey())) {
                        out.add(pid);
                        break;
                    }
                } catch (IOException gone) {
                    // closed meanwhile (it is stopped: only by its end)
                }
            }
        }
        return out;
    }

    /** Records what interventions handled during a long-lived process's evaluation, attributed to {@code at}. */
    private List<Violation> recordPending(String commandId, Attribution at) {
        List<ProtectedScan.Change> cs = pendingGit.remove(commandId);
        List<Violation> out = new ArrayList<>();
        if (cs != null) {
            for (ProtectedScan.Change c : List.copyOf(cs)) {
                Violation v = gitViolation(at, c, WHILE_RUNNING);
                log.record(v);
                out.add(v);
            }
        }
        return out;
    }

    /** Reads every watch event that happened so far (before the after-command snapshot). */
    private void syncWatch() {
        ProtectedWatch w = watch;
        if (w != null) {
            w.sync();
        }
    }

    /**
     * Protected paths the watch saw created since {@code mark} that are gone by the {@code after} snapshot: written
     * and deleted (or renamed away) within the command, so no scan can find them, but a host process could have read
     * (or host git obeyed) them meanwhile. Recorded; a lost-events overflow is recorded too.
     */
    private List<Violation> vanished(Attribution who, ProtectedScan.Snapshot after, long mark, String when) {
        ProtectedWatch w = watch;
        List<Violation> out = new ArrayList<>();
        if (w == null || mark < 0) {
            return out;
        }
        for (Path p : w.createdSince(mark)) {
            if (after.files().containsKey(p) || after.repos().contains(p) || Files.exists(p,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                continue; // still there: the scan handles it
            }
            if (neutralised.remove(p)) {
                continue; // moved out by an intervention while the command ran, and recorded then
            }
            boolean git = p.getFileName().toString().equals(".git");
            out.add(new Violation(Instant.now(), Tier.DETECTED, Kind.WRITE, who.runId(), who.callId(), who.tool(),
                    who.command(), p.toString(), (git ? "repository" : "protected file") + " created and deleted"
                    + (when.isEmpty() ? " during the command" : when) + " (gone before the scan; a host process could "
                    + (git ? "have run git in it" : "have read it") + " meanwhile)"));
        }
        if (w.overflowedSince(mark)) {
            out.add(new Violation(Instant.now(), Tier.DETECTED, Kind.OTHER, who.runId(), who.callId(), who.tool(),
                    who.command(), policy.workspace().toString(), "the file watch lost events (queue overflow)"
                    + (when.isEmpty() ? " during the command" : when) + ": a protected file created and deleted "
                    + "meanwhile may be unrecorded"));
        }
        return out;
    }

    /**
     * Protected files and git entries changed between two snapshots, handled (new files quarantined, repositories
     * neutralised, redirections restored) and recorded; only call when nothing sandboxed can touch the tree.
     */
    private List<Violation> scanResult(String id, Attribution who, ProtectedScan.Snapshot before,
                                       ProtectedScan.Snapshot after, long watchMark, String when) {
        List<Violation> found = scanChanges(who, before, after, watchMark, when);
        String others = othersMeanwhile(id, who);
        List<Violation> out = new ArrayList<>();
        for (Violation v : found) {
            Violation w = others == null ? v : new Violation(v.time(), v.tier(), v.kind(), v.runId(), v.callId(),
                    v.tool(), v.command(), v.target(), v.reason() + others);
            log.record(w);
            out.add(w);
        }
        settleOthers(id, after, found);
        return out;
    }

    /**
     * Whom else a change found in {@code id}'s window may belong to: the other sandboxed calls that ran at some moment
     * since the last scan (each scan settles what it found for every baseline, so only that stretch is open). Null
     * when none did. Afterwards every judged window restarts with the calls running now.
     */
    private String othersMeanwhile(String id, Attribution who) {
        Set<Attribution> ran;
        synchronized (overlap) {
            Set<Attribution> s = overlap.get(id);
            ran = s == null ? new java.util.LinkedHashSet<>() : new java.util.LinkedHashSet<>(s);
            ran.remove(who);
            for (Map.Entry<String, Set<Attribution>> e : overlap.entrySet()) {
                e.getValue().clear();
                for (Map.Entry<String, Live> l : live.entrySet()) {
                    if (!l.getKey().equals(e.getKey()) && running(l.getValue())) {
                        e.getValue().add(l.getValue().who());
                    }
                }
            }
        }
        if (ran.isEmpty()) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (Attribution a : ran) {
            names.add(a.tool() + " " + (a.callId() != null ? a.callId() : a.command())
                    + (a.runId() != null ? " of run " + a.runId() : ""));
        }
        return " — not necessarily this call's doing: other sandboxed calls ran meanwhile (" + String.join(", ", names)
                + "), and which of them wrote it cannot be told from the files";
    }

    /** Running now, not stopped between evaluations. */
    private static boolean running(Live l) {
        Process p = l.process().get();
        return !l.slot().frozen() && (p == null || p.isAlive());
    }

    /**
     * A sandboxed command or long-lived process starts (or resumes) running: every window judged now may hold its
     * writes, and its own window starts with the others running now.
     */
    private void began(String id, Attribution who, boolean fresh) {
        synchronized (overlap) {
            for (Map.Entry<String, Set<Attribution>> e : overlap.entrySet()) {
                if (!e.getKey().equals(id)) {
                    e.getValue().add(who);
                }
            }
            if (fresh) {
                Set<Attribution> mine = new java.util.LinkedHashSet<>();
                for (Map.Entry<String, Live> l : live.entrySet()) {
                    if (!l.getKey().equals(id) && running(l.getValue())) {
                        mine.add(l.getValue().who());
                    }
                }
                overlap.put(id, mine);
            }
        }
    }

    /**
     * What one scan found changed is settled for every other window judged now: their baselines take the state it
     * left, so the same change is never recorded again on another call.
     */
    private void settleOthers(String id, ProtectedScan.Snapshot after, List<Violation> found) {
        if (found.isEmpty()) {
            return;
        }
        Set<Path> handled = new HashSet<>();
        for (Violation v : found) {
            if (v.target() != null) {
                handled.add(Path.of(v.target()));
            }
        }
        for (Map.Entry<String, Live> e : live.entrySet()) {
            if (e.getKey().equals(id)) {
                continue;
            }
            Prepared p = rebased.getOrDefault(e.getKey(), e.getValue().prep());
            ProtectedScan.Snapshot b = p.before();
            Map<Path, ProtectedScan.Key> files = new java.util.HashMap<>(b.files());
            for (Path h : handled) {
                // read again: a protected symlink restored after the scan is not what the scan saw
                ProtectedScan.Key k = after.files().containsKey(h) || b.files().containsKey(h)
                        ? ProtectedScan.Key.read(h) : null;
                ProtectedScan.Key was = b.files().get(h);
                if (was != null && was.link() != null && (k == null || !was.link().equals(k.link()))) {
                    // a protected symlink this command started with is not the same link now: perhaps this command's
                    // doing, so its own end scan must still see the link it started with and put it back (rebased
                    // onto the agent's file, it would never be restored)
                    continue;
                }
                if (k == null) {
                    files.remove(h);
                } else {
                    files.put(h, k);
                }
            }
            rebased.put(e.getKey(), p.since(new ProtectedScan.Snapshot(files, b.layout(), b.git(), b.repos()),
                    p.watchMark()));
        }
    }

    /** What changed between two snapshots, handled (moved out, restored) but not yet recorded. */
    private List<Violation> scanChanges(Attribution who, ProtectedScan.Snapshot before, ProtectedScan.Snapshot after,
                                        long watchMark, String when) {
        List<Violation> out = new ArrayList<>(vanished(who, after, watchMark, when));
        // a human link the engine put back while this window was open is no change of its (it started without the
        // link, or with another command's file in its place): not quarantined as a new protected file
        Map<Path, ProtectedScan.Key> base = new java.util.HashMap<>(before.files());
        after.files().forEach((path, k) -> {
            ProtectedScan.Key was = base.get(path);
            ProtectedScan.Key put = restoredLinks.get(path);
            if (put != null && k.link() != null && k.link().equals(put.link()) && (was == null || was.link() == null)) {
                base.put(path, k);
            }
        });
        List<ProtectedScan.Change> changes = new ArrayList<>(ProtectedScan.detect(policy, base, after.files()));
        noteRestored(changes, base);
        owedLinks();
        List<ProtectedScan.Change> gitChanges = new ArrayList<>(ProtectedScan.detectGit(policy, before.git(),
                after.git()));
        gitChanges.addAll(ProtectedScan.detectRepos(policy, before.repos(), after.repos()));
        changes.addAll(gitChanges);
        for (ProtectedScan.Change c : changes) {
            if (gitChanges.contains(c)) {
                out.add(gitViolation(who, c, when));
                continue;
            }
            out.add(changeViolation(who, c, when, owed(c)));
        }
        return out;
    }

    /** The record of one protected path that changed ({@link ProtectedScan#detect}), {@code when} said in it. */
    private static Violation changeViolation(Attribution who, ProtectedScan.Change c, String when, boolean owed) {
        // what became of a link put back (the protected one or one on its way); one that could not be made now but is
        // owed (owedLinks) is not said to be lost
        String putBack = c.link() == null ? "" : (c.quarantinedTo() != null ? "; what took its place moved to "
                + c.quarantinedTo() : "") + (c.linkRestored() ? ", link restored (-> " + c.link() + ")"
                : owed ? "; the link (-> " + c.link() + ") could not be made again yet (something stood at its path): "
                        + "it is made once nothing stands there, at the latest by the end of a later command"
                : "; the link (-> " + c.link() + ") could not be restored");
        String how = c.quarantinedTo() != null ? "replaced" : "removed";
        String reason = c.ledTo() != null
                ? "protected symlink now leads to " + c.ledTo() + " instead of its target when the command started"
                        + when + " (a directory on the way changed; srt denied only the old target)"
                : c.via() != null
                ? "symlink on the way to protected " + c.via() + " " + how + when + " (srt denies only the link's "
                        + "target: " + c.via() + " would read what the command chose)" + putBack
                : c.link() != null
                ? "protected symlink " + how + when + " (srt denies only its target)" + putBack
                : c.created()
                ? "new protected file written" + when + " (srt ignores write globs on Linux)"
                        + (c.quarantinedTo() != null ? "; moved to " + c.quarantinedTo() : "; quarantine failed")
                : "protected file changed" + when;
        return new Violation(Instant.now(), Tier.DETECTED, Kind.WRITE, who.runId(), who.callId(), who.tool(),
                who.command(), c.path().toString(), reason);
    }

    private Violation gitViolation(Attribution who, ProtectedScan.Change c, String when) {
        String reason = (c.created() && !c.path().equals(policy.workspace().resolve(".git"))
                ? "repository created below the workspace" + when + " (host git would obey its config/hooks); "
                : "git redirection entry changed" + when + " (host git would follow it to other config/hooks); ")
                + (c.quarantinedTo() != null ? "moved to " + c.quarantinedTo() + ", " : "")
                + "previous state restored where possible";
        return new Violation(Instant.now(), Tier.DETECTED, Kind.WRITE, who.runId(), who.callId(), who.tool(),
                who.command(), c.path().toString(), reason);
    }

    /** The reason given when git inside the sandbox fails on the read-only git control directory. */
    static final String GIT_READ_ONLY = "the git control directory is read-only to the agent: git status/log/diff "
            + "work, but commit, checkout, branch, stash and fetch must be run by the user on the host";

    private static final List<String[]> NET_HINTS = List.of(
            new String[] {"Could not resolve host", "DNS resolution failed inside the sandbox"},
            new String[] {"Temporary failure in name resolution", "DNS resolution failed inside the sandbox"},
            new String[] {"Name or service not known", "DNS resolution failed inside the sandbox"},
            new String[] {"getaddrinfo", "DNS resolution failed inside the sandbox"},
            new String[] {"Network is unreachable", "direct connection blocked (no network outside the sandbox)"},
            new String[] {"ENETUNREACH", "direct connection blocked (no network outside the sandbox)"});

    private List<Violation> infer(Attribution who, String stderr, int exit, List<Violation> already) {
        List<Violation> out = new ArrayList<>();
        if (stderr.contains(".git/") && (stderr.contains("Read-only file system")
                || stderr.contains("insufficient permission"))) {
            // git's own words ("Unable to create .../index.lock", "insufficient permission for adding an object")
            // do not say why: name the rule and what to do instead
            Violation v = new Violation(Instant.now(), Tier.INFERRED, Kind.WRITE, who.runId(), who.callId(),
                    who.tool(), who.command(), policy.workspace().resolve(".git").toString(), GIT_READ_ONLY);
            log.record(v);
            out.add(v);
        }
        out.addAll(refusedProtected(who, stderr, already));
        if (exit == 0 || stderr.isEmpty()) {
            out.removeIf(v -> v.tier() == Tier.INFERRED && v.reason().startsWith(OWN_ERROR) && !log.record(v));
            return out;
        }
        boolean haveNet = already.stream().anyMatch(v -> v.kind() == Kind.NETWORK);
        if (!haveNet) {
            for (String[] h : NET_HINTS) {
                if (stderr.contains(h[0])) {
                    out.add(new Violation(Instant.now(), Tier.INFERRED, Kind.NETWORK, who.runId(), who.callId(),
                            who.tool(), who.command(), null, h[1]));
                    break;
                }
            }
        }
        for (Path d : policy.denyRead()) {
            String cmd = who.command() == null ? "" : who.command();
            String tilde = d.startsWith(env.home()) ? "~/" + env.home().relativize(d) : null;
            boolean mentioned = cmd.contains(d.toString()) || (tilde != null && !tilde.equals("~/") && cmd.contains(tilde));
            if (mentioned && (stderr.contains("No such file") || stderr.contains("Permission denied"))) {
                out.add(new Violation(Instant.now(), Tier.INFERRED, Kind.READ, who.runId(), who.callId(), who.tool(),
                        who.command(), d.toString(), "read of a protected path failed inside the sandbox"));
                break;
            }
        }
        out.removeIf(v -> !log.record(v));
        return out;
    }

    private static final String OWN_ERROR = "the command's own error says a write to this protected path was refused";
    private static final Pattern REFUSED_WRITE = Pattern.compile(
            "(?m)^(?:.*?: )?(?:line \\d+: )?([^\\n:]+): (?:Read-only file system|Permission denied|Operation not permitted)$");

    /**
     * The protected paths the command's own errors name as refused writes ({@code bash: line 1: .env: Read-only file
     * system}) that no engine record names: srt's feed is lossy under a flood of events, and such an attempt must not
     * go unrecorded when the command said it. Relative paths are read against the workspace; one record a path.
     */
    private List<Violation> refusedProtected(Attribution who, String stderr, List<Violation> already) {
        List<Violation> out = new ArrayList<>();
        if (stderr.isEmpty()) {
            return out;
        }
        Set<Path> named = new HashSet<>();
        for (Violation v : already) {
            Path t = v.kind() == Kind.WRITE ? pathOrNull(v.target()) : null;
            if (t != null) {
                named.add(t);
            }
        }
        Matcher m = REFUSED_WRITE.matcher(stderr);
        while (m.find() && out.size() < 100) {
            Path p = pathOrNull(m.group(1).strip());
            if (p == null || m.group(1).isBlank()) {
                continue;
            }
            Path abs = policy.workspace().resolve(p).normalize();
            if (policy.protection(abs) == null || !named.add(abs)) {
                continue;
            }
            out.add(new Violation(Instant.now(), Tier.INFERRED, Kind.WRITE, who.runId(), who.callId(), who.tool(),
                    who.command(), abs.toString(), OWN_ERROR + " (\"" + Printable.line(m.group(0)) + "\")"));
        }
        return out;
    }

    /** An engine line's kind, target and reason. */
    record Classified(Kind kind, String target, String reason) {}

    /**
     * What an engine violation line means (the proxy's network denies, Seatbelt refusals relayed by srt's macOS log
     * monitor, the Linux seccomp feed's write attempts), or null for a line that is not a violation of its own.
     * Seatbelt shapes are only read on macOS: on Linux a path may contain anything, and a written name that looks like
     * {@code x(1) deny(1) ...} must not change what the seccomp line is taken to say.
     */
    static Classified classify(String line, Platform platform) {
        return classify(line, platform, WriteRecord.NONE);
    }

    /** As above, with what the host knows of the sandbox's filesystems to word a write attempt ({@link WriteRecord}). */
    static Classified classify(String line, Platform platform, WriteRecord writes) {
        Matcher n = NET_DENY.matcher(line);
        if (n.matches()) {
            return new Classified(Kind.NETWORK, n.group(1),
                    n.group(2) == null ? "network access denied by the sandbox proxy" : n.group(2));
        }
        if (platform == Platform.MACOS && SeatbeltViolation.isRepeat(line)) {
            return null;
        }
        SeatbeltViolation sb = platform == Platform.MACOS ? SeatbeltViolation.parse(line) : null;
        if (sb != null) {
            return new Classified(sb.kind(), sb.target(), sb.reason());
        }
        Matcher f = FS_DENY.matcher(line);
        if (f.matches()) {
            return new Classified(Kind.WRITE, f.group(2), writes.reason(f.group(2), f.group(1)));
        }
        return new Classified(Kind.OTHER, null, line);
    }

    /**
     * The warm shell's own writes on the sandbox's private /proc and /dev: each command's user namespace gets its
     * uid/gid map, a command's stdin file is made in /dev/shm (never a host file). Not recorded for a warm shell's wrap.
     */
    private static final Set<String> USERNS_MAP = Set.of("/proc/self/uid_map", "/proc/self/gid_map",
            "/proc/self/setgroups");
    private static final String WARM_FIFOS = "/dev/shm/.mono-agent-warm-";

    private void onEngineEvent(SrtBridge.EngineEvent raw) {
        Matcher a = NET_ALLOW.matcher(raw.line());
        if (a.matches()) {
            onAllowedConnection(raw, a.group(1), Integer.parseInt(a.group(2)));
            return;
        }
        SrtBridge.EngineEvent e = raw;
        if (raw.commandId() != null && warmWraps.contains(raw.commandId())) {
            Matcher f = FS_DENY.matcher(raw.line());
            if (f.matches() && (USERNS_MAP.contains(f.group(2)) || f.group(2).startsWith(WARM_FIFOS))) {
                return;
            }
            // srt knows only the shell's wrap: the event belongs to the command the shell was running at its time
            WarmShell shell = shellsByWrap.get(raw.commandId());
            String call = shell == null ? null : shell.callAt(raw.time());
            e = new SrtBridge.EngineEvent(raw.line(), call != null ? call : raw.commandId(), raw.time());
        }
        Attribution who = e.commandId() == null ? null : commands.get(e.commandId());
        if (who == null) {
            who = new Attribution(null, null, "sandbox", e.commandId());
        }
        List<Path> ro = new ArrayList<>(readOnlyBinds);
        ro.addAll(policy.readableRoots());
        ro.addAll(policy.agentWritable());
        Classified c = classify(e.line(), Platform.current(), new WriteRecord(privateDirs, ro,
                policy.agentWritable(), policy.workspace(), policy::protection));
        if (c == null) {
            return;
        }
        Violation v = new Violation(e.time(), Tier.OBSERVED, c.kind(), who.runId(), who.callId(), who.tool(),
                who.command(), c.target(), c.reason());
        if (!log.record(v)) {
            return; // counted in its call's aggregated record (ViolationLog)
        }
        synchronized (late) {
            late.addLast(v);
            while (late.size() > 64) {
                late.removeFirst();
            }
        }
        if (e.commandId() != null) {
            perCommand.computeIfAbsent(e.commandId(), k -> Collections.synchronizedList(new ArrayList<>())).add(v);
        }
    }

    /**
     * srt's proxy dialled a host loopback port for a sandboxed command: recorded as allowed traffic
     * ({@link Event.NetworkAllowed}, not a violation) with the port and the listening process, so a granted Docker
     * API, debugger or forwarding proxy is never reached silently. Attributed like a denied connection: by the
     * commandId of the proxy username the request carried (a warm shell's wrap: the command the shell ran at the
     * time), counted in that command's result. Without a known commandId it is the only running command's when
     * exactly one runs; otherwise it is recorded once, unattributed and saying so — never put on a run or call
     * that did not make it.
     */
    private void onAllowedConnection(SrtBridge.EngineEvent e, String host, int port) {
        if (!grantedPorts.contains(port)) {
            return; // srt's own internal dials (its proxy ports), not a host service
        }
        String id = e.commandId();
        if (id != null && warmWraps.contains(id)) {
            WarmShell shell = shellsByWrap.get(id);
            id = shell == null ? null : shell.callAt(e.time());
        }
        Attribution who = id == null ? null : commands.get(id);
        if (who == null) {
            List<String> now = List.copyOf(running);
            id = now.size() == 1 ? now.get(0) : null;
            who = id == null ? null : commands.get(id);
        }
        if (who == null) {
            id = null;
            who = new Attribution(null, null, "sandbox", "unattributed: the proxy did not say which sandboxed "
                    + "command asked (" + running.size() + " running)");
        }
        Event.NetworkAllowed a = new Event.NetworkAllowed(e.time(), who.runId(), who.callId(), who.tool(),
                who.command(), host, port, HostPorts.listener(host, port));
        log.allowed(a);
        if (id != null) {
            allowedPerCommand.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>())).add(a);
        }
    }

    /** The allowed connections recorded for these command ids (the first attempt and its retry), removed. */
    private List<Event.NetworkAllowed> takeAllowed(String... ids) {
        List<Event.NetworkAllowed> out = new ArrayList<>();
        for (String id : new java.util.LinkedHashSet<>(java.util.Arrays.asList(ids))) {
            List<Event.NetworkAllowed> got = id == null ? null : allowedPerCommand.remove(id);
            if (got != null) {
                out.addAll(got);
            }
        }
        return out;
    }

    /** The read-denied paths that are directories (srt hides those behind a tmpfs; files behind an empty file). */
    private List<Path> privateDirs(List<Path> readDenied) {
        java.util.Set<Path> all = new java.util.LinkedHashSet<>(readDenied);
        all.addAll(policy.denyRead());
        all.add(env.home());
        List<Path> out = new ArrayList<>();
        for (Path d : all) {
            if (Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                out.add(d.toAbsolutePath().normalize());
            }
        }
        return List.copyOf(out);
    }

    /** Engine events for a callId that arrived after its command's result was assembled (they are logged anyway). */
    List<Violation> lateViolations(String callId) {
        List<Violation> out = new ArrayList<>();
        synchronized (late) {
            for (Violation v : late) {
                if (callId.equals(v.callId())) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    List<Integer> grantedPorts() {
        return grantedPorts;
    }

    @Override
    public void close() {
        closing = true;
        ownPortsSubscription.close();
        // a long-lived process ended just before (NodeRepl's destroy) may still be in its end scan, which quarantines
        // into the workspace's state dir: nothing of the engine writes there after close returns
        endLongLived("the sandbox was closed");
        closeShells();
        ProtectedWatch w = watch;
        if (w != null) {
            w.close();
        }
        SrtBridge b = bridge;
        if (b != null) {
            b.close();
        }
        Limits l = limits;
        if (l != null) {
            l.close();
        }
        log.settleAll();
        mounts.dropStash();
        // by descriptor: in rlimits mode nothing guarantees a detached sandboxed process is gone yet, and it may have
        // swapped a directory here for a symlink that a path walk would follow
        NoFollowFs.deleteTree(sessionTmp);
        if (sessionTmp != null) {
            SrtRuntime.deleteTree(SrtBridge.bridgeTmp(sessionTmp));
        }
    }
}
