package dev.monoagent.sandbox;

import dev.monoagent.common.TaskExecutor;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Sees protected names appear while commands run, so a {@code .env.*} (or a nested {@code .git}) that a command
 * creates and deletes again before the after-command scan is still recorded: a host process could have read or run it
 * meanwhile. One inotify instance (the JDK's {@link WatchService}) watches every directory of the writable roots for
 * the engine's lifetime; a directory that appears is watched (and walked) as soon as its event arrives.
 *
 * <p>Known limit: inotify watches one directory at a time, so a protected file created and deleted inside a directory
 * in the moment between that directory's creation and its registration can be missed; so can anything after an event
 * queue overflow (reported as such). Directories never watched: {@code .git} (read-only to the agent), the state dir.
 */
final class ProtectedWatch implements AutoCloseable {
    /** A protected path seen created, numbered in arrival order. */
    record Seen(long seq, Path path) {}

    private final Policy policy;
    private final Supplier<Collection<Path>> denyLiterals;
    private final WatchService service;
    private final Map<WatchKey, Path> dirs = new ConcurrentHashMap<>();
    private final List<Seen> seen = new ArrayList<>();
    private final AtomicLong seq = new AtomicLong();
    private final Path syncDir;
    private final Map<String, CountDownLatch> syncs = new ConcurrentHashMap<>();
    private volatile long overflowSeq = -1;
    /** Opened when the first registration of the roots is done. */
    private final CountDownLatch registered = new CountDownLatch(1);
    private volatile boolean closed;

    private ProtectedWatch(Policy policy, Supplier<Collection<Path>> denyLiterals, WatchService service,
                           Path syncDir) {
        this.policy = policy;
        this.denyLiterals = denyLiterals;
        this.service = service;
        this.syncDir = syncDir;
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
                for (Path root : policy.writableRoots()) {
                    w.registerTree(root, false);
                }
            } finally {
                w.registered.countDown();
            }
            w.loop();
            return null;
        });
        return w;
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

    /**
     * Waits (bounded) until every event that happened before this call has been read, by writing a marker file into
     * the sync dir and waiting for its own event.
     */
    void sync() {
        String name = "sync-" + UUID.randomUUID();
        CountDownLatch l = new CountDownLatch(1);
        syncs.put(name, l);
        Path f = syncDir.resolve(name);
        try {
            Files.createFile(f);
            l.await(2, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no marker: read what has arrived
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            syncs.remove(name);
            try {
                Files.deleteIfExists(f);
            } catch (IOException ignored) {
                // the dir is removed at close
            }
        }
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

    private void loop() {
        while (!closed) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            Path dir = dirs.get(key);
            for (WatchEvent<?> ev : key.pollEvents()) {
                if (ev.kind() == StandardWatchEventKinds.OVERFLOW) {
                    overflowSeq = seq.incrementAndGet();
                    continue;
                }
                if (dir == null || !(ev.context() instanceof Path name)) {
                    continue;
                }
                Path p = dir.resolve(name);
                if (dir.equals(syncDir)) {
                    CountDownLatch l = syncs.get(name.toString());
                    if (l != null) {
                        l.countDown();
                    }
                    continue;
                }
                consider(p);
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    registerTree(p, true);
                }
            }
            if (!key.reset()) {
                dirs.remove(key);
            }
        }
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
        boolean git = p.getFileName() != null && p.getFileName().toString().equals(".git");
        if (git || policy.protectedGlob(p) != null) {
            synchronized (seen) {
                seen.add(new Seen(seq.incrementAndGet(), p));
                if (seen.size() > 10_000) {
                    seen.remove(0);
                }
            }
        }
    }

    private void registerTree(Path root, boolean fresh) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                    String n = d.getFileName() == null ? "" : d.getFileName().toString();
                    if (!d.equals(root) && fresh) {
                        consider(d);
                    }
                    if (n.equals(".git") || d.equals(policy.workspace().resolve(".mono-agent"))) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    try {
                        register(d);
                    } catch (IOException e) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                    if (fresh) {
                        consider(f);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // a root that vanished: nothing to watch there
        }
    }

    private void register(Path d) throws IOException {
        WatchKey k = d.register(service, StandardWatchEventKinds.ENTRY_CREATE);
        dirs.put(k, d);
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
