package dev.monoagent.ui.model;

import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Decides when streamed assistant text reaches the transcript. Text is shown at once: in a runnable posted behind
 * the events the UI thread is applying now (so deltas that arrived together, or while that runnable waited, become
 * one update), and the transcript's node is laid out in the same runnable instead of at the next pulse. A showing
 * costs a text change and a layout, and a model may stream thousands of deltas a second; so showings keep the UI
 * thread at most a quarter busy: after one that took {@code c}, the next waits until {@code 3c} after it ended (and
 * everything that streamed meanwhile is shown together then). Rendering and input keep the rest of the thread.
 * Rest taken beyond what was owed is banked (up to {@link #MAX_GAP_NANOS}) and pays for the next costly showing: a
 * fast stream's showings cost ≈ 0.3 ms each and come every ~2 ms, so the bank fills; a new block's row (≈ 10 ms,
 * once per KB) then shows on without a 30 ms rest during which every delta waited.
 */
final class StreamPacer {
    /** Idle time after a showing, as a multiple of what it cost (3: at most a quarter of the UI thread). */
    static final int IDLE_FACTOR = 3;
    /** Longest wait imposed after one costly showing (a stall, a GC), so the text never lags by more than this. */
    static final long MAX_GAP_NANOS = 50_000_000L;

    private final Consumer<Runnable> soon;
    private final BiConsumer<Long, Runnable> after;
    private final LongSupplier clock;
    private final LongSupplier cpu;
    /** When the next showing may start (clock time; meaningful once one has run). */
    private long notBefore;
    private boolean shown;
    /**
     * Rest taken beyond what was owed (the stream paused, or a pulse ran first), at most {@link #MAX_GAP_NANOS}: a
     * rare costly showing (a new block's row, ≈ 10 ms) spends it instead of resting 3x its cost while every delta
     * waits; the quarter holds over any stretch longer than that allowance.
     */
    private long banked;

    /**
     * @param soon  posts its argument to the UI thread behind what is queued there (never runs it inline)
     * @param after runs its runnable on the UI thread once the given nanoseconds have passed
     * @param clock nanoseconds, monotonic
     * @param cpu   the UI thread's CPU time in nanoseconds: what a showing costs, without the time the thread spent
     *              descheduled on a loaded machine (which would lengthen the rest for no gain)
     */
    StreamPacer(Consumer<Runnable> soon, BiConsumer<Long, Runnable> after, LongSupplier clock, LongSupplier cpu) {
        this.soon = soon;
        this.after = after;
        this.clock = clock;
        this.cpu = cpu;
    }

    /** Schedules one showing: {@code show} (text change and layout) now, or when the last showing's idle time ends. */
    void schedule(Runnable show) {
        Runnable timed = () -> {
            if (shown) {
                banked = Math.min(MAX_GAP_NANOS, banked + Math.max(0, clock.getAsLong() - notBefore));
            }
            long c0 = cpu.getAsLong();
            show.run();
            long cost = cpu.getAsLong() - c0;
            long rest = Math.min(MAX_GAP_NANOS, IDLE_FACTOR * cost);
            long spent = Math.min(banked, rest);
            banked -= spent;
            notBefore = clock.getAsLong() + rest - spent;
            shown = true;
        };
        long wait = shown ? notBefore - clock.getAsLong() : 0;
        if (wait > 0) {
            after.accept(wait, timed);
        } else {
            soon.accept(timed);
        }
    }
}
