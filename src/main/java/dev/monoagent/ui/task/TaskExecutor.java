package dev.monoagent.ui.task;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The one way the workbench does background work. View-models submit blocking work here and get their callbacks on
 * the UI thread; nothing else creates threads. The app uses {@link FxTaskExecutor}; tests use
 * {@link DirectTaskExecutor}, which runs everything on the calling thread so view-models are tested synchronously.
 */
public interface TaskExecutor {

    /**
     * Runs {@code work} in the background, then {@code onSuccess} or {@code onFailure} on the UI thread.
     *
     * @return a handle that cancels (interrupts) the work
     */
    <T> Cancellable submit(String name, Callable<T> work, Consumer<? super T> onSuccess,
                           Consumer<? super Throwable> onFailure);

    /** Runs {@code r} on the UI thread (at once when already there). */
    void runOnUi(Runnable r);

    /**
     * Posts {@code r} to the UI thread behind the work already queued there, never inline, even on the UI thread (so
     * work arriving meanwhile can join it). Defaults to {@link #runOnUi}.
     */
    default void runLater(Runnable r) {
        runOnUi(r);
    }

    /** Runs {@code r} on the UI thread once {@code delayNanos} have passed. Defaults to {@link #runLater}. */
    default void runOnUiAfter(long delayNanos, Runnable r) {
        runLater(r);
    }

    /**
     * Runs {@code r} on the UI thread at the start of the next frame, after the current frame has been laid out and
     * rendered: how long UI work (an output flood) yields to rendering and input. Defaults to {@link #runOnUi}.
     */
    default void runOnNextFrame(Runnable r) {
        runOnUi(r);
    }

    /** A plain executor for long-lived loops (file watcher, control endpoint). */
    Executor background();

    /** Stops accepting work and interrupts running tasks. */
    void shutdown();

    /** A handle to running work. */
    @FunctionalInterface
    interface Cancellable {
        void cancel();

        Cancellable DONE = () -> { };
    }
}
