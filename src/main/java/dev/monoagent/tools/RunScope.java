package dev.monoagent.tools;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Resources that live as long as one run (the NodeRepl process). Tools look them up by key and create them lazily;
 * {@link #close()} at run end closes them all, newest first.
 */
public final class RunScope implements AutoCloseable {
    private final String runId;
    private final Map<String, AutoCloseable> resources = new LinkedHashMap<>();
    private boolean closed;

    public RunScope(String runId) {
        this.runId = runId;
    }

    public String runId() {
        return runId;
    }

    /** The resource under {@code key}, created by {@code factory} on first use. */
    public synchronized <T extends AutoCloseable> T get(String key, Class<T> type, Supplier<T> factory) {
        if (closed) {
            throw new IllegalStateException("run " + runId + " has ended");
        }
        AutoCloseable r = resources.get(key);
        if (r == null) {
            r = factory.get();
            resources.put(key, r);
        }
        return type.cast(r);
    }

    /** The resource under {@code key} if it exists. */
    public synchronized <T extends AutoCloseable> T peek(String key, Class<T> type) {
        return type.cast(resources.get(key));
    }

    /** Closes and forgets one resource (e.g. a REPL whose state was lost). */
    public synchronized void discard(String key) {
        AutoCloseable r = resources.remove(key);
        closeQuietly(r);
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        var list = new java.util.ArrayList<>(resources.values());
        java.util.Collections.reverse(list);
        resources.clear();
        list.forEach(RunScope::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable r) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (Exception ignored) {
            // closing at run end is best effort; the process is killed either way
        }
    }
}
