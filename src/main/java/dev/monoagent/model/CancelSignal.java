package dev.monoagent.model;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A one-way stop switch for a model turn. Clients register hooks that abort the HTTP exchange, so a cancel reaches
 * a stream blocked in a socket read (a thread interrupt does not).
 */
public final class CancelSignal {
    private final List<Runnable> hooks = new CopyOnWriteArrayList<>();
    private volatile boolean cancelled;

    /** Stops the turn; idempotent; runs every registered hook once. */
    public void cancel() {
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
        }
        for (Runnable h : hooks) {
            h.run();
        }
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Runs {@code hook} on cancel (at once when already cancelled).
     *
     * @return closes the registration
     */
    public AutoCloseable onCancel(Runnable hook) {
        hooks.add(hook);
        if (cancelled && hooks.remove(hook)) {
            hook.run();
        }
        return () -> hooks.remove(hook);
    }
}
