package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.ui.FakeSandbox;
import dev.monoagent.ui.task.DirectTaskExecutor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsoleModelTest {
    @TempDir
    Path ws;

    private final List<Event> events = new ArrayList<>();

    private ConsoleModel console() {
        ConsoleModel[] self = new ConsoleModel[1];
        self[0] = ConsoleModel.command(new FakeSandbox(ws), new DirectTaskExecutor(), e -> {
            events.add(e);
            self[0].onEvent(e);
        }, "run-1");
        return self[0];
    }

    @Test
    void historyWalksBackAndForward() {
        ConsoleModel c = console();
        for (String cmd : List.of("echo a", "echo b")) {
            c.inputProperty().set(cmd);
            c.submit();
        }
        c.historyPrevious();
        assertEquals("echo b", c.inputProperty().get());
        c.historyPrevious();
        c.historyPrevious();
        assertEquals("echo a", c.inputProperty().get());
        c.historyNext();
        assertEquals("echo b", c.inputProperty().get());
        c.historyNext();
        assertEquals("", c.inputProperty().get());
    }

    @Test
    void blankInputRunsNothing() {
        ConsoleModel c = console();
        c.inputProperty().set("   ");
        c.submit();
        assertTrue(events.isEmpty());
    }

    @Test
    void aCallIsPublishedAsStartedOutputFinishedAttributedToTheRun() {
        ConsoleModel c = console();
        c.inputProperty().set("echo hi");
        c.submit();
        assertEquals(List.of(Event.ToolCallStarted.class, Event.ToolOutput.class, Event.ToolCallFinished.class),
                events.stream().map(Object::getClass).toList());
        Event.ToolCallStarted s = (Event.ToolCallStarted) events.get(0);
        assertEquals("run-1", s.runId());
        assertEquals("Bash", s.tool());
        assertEquals(List.of("$ echo hi", "hi"), c.lines().stream().map(ConsoleLine::text).toList());
    }

    @Test
    void multiLineInputIsShownWithContinuationPrompts() {
        ConsoleModel[] self = new ConsoleModel[1];
        FakeSandbox fake = new FakeSandbox(ws);
        self[0] = ConsoleModel.repl(fake, new DirectTaskExecutor(), e -> self[0].onEvent(e), "run-1");
        self[0].inputProperty().set("const a = 1;\nconst b = 2;");
        self[0].submit();
        assertEquals("> const a = 1;", self[0].lines().get(0).text());
        assertEquals("… const b = 2;", self[0].lines().get(1).text());
    }
}
