package dev.monoagent.ui.task;

import java.lang.System.Logger.Level;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;

/**
 * The application's executor: a pool of daemon worker threads for blocking work, callbacks marshalled to the JavaFX
 * application thread with {@link Platform#runLater}. The only place in the workbench that creates threads.
 */
public final class FxTaskExecutor implements TaskExecutor {
    private static final System.Logger LOG = System.getLogger(FxTaskExecutor.class.getName());

    private final ExecutorService pool;
    private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> nextFrame =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final FrameTimer frameTimer = new FrameTimer();
    private boolean frameTimerRunning;

    public FxTaskExecutor() {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, "mono-agent-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.pool = Executors.newCachedThreadPool(tf);
    }

    @Override
    public <T> Cancellable submit(String name, Callable<T> work, Consumer<? super T> onSuccess,
                                  Consumer<? super Throwable> onFailure) {
        Future<?> f = pool.submit(() -> {
            try {
                T result = work.call();
                runOnUi(() -> onSuccess.accept(result));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.log(Level.DEBUG, name + " interrupted");
            } catch (Exception | Error e) {
                LOG.log(Level.DEBUG, name + " failed", e);
                runOnUi(() -> onFailure.accept(e));
            }
        });
        return () -> f.cancel(true);
    }

    @Override
    public void runOnUi(Runnable r) {
        if (Platform.isFxApplicationThread()) {
            r.run();
        } else {
            Platform.runLater(r);
        }
    }

    @Override
    public void runOnNextFrame(Runnable r) {
        nextFrame.add(r);
        runOnUi(() -> {
            if (!frameTimerRunning) {
                frameTimerRunning = true;
                frameTimer.start();
            }
        });
    }

    /** Runs the queued next-frame work once per pulse; stops itself when idle. */
    private final class FrameTimer extends AnimationTimer {
        @Override
        public void handle(long now) {
            int n = nextFrame.size();
            if (n == 0) {
                stop();
                frameTimerRunning = false;
                return;
            }
            for (int i = 0; i < n; i++) {
                Runnable r = nextFrame.poll();
                if (r != null) {
                    r.run();
                }
            }
        }
    }

    @Override
    public Executor background() {
        return pool;
    }

    @Override
    public void shutdown() {
        pool.shutdownNow();
    }
}
