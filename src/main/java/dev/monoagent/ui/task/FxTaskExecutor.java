package dev.monoagent.ui.task;

import java.lang.System.Logger.Level;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;

/**
 * The workbench's executor: an adapter over the core {@link dev.monoagent.common.TaskExecutor} (whose workers run the
 * blocking work and whose cancellation interrupts it), with callbacks marshalled to the JavaFX application thread
 * with {@link Platform#runLater}.
 */
public final class FxTaskExecutor implements TaskExecutor {
    private static final System.Logger LOG = System.getLogger(FxTaskExecutor.class.getName());

    private final dev.monoagent.common.TaskExecutor core;
    private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> nextFrame =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final FrameTimer frameTimer = new FrameTimer();
    private boolean frameTimerRunning;

    public FxTaskExecutor() {
        this(dev.monoagent.common.TaskExecutor.create("mono-agent-ui"));
    }

    /** Over a given core executor (the service's). */
    public FxTaskExecutor(dev.monoagent.common.TaskExecutor core) {
        this.core = core;
    }

    @Override
    public <T> Cancellable submit(String name, Callable<T> work, Consumer<? super T> onSuccess,
                                  Consumer<? super Throwable> onFailure) {
        dev.monoagent.common.TaskExecutor.Task<T> task = core.submit(name, work);
        // always posted, never run inline: a task that finished before this line would otherwise complete on the
        // calling (UI) thread at once, ahead of the runLater work its worker posted while running (a check's rows)
        task.future().whenComplete((result, e) -> {
            if (e == null) {
                Platform.runLater(() -> onSuccess.accept(result));
            } else if (task.isCancelled() || e instanceof java.util.concurrent.CancellationException
                    || e instanceof InterruptedException) {
                LOG.log(Level.DEBUG, name + " interrupted");
            } else {
                LOG.log(Level.DEBUG, name + " failed", e);
                Platform.runLater(() -> onFailure.accept(e));
            }
        });
        return task::cancel;
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
    public void runLater(Runnable r) {
        Platform.runLater(r);
    }

    @Override
    public void runOnUiAfter(long delayNanos, Runnable r) {
        // the JDK's shared delay thread posts it: no thread of ours to manage
        java.util.concurrent.CompletableFuture.delayedExecutor(delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS,
                Platform::runLater).execute(r);
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
        return core.executor();
    }

    /** The core executor underneath (for the service core the window shares). */
    public dev.monoagent.common.TaskExecutor core() {
        return core;
    }

    @Override
    public void shutdown() {
        core.close();
    }
}
