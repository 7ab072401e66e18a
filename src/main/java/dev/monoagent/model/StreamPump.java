package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Drives one SDK stream on the calling thread, whichever SDK: the SDK's handler feeds an {@link EventPump}, the
 * caller maps each event, a cancel or an early result aborts the HTTP exchange through {@link HttpCalls} (so the
 * provider stops generating), and whatever the SDK throws is classified by {@code classify}.
 */
final class StreamPump {
    /** How long a body may take to end after its terminal event before we drop the connection. */
    static final long DRAIN_MS = 250;

    private StreamPump() {}

    /** What the end of the body means: a result, or (usually) a failure. */
    @FunctionalInterface
    interface AtEnd<R> {
        R end() throws ProviderFailure;
    }

    /** One mapped event: a non-null result ends the stream. */
    @FunctionalInterface
    interface EventHandler<R> {
        R on(JsonNode event) throws ProviderFailure;
    }

    /**
     * @param tag       the attempt's {@link HttpCalls} tag
     * @param subscribe starts the SDK stream, feeding the pump
     * @param close     closes the SDK's stream object
     * @param atEnd     decides when the body ends before a result
     */
    static <R> R run(String tag, Consumer<EventPump<JsonNode>> subscribe, Runnable close, CancelSignal cancel,
                     EventHandler<R> onEvent, AtEnd<R> atEnd, Function<Throwable, ProviderFailure> classify)
            throws ProviderFailure {
        EventPump<JsonNode> pump = new EventPump<>();
        try (AutoCloseable reg = cancel.onCancel(() -> {
            HttpCalls.INSTANCE.cancel(tag);
            close.run();
            pump.cancel();
        })) {
            subscribe.accept(pump);
            JsonNode ev;
            while ((ev = pump.take()) != null) {
                R done = onEvent.on(ev);
                if (done != null) {
                    // A body that ends right after its terminal event leaves a reusable connection; one that stays
                    // open (seen in the wild) is dropped, not just the reader, so it cannot hold us.
                    if (!pump.drainsWithin(DRAIN_MS)) {
                        HttpCalls.INSTANCE.cancel(tag);
                        close.run();
                    }
                    return done;
                }
            }
            return atEnd.end();
        } catch (ProviderFailure e) {
            HttpCalls.INSTANCE.cancel(tag);
            throw e;
        } catch (EventPump.CancelledException e) {
            throw ProviderFailure.permanent(FailureKind.CANCELLED, 0, "cancelled");
        } catch (Throwable t) {
            HttpCalls.INSTANCE.cancel(tag);
            close.run();
            if (cancel.isCancelled()) {
                throw ProviderFailure.permanent(FailureKind.CANCELLED, 0, "cancelled");
            }
            throw classify.apply(t);
        } finally {
            HttpCalls.INSTANCE.forget(tag);
        }
    }

    /** A fresh per-attempt tag for {@link HttpCalls}. */
    static String newTag() {
        return java.util.UUID.randomUUID().toString();
    }

    /** The innermost cause's class and message, short, for user text. */
    static String rootMessage(Throwable e) {
        Throwable r = e;
        while (r.getCause() != null && r.getCause() != r) {
            r = r.getCause();
        }
        String m = r.getMessage();
        return r.getClass().getSimpleName() + (m == null ? "" : ": " + (m.length() > 200 ? m.substring(0, 200) : m));
    }

    /** Unwraps future wrappers. */
    static Throwable unwrap(Throwable t) {
        Throwable e = t;
        while ((e instanceof java.util.concurrent.CompletionException
                || e instanceof java.util.concurrent.ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
