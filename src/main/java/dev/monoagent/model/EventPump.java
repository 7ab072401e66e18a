package dev.monoagent.model;

import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Hands an SDK's asynchronous stream to the calling thread: the SDK's handler thread offers events, the caller
 * takes them one by one, so all mapping and the sink run on the caller's thread. A cancel unblocks the caller at
 * once (the client also closes the HTTP stream).
 *
 * @param <T> the SDK's event type
 */
final class EventPump<T> {
    private static final Object END = new Object();
    private static final Object CANCELLED = new Object();

    private record Failure(Throwable error) {}

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();

    void offer(T event) {
        queue.add(event);
    }

    void complete(Optional<Throwable> error) {
        queue.add(error.<Object>map(Failure::new).orElse(END));
    }

    void cancel() {
        queue.add(CANCELLED);
    }

    /**
     * The next event; null at the end of the stream.
     *
     * @throws CancelledException when cancelled
     * @throws Throwable          the stream's failure
     */
    @SuppressWarnings("unchecked")
    T take() throws Throwable {
        Object o = queue.take();
        if (o == END) {
            queue.add(END);
            return null;
        }
        if (o == CANCELLED) {
            queue.add(CANCELLED);
            throw new CancelledException();
        }
        if (o instanceof Failure f) {
            queue.add(f);
            throw f.error();
        }
        return (T) o;
    }

    /**
     * After the terminal event: waits up to {@code ms} for the body to end on its own (events after it are
     * dropped). True when it ended cleanly, so the connection can be reused.
     */
    boolean drainsWithin(long ms) throws InterruptedException {
        long until = System.nanoTime() + ms * 1_000_000;
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            Object o = queue.poll(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            if (o == END) {
                return true;
            }
            if (o == null || o == CANCELLED || o instanceof Failure) {
                return false;
            }
        }
        return false;
    }

    /** The caller cancelled while waiting. */
    static final class CancelledException extends Exception {
        private static final long serialVersionUID = 1L;

        CancelledException() {
            super("cancelled", null, false, false);
        }
    }
}
