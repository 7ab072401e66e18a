package dev.monoagent.ui.task;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Watches the directories the tree has loaded and delivers changed paths in debounced batches (one UI callback per
 * ~150 ms of activity), so a command that touches thousands of files causes a handful of tree refreshes, not
 * thousands. Runs its loop on the executor's background pool.
 */
public final class RepoWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RepoWatcher.class.getName());
    static final long DEBOUNCE_MS = 150;

    private final WatchService ws;
    private final TaskExecutor executor;
    private final Consumer<List<Path>> onChanges;
    private final Set<Path> watched = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public RepoWatcher(TaskExecutor executor, Consumer<List<Path>> onChanges) throws IOException {
        this.ws = FileSystems.getDefault().newWatchService();
        this.executor = executor;
        this.onChanges = onChanges;
        executor.background().execute(this::loop);
    }

    /** Starts watching {@code dir} (idempotent). */
    public void watch(Path dir) {
        if (closed || !watched.add(dir)) {
            return;
        }
        try {
            dir.register(ws, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                    StandardWatchEventKinds.ENTRY_MODIFY);
        } catch (IOException e) {
            watched.remove(dir);
            LOG.log(Level.DEBUG, "cannot watch " + dir + ": " + e.getMessage());
        }
    }

    private void loop() {
        try {
            while (!closed) {
                WatchKey first = ws.take();
                Set<Path> batch = new LinkedHashSet<>();
                drain(first, batch);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEBOUNCE_MS);
                long left;
                while ((left = deadline - System.nanoTime()) > 0) {
                    WatchKey k = ws.poll(left, TimeUnit.NANOSECONDS);
                    if (k == null) {
                        break;
                    }
                    drain(k, batch);
                }
                List<Path> out = new ArrayList<>(batch);
                executor.runOnUi(() -> onChanges.accept(out));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ClosedWatchServiceException e) {
            LOG.log(Level.DEBUG, "watcher closed");
        }
    }

    private void drain(WatchKey key, Set<Path> batch) {
        Path dir = (Path) key.watchable();
        for (WatchEvent<?> ev : key.pollEvents()) {
            if (ev.context() instanceof Path rel) {
                batch.add(dir.resolve(rel));
            } else {
                batch.add(dir.resolve("."));
            }
        }
        if (!key.reset()) {
            watched.remove(dir);
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        ws.close();
    }
}
