package dev.monoagent.ui.task;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Runs everything on the calling thread, in order: the test executor. View-model tests call a command and assert the
 * result on the next line. {@link #background()} also runs inline, so long-lived loops must not be started with it.
 */
public final class DirectTaskExecutor implements TaskExecutor {
    @Override
    public <T> Cancellable submit(String name, Callable<T> work, Consumer<? super T> onSuccess,
                                  Consumer<? super Throwable> onFailure) {
        T result;
        try {
            result = work.call();
        } catch (Exception e) {
            onFailure.accept(e);
            return Cancellable.DONE;
        }
        onSuccess.accept(result);
        return Cancellable.DONE;
    }

    @Override
    public void runOnUi(Runnable r) {
        r.run();
    }

    @Override
    public Executor background() {
        return Runnable::run;
    }

    @Override
    public void shutdown() {
        // nothing runs asynchronously
    }
}
