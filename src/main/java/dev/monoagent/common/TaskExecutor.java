package dev.monoagent.common;

import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place the product creates threads (the architecture test forbids it everywhere else). Work is submitted by
 * name and comes back as a {@link Task}: a future that can be cancelled, and cancelling interrupts the worker, which
 * reaches blocking reads (SSE streams, process pipes), {@code Process.waitFor} and sleeps between retries.
 *
 * <p>Two kinds of worker: {@link #submit} runs service work (an agent run, opening the engine, a tool call) on a named
 * thread; {@link #io} runs blocking-I/O pumps (process stdout/stderr, the engine bridge's reader, the control client's
 * watchdog) on their own daemon threads, so a pump blocked in a pipe read never holds up other work. One instance per service ({@link #create}); the process-wide
 * {@link #shared()} serves code that has no service at hand (the CLI's one-shot commands, the sandbox's pipe pumps).
 */
public final class TaskExecutor implements AutoCloseable {
    private static final TaskExecutor SHARED = new TaskExecutor("mono-agent");

    private final ExecutorService workers;
    private final ExecutorService io;

    private TaskExecutor(String prefix) {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, prefix + "-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.workers = Executors.newCachedThreadPool(tf);
        // platform threads, not virtual ones: a pipe read blocks its carrier, and a few long-lived engine bridges
        // reading their pipes were seen to occupy every carrier and starve the rest (a control socket never answered)
        AtomicInteger m = new AtomicInteger();
        this.io = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, prefix + "-io-" + m.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** A new executor for one service; closing it interrupts its running work. */
    public static TaskExecutor create(String prefix) {
        return new TaskExecutor(prefix);
    }

    /** The process-wide executor (never closed). */
    public static TaskExecutor shared() {
        return SHARED;
    }

    /** Running work: a future whose {@link #cancel()} interrupts the worker. */
    public static final class Task<T> {
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private volatile Future<?> running;

        /** Interrupts the work; the result completes with a {@link CancellationException}. */
        public void cancel() {
            Future<?> f = running;
            if (f != null) {
                f.cancel(true);
            }
            result.cancel(true);
        }

        public boolean isCancelled() {
            return result.isCancelled();
        }

        /** The outcome as a future (completes exceptionally with the work's exception). */
        public CompletableFuture<T> future() {
            return result;
        }
    }

    /** Runs {@code work} on a worker thread named after the task. */
    public <T> Task<T> submit(String name, Callable<T> work) {
        return start(workers, name, work);
    }

    /** Runs a blocking I/O pump (read a pipe to its end) on an I/O thread. */
    public <T> Task<T> io(String name, Callable<T> work) {
        return start(io, name, work);
    }

    private static <T> Task<T> start(ExecutorService pool, String name, Callable<T> work) {
        Task<T> task = new Task<>();
        task.running = pool.submit(() -> {
            Thread me = Thread.currentThread();
            String before = me.getName();
            me.setName(before + " [" + name + "]");
            try {
                task.result.complete(work.call());
            } catch (Throwable e) {
                task.result.completeExceptionally(e);
            } finally {
                me.setName(before);
            }
        });
        return task;
    }

    /**
     * Runs {@code work} when the JVM shuts down (Ctrl-C on a CLI command), on a hook thread made here like every other
     * thread; closing the returned handle removes the hook again.
     */
    public static AutoCloseable onShutdown(String name, Runnable work) {
        Thread hook = new Thread(work, "mono-agent-shutdown-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
        return () -> {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook runs
            }
        };
    }

    /** The workers as a plain executor (for APIs that take one: long-lived accept loops, watchers). */
    public Executor executor() {
        return r -> workers.execute(r);
    }

    /** The I/O pumps as a plain executor. */
    public Executor ioExecutor() {
        return r -> io.execute(r);
    }

    /** Stops accepting work and interrupts what runs. The shared executor is never closed. */
    @Override
    public void close() {
        if (this == SHARED) {
            return;
        }
        workers.shutdownNow();
        io.shutdownNow();
    }
}
