package dev.monoagent.sandbox;

import dev.monoagent.common.TaskExecutor;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A host-side inotify watch (the JDK's {@link WatchService}) on every directory of the writable roots for the engine's
 * lifetime. It does three jobs:
 * <ol>
 *   <li><b>Index</b>: the set {@link ProtectedFinder#find} would return for the workspace, kept
 *       current from events, so the before/after-command scans cost what changed instead of a walk of every file.
 *       Each event re-evaluates the path it names from the disk as it is now ({@code lstat}): a new or renamed-in
 *       directory is walked whole (watched before it is listed, so nothing created meanwhile is missed), a removed
 *       one drops everything indexed below it. The index is only handed out when it can be trusted:
 *       {@link #indexed()} returns null — and the caller does the full walk — before the first build finished,
 *       after any event-queue overflow, a watch that could not be added (watch limit), a directory that could not
 *       be listed, a directory swapped between its listing and its watch, or a sync that timed out; a rebuild is
 *       then started in the background. Overflow never means a skipped scan.</li>
 *   <li><b>Created-then-deleted</b>: a protected name ({@code .env.*}, a nested {@code .git}) seen created is
 *       remembered, so one deleted again before the after-command scan is still recorded.</li>
 *   <li><b>Repository planted during a command</b>: a new {@code HEAD}, {@code commondir},
 *       {@code objects}/{@code refs} next to a {@code HEAD}, or a {@code .git} that is not a directory is handed to
 *       {@code onRepo} at once, so the engine can stop the command and neutralise it while it still runs.</li>
 * </ol>
 *
 * <p>Known limit: inotify watches one directory at a time, so a protected file created <em>and deleted</em> inside a
 * directory in the moment between that directory's creation and its watch is not seen (the index is still right:
 * it lists the directory after watching it).
 */
final class ProtectedWatch implements AutoCloseable {
    /** A protected path seen created, numbered in arrival order. */
    record Seen(long seq, Path path) {}

    /** A watched directory: its path when registered and its identity (a swapped-in different dir is not it). */
    private record Dir(Path path, Object fileKey) {}

    /** Events of one key from which its directory is listed once instead of an lstat per event (see handle). */
    private static final int BATCH = 4;
    /** Names whose appearance may complete a repository layout host git would obey. */
    private static final Set<String> REPO_NAMES = Set.of("HEAD", "commondir", "objects", "refs", ".git");

    /** Test hook: fails every registration from the n-th on with the watch-limit error (0: never). */
    static volatile int failRegistrationsFrom = 0;

    private final Policy policy;
    private final Supplier<Collection<Path>> denyLiterals;
    private final WatchService service;
    private final Map<WatchKey, Dir> dirs = new ConcurrentHashMap<>();
    /** The key last registered for each path (see {@link #register}). */
    private final Map<Path, WatchKey> byPath = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong syncSeq = new java.util.concurrent.atomic.AtomicLong();
    private final String syncToken = Long.toHexString(new java.security.SecureRandom().nextLong());
    private final List<Seen> seen = new ArrayList<>();
    private final AtomicLong seq = new AtomicLong();
    private final Path syncDir;
    private final Map<String, CountDownLatch> syncs = new ConcurrentHashMap<>();
    /** Guards {@link #marker}: concurrent syncs rename the one marker one at a time. */
    private final Object markerLock = new Object();
    /** The sync marker's name now; it is renamed to each sync's own name. */
    private Path marker;
    private final Set<Path> index = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean rebuildWanted = new AtomicBoolean();
    private final AtomicLong registrations = new AtomicLong();
    private volatile Consumer<Path> onRepo = p -> { };
    /** Protected symlinks and the symlinks on their way ({@link ProtectedScan#guarded}); see {@link #guard}. */
    private volatile Set<Path> guarded = Set.of();
    private volatile Consumer<Path> onGuarded = p -> { };
    private volatile long overflowSeq = -1;
    /** The sequence number at which the index last became untrustworthy. */
    private volatile long distrustSeq = 0;
    /** The sequence number at which the last clean (re)build of the index started (-1: none finished). */
    private volatile long builtFromSeq = -1;
    /** How many times the index was (re)built; for tests and the benchmark. */
    private final AtomicLong builds = new AtomicLong();
    private long backoffMs;
    private volatile long nextBuildAt = System.nanoTime();
    /** Opened when the first registration of the roots is done. */
    private final CountDownLatch registered = new CountDownLatch(1);
    private volatile boolean closed;

    private ProtectedWatch(Policy policy, Supplier<Collection<Path>> denyLiterals, WatchService service,
                           Path syncDir) {
        this.policy = policy;
        this.denyLiterals = denyLiterals;
        this.service = service;
        this.syncDir = syncDir;
        this.marker = syncDir.resolve("sync-0");
    }

    /**
     * Starts watching the policy's writable roots; {@code syncDir} is a private directory the host alone writes (its
     * marker files tell when every earlier event has been read). Null when no watch service is available.
     */
    static ProtectedWatch start(Policy policy, Supplier<Collection<Path>> denyLiterals, Path syncDir) {
        WatchService ws;
        try {
            ws = FileSystems.getDefault().newWatchService();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
        ProtectedWatch w = new ProtectedWatch(policy, denyLiterals, ws, syncDir);
        try {
            w.register(syncDir);
        } catch (IOException e) {
            w.close();
            return null;
        }
        // registering a large tree takes a while: done on the watch thread, so opening the engine does not wait
        TaskExecutor.shared().io("protected-watch", () -> {
            try {
                w.build();
            } finally {
                w.registered.countDown();
            }
            w.loop();
            return null;
        });
        return w;
    }

    /**
     * The paths to report to {@link #onGuarded} when an entry at one of them is created, removed or renamed over: a
     * protected symlink, a symlink on its way and the directories above them, which srt cannot protect (it binds only
     * the target), so the engine puts them back while the command that changed them still runs.
     */
    void guard(Set<Path> paths) {
        guarded = Set.copyOf(paths);
    }

    /** Who to tell about a change at a {@link #guard}ed path; called on the watch's thread: it hands the work off. */
    void onGuarded(Consumer<Path> listener) {
        onGuarded = listener == null ? p -> { } : listener;
    }

    /** Who to tell when a repository layout may have appeared; called on a thread of its own choosing. */
    void onRepository(Consumer<Path> listener) {
        onRepo = listener == null ? p -> { } : listener;
    }

    /**
     * The sequence number a command's window starts after. The first command waits (briefly) for the initial
     * registration, so a small workspace is fully watched before anything runs in it.
     */
    long mark() {
        try {
            registered.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return seq.get();
    }

    Path syncDir() {
        return syncDir;
    }

    /**
     * Waits (bounded) until every event that happened before this call has been read and applied, by renaming the
     * marker file in the sync dir to a name of this call's own and waiting for the watch thread to reach it. False
     * when that did not happen in time (the index is then not trusted for this scan).
     */
    boolean sync() {
        // numbered after a random token of this watch's: the directory is the host's own (no sandbox sees it), and a
        // name nobody else knows cannot be planted there ahead of the rename (which, unlike an exclusive create,
        // would replace it)
        String name = "sync-" + syncToken + "-" + syncSeq.incrementAndGet();
        CountDownLatch l = new CountDownLatch(1);
        syncs.put(name, l);
        Path f = syncDir.resolve(name);
        boolean ok = false;
        try {
            // one marker, renamed to each new name: one syscall and one batch of events per sync (creating a
            // marker and deleting it again cost three, and woke the watch a second time)
            synchronized (markerLock) {
                try {
                    Files.move(marker, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (NoSuchFileException gone) {
                    Files.createFile(f);
                }
                marker = f;
            }
            ok = l.await(2, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no marker: read what has arrived
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            syncs.remove(name);
        }
        if (!ok) {
            distrust();
        }
        return ok;
    }

    /**
     * The indexed protected paths of the workspace (what {@link ProtectedFinder#find} would list), or null when the
     * index cannot be trusted — the caller must then walk. Call right after a {@link #sync()} that returned true.
     */
    List<Path> indexed() {
        long built = builtFromSeq;
        if (closed || built < 0 || built <= distrustSeq) {
            rebuildWanted.set(true);
            return null;
        }
        return List.copyOf(index);
    }

    /** How many times the index was built (the first build included). */
    long builds() {
        return builds.get();
    }

    /** Protected paths seen created after {@code mark} and not handed out before (each is reported once). */
    List<Path> createdSince(long mark) {
        List<Path> out = new ArrayList<>();
        synchronized (seen) {
            seen.removeIf(s -> {
                if (s.seq() > mark) {
                    out.add(s.path());
                    return true;
                }
                return false;
            });
        }
        return out;
    }

    /** True when the event queue overflowed after {@code mark} (events were lost). */
    boolean overflowedSince(long mark) {
        return overflowSeq > mark;
    }

    private void distrust() {
        // no kept key is proof of a watch any more: after a queue overflow the kernel may have dropped the IN_IGNORED
        // that would have cancelled one, and its inode number may be a new directory's now — the
        // rebuild registers every directory again
        byPath.clear();
        distrustSeq = seq.incrementAndGet();
        rebuildWanted.set(true);
    }

    /** (Re)registers every directory of the roots and rebuilds the index from a full walk of the workspace. */
    private void build() {
        long from = seq.incrementAndGet();
        Set<Path> found = new HashSet<>();
        for (Path root : policy.writableRoots()) {
            walk(root, false, found);
        }
        Path ws = policy.workspace();
        if (!policy.writableRoots().contains(ws)) {
            walk(ws, false, found);
        }
        index.retainAll(found);
        index.addAll(found);
        builds.incrementAndGet();
        if (distrustSeq < from) {
            builtFromSeq = from;
            backoffMs = 0;
        } else {
            // e.g. the watch limit is reached: the scans walk meanwhile; retry, but not in a tight loop of walks
            backoffMs = Math.min(30_000, Math.max(250, backoffMs * 2));
            nextBuildAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        }
    }

    private void loop() {
        while (!closed) {
            WatchKey key;
            try {
                key = service.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            if (key != null) {
                handle(key);
            }
            // checked after every key, not only when idle: a steady trickle of events must not starve it
            if (!closed && System.nanoTime() - nextBuildAt >= 0 && rebuildWanted.getAndSet(false)) {
                build();
            }
        }
    }

    private void handle(WatchKey key) {
        Dir dir = dirs.get(key);
        // a watched dir moved away keeps its watch (and its old path here): its events are re-read at that path
        // (harmless: the disk decides), but they are not "created" records for whatever now lives there
        boolean current = dir != null && sameDir(dir);
        List<WatchEvent<?>> events = key.pollEvents();
        // a batch (a warm command's two dozen placeholders moved in or out) is looked up in one listing of the dir
        // (Presence): an lstat of each path throws for every absent one
        Presence present = events.size() >= BATCH ? new Presence() : null;
        for (WatchEvent<?> ev : events) {
            if (ev.kind() == StandardWatchEventKinds.OVERFLOW) {
                overflowSeq = seq.incrementAndGet();
                distrust();
                // a lost event may have been the one completing a repository (a HEAD renamed in amid a flood of
                // creates): the engine judges the tree now, from a walk (the index is distrusted)
                onRepo.accept(policy.workspace());
                continue;
            }
            if (dir == null || !(ev.context() instanceof Path name)) {
                continue;
            }
            if (dir.path().equals(syncDir)) {
                CountDownLatch l = syncs.get(name.toString());
                if (l != null) {
                    // every key with an event from before the marker is in the queue by now (only this thread
                    // resets keys): apply them all before saying "synced"
                    drain();
                    l.countDown();
                }
                continue;
            }
            Path p = dir.path().resolve(name);
            if (current && guarded.contains(p)) {
                onGuarded.accept(p);
            }
            refresh(p, current && ev.kind() == StandardWatchEventKinds.ENTRY_CREATE, present);
        }
        if (!key.reset()) {
            Dir gone = dirs.remove(key);
            if (gone != null) {
                byPath.remove(gone.path(), key);
            }
        }
    }

    private static boolean sameDir(Dir d) {
        try {
            BasicFileAttributes a = Files.readAttributes(d.path(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.isDirectory() && Objects.equals(a.fileKey(), d.fileKey());
        } catch (IOException e) {
            return false;
        }
    }

    private void drain() {
        for (int i = 0; i < 100_000; i++) {
            WatchKey k = service.poll();
            if (k == null) {
                return;
            }
            handle(k);
        }
        distrust(); // events arrive faster than they can be applied: walk instead
    }

    /**
     * Re-reads {@code p} from the disk and brings the index (and the watches below it) in line with it; {@code present}
     * (null: none) says first whether anything stands there, from one listing of the dir for a batch of events.
     */
    private void refresh(Path p, boolean created, Presence present) {
        BasicFileAttributes a;
        try {
            a = present != null && !present.exists(p) ? null
                    : Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            a = null;
        } catch (IOException e) {
            distrust();
            return;
        }
        if (created) {
            consider(p);
        }
        if (a == null) {
            index.removeIf(x -> x.startsWith(p));
            return;
        }
        if (a.isDirectory()) {
            Set<Path> found = new HashSet<>();
            walk(p, true, found);
            index.removeIf(x -> x.startsWith(p) && !found.contains(x));
            index.addAll(found);
            if (created && REPO_NAMES.contains(name(p)) && HostControl.bareLayout(p.getParent())) {
                onRepo.accept(p.getParent());
            }
            return;
        }
        index.removeIf(x -> x.startsWith(p) && !x.equals(p));
        if (indexable(p)) {
            index.add(p);
        } else {
            index.remove(p);
        }
        if (created) {
            repoCandidate(p);
        }
    }

    private static String name(Path p) {
        return p.getFileName() == null ? "" : p.getFileName().toString();
    }

    /**
     * A non-directory that may make host git see a repository: {@code HEAD}, {@code commondir}, a {@code .git} file,
     * or an {@code objects}/{@code refs} symlink (git follows it: a layout completed by {@code ln -s ../r refs}).
     */
    private void repoCandidate(Path p) {
        String n = name(p);
        if (n.equals("HEAD") || n.equals("commondir") || n.equals(".git")
                || ((n.equals("objects") || n.equals("refs")) && Files.isSymbolicLink(p))) {
            onRepo.accept(p);
        }
    }

    private boolean indexable(Path f) {
        return policy.rootOf(f) != null && !ProtectedFinder.inStateDir(policy, f)
                && ProtectedFinder.interesting(policy, f);
    }

    /**
     * Records {@code p} when it is protected by a denyWrite glob ({@code .env.*}) or is a {@code .git} entry below
     * the roots: not the state dir, and not the literal denies srt itself creates mount points for (and removes).
     */
    private void consider(Path p) {
        Path ws = policy.workspace();
        if (p.startsWith(ws.resolve(".mono-agent")) || p.equals(ws.resolve(".git"))) {
            return;
        }
        for (Path lit : denyLiterals.get()) {
            if (p.startsWith(lit)) {
                return;
            }
        }
        boolean git = name(p).equals(".git");
        if (git || policy.protectedGlob(p) != null) {
            synchronized (seen) {
                seen.add(new Seen(seq.incrementAndGet(), p));
                if (seen.size() > 10_000) {
                    seen.remove(0);
                }
            }
        }
    }

    /**
     * Watches every directory under {@code root} — each one before it is listed, so an entry made meanwhile has an
     * event — and collects the indexable paths into {@code found}. {@code fresh}: the tree is new (created or moved
     * in during a command), so its protected names are recorded as created.
     */
    private void walk(Path root, boolean fresh, Set<Path> found) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                    if (ProtectedFinder.inStateDir(policy, d)) {
                        // the state dir (logs, runs, quarantine, the warm shell's placeholder stash) is the host's
                        // own, read-only in every sandbox and never scanned: not watched, so its busy traffic (two
                        // dozen placeholder moves per warm command) costs the watch nothing
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (fresh && !d.equals(root)) {
                        consider(d);
                    }
                    try {
                        register(d);
                        // the watch follows a symlink: if one was swapped in since the walk read d, the watch may be
                        // on a host dir; the listing below would not match the watched dir either — walk next time
                        BasicFileAttributes now = Files.readAttributes(d, BasicFileAttributes.class,
                                LinkOption.NOFOLLOW_LINKS);
                        if (!now.isDirectory() || !Objects.equals(now.fileKey(), a.fileKey())) {
                            distrust();
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                    } catch (NoSuchFileException | NotDirectoryException gone) {
                        return FileVisitResult.SKIP_SUBTREE; // its removal has an event of its own
                    } catch (IOException e) {
                        distrust(); // watch limit reached, or not listable: the full walk decides
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                    if (indexable(f)) {
                        found.add(f);
                    }
                    if (fresh) {
                        consider(f);
                        repoCandidate(f);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    if (!(e instanceof NoSuchFileException)) {
                        distrust();
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        distrust();
                    }
                    if (fresh && HostControl.bareLayout(d)) {
                        onRepo.accept(d);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException e) {
            // a root (or a new dir) that vanished: its removal has an event of its own
        } catch (IOException e) {
            distrust();
        }
    }

    private void register(Path d) throws IOException {
        int failFrom = failRegistrationsFrom;
        if (failFrom > 0 && registrations.incrementAndGet() >= failFrom) {
            throw new IOException("User limit of inotify watches reached");
        }
        // a directory that left and came back (a warm command's placeholder moved to the stash and back, two per
        // command) is the same inode, and inotify's watch went with it: its valid key stands, with no second
        // registration (a round trip through the JDK's poller thread each). A watch removed with its directory is
        // cancelled by the poller before any later event of the parent reaches us, so a reused inode never matches.
        WatchKey known = byPath.get(d);
        if (known != null && known.isValid()) {
            Dir was = dirs.get(known);
            BasicFileAttributes now = Files.readAttributes(d, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (was != null && was.path().equals(d) && now.isDirectory()
                    && Objects.equals(was.fileKey(), now.fileKey())) {
                return;
            }
        }
        WatchKey k = d.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        BasicFileAttributes a = Files.readAttributes(d, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        dirs.put(k, new Dir(d, a.fileKey()));
        byPath.put(d, k);
    }

    @Override
    public void close() {
        closed = true;
        try {
            service.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        SrtRuntime.deleteTree(syncDir);
    }
}
