package dev.monoagent.ui.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class EventPumpTest {
    /** Queues UI runnables so the test decides when the "UI thread" runs. */
    static final class ManualUi implements TaskExecutor {
        final List<Runnable> pending = new ArrayList<>();

        @Override
        public <T> Cancellable submit(String n, Callable<T> w, Consumer<? super T> ok, Consumer<? super Throwable> f) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runOnUi(Runnable r) {
            pending.add(r);
        }

        @Override
        public Executor background() {
            return Runnable::run;
        }

        @Override
        public void shutdown() { }

        void runAll() {
            while (!pending.isEmpty()) {
                pending.remove(0).run();
            }
        }
    }

    @Test
    void floodOfOutputBecomesOneMergedEventPerCallInOrder() {
        ManualUi ui = new ManualUi();
        List<Event> got = new ArrayList<>();
        EventPump pump = new EventPump(ui, got::add);
        Instant t = Instant.now();
        pump.accept(new Event.ToolCallStarted(t, "r", "c", "Bash", "{}"));
        for (int i = 0; i < 1000; i++) {
            pump.accept(new Event.ToolOutput(t, "r", "c", i + "\n"));
        }
        pump.accept(new Event.ToolCallFinished(t, "r", "c", "Bash", dev.monoagent.common.ToolOutcome.OK, "", null, 1));
        assertEquals(1, ui.pending.size(), "only one drain is scheduled at a time");
        ui.runAll();
        assertEquals(Event.ToolCallStarted.class, got.get(0).getClass());
        assertEquals(Event.ToolCallFinished.class, got.get(got.size() - 1).getClass());
        List<Event> outputs = got.subList(1, got.size() - 1);
        assertTrue(outputs.size() <= 1002 / EventPump.MAX_BATCH + 1, "merged: " + outputs.size());
        StringBuilder all = new StringBuilder();
        outputs.forEach(e -> all.append(((Event.ToolOutput) e).text()));
        String[] lines = all.toString().split("\n");
        assertEquals(1000, lines.length);
        assertEquals("999", lines[999]);
    }

    @Test
    void eventsAfterADrainScheduleAnotherOne() {
        ManualUi ui = new ManualUi();
        List<Event> got = new ArrayList<>();
        EventPump pump = new EventPump(ui, got::add);
        pump.accept(new Event.RunFinished(Instant.now(), "r", dev.monoagent.common.RunStatus.COMPLETED));
        ui.runAll();
        pump.accept(new Event.RunFinished(Instant.now(), "r", dev.monoagent.common.RunStatus.COMPLETED));
        assertEquals(1, ui.pending.size());
        ui.runAll();
        assertEquals(2, got.size());
    }
}
