package dev.monoagent.ui.task;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Carries events from any thread to the UI thread without flooding it: events queue up, at most one drain is pending
 * on the UI thread at a time, consecutive output chunks of one tool call are merged, and a drain stops after a small
 * time budget and continues on the next frame, so rendering and input get their turn during an output flood.
 */
public final class EventPump implements EventSink {
    /** Longest a single drain may hold the UI thread. */
    static final long BUDGET_NANOS = 6_000_000L;

    /** Events taken per step; with 100-line chunks a step appends ≤ 25,600 lines, a few ms of UI work. */
    static final int MAX_BATCH = 256;

    private final TaskExecutor executor;
    private final Consumer<Event> target;
    private final ConcurrentLinkedQueue<Event> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    public EventPump(TaskExecutor executor, Consumer<Event> target) {
        this.executor = executor;
        this.target = target;
    }

    @Override
    public void accept(Event event) {
        queue.add(event);
        if (scheduled.compareAndSet(false, true)) {
            executor.runOnUi(this::drain);
        }
    }

    private void drain() {
        long deadline = System.nanoTime() + BUDGET_NANOS;
        List<Event> batch = new ArrayList<>();
        while (true) {
            batch.clear();
            for (int i = 0; i < MAX_BATCH; i++) {
                Event e = queue.poll();
                if (e == null) {
                    break;
                }
                batch.add(e);
            }
            if (batch.isEmpty()) {
                scheduled.set(false);
                // an event may have arrived between the last poll and the reset
                if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
                    continue;
                }
                return;
            }
            for (Event e : coalesce(batch)) {
                target.accept(e);
            }
            if (System.nanoTime() > deadline) {
                // out of budget: let this frame render and take input, continue on the next one
                executor.runOnNextFrame(this::drain);
                return;
            }
        }
    }

    private static List<Event> coalesce(List<Event> batch) {
        List<Event> out = new ArrayList<>(batch.size());
        StringBuilder pending = null;
        Event.ToolOutput first = null;
        for (Event e : batch) {
            if (e instanceof Event.ToolOutput o) {
                if (first != null && first.callId().equals(o.callId())) {
                    pending.append(o.text());
                    continue;
                }
                flush(out, first, pending);
                first = o;
                pending = new StringBuilder(o.text());
                continue;
            }
            flush(out, first, pending);
            first = null;
            pending = null;
            out.add(e);
        }
        flush(out, first, pending);
        return out;
    }

    private static void flush(List<Event> out, Event.ToolOutput first, StringBuilder text) {
        if (first != null) {
            out.add(new Event.ToolOutput(first.time(), first.runId(), first.callId(), text.toString()));
        }
    }
}
