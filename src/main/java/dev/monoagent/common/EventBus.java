package dev.monoagent.common;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one event bus of a service: producers (engine, tools, agent loop, UI actions) publish {@link Event}s, and every
 * consumer subscribed — the run log, the CLI printers, the window — sees each event once, in publish order per
 * producer thread. Delivery is synchronous on the publisher's thread, so consumers must be quick and thread-safe
 * (the window hands events to its UI thread through its own pump). A consumer that throws is logged and skipped; it
 * never breaks the producer or the other consumers.
 */
public final class EventBus implements EventSink {
    private static final System.Logger LOG = System.getLogger(EventBus.class.getName());

    private final List<EventSink> consumers = new CopyOnWriteArrayList<>();

    /** A registration; closing it stops delivery to that consumer. */
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    public Subscription subscribe(EventSink consumer) {
        consumers.add(consumer);
        return () -> consumers.remove(consumer);
    }

    @Override
    public void accept(Event event) {
        for (EventSink c : consumers) {
            try {
                c.accept(event);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "event consumer failed on " + event.getClass().getSimpleName(),
                        e);
            }
        }
    }
}
