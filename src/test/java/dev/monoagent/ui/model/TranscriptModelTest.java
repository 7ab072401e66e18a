package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TranscriptModelTest {
    private final Instant t = Instant.parse("2026-11-29T10:00:00Z");
    private final TranscriptModel m = new TranscriptModel();

    @Test
    void assistantDeltasGrowOneMessageUntilSomethingElseHappens() {
        m.onEvent(new Event.UserMessage(t, "r", "hi"));
        m.onEvent(new Event.AssistantDelta(t, "r", "Hel"));
        m.onEvent(new Event.AssistantDelta(t, "r", "lo"));
        m.onEvent(new Event.ToolCallStarted(t, "r", "c1", "Read", "{}"));
        m.onEvent(new Event.AssistantDelta(t, "r", "Done"));
        assertEquals(4, m.entries().size());
        assertEquals("Hello", ((MessageEntry) m.entries().get(1)).textProperty().get());
        assertEquals("Done", ((MessageEntry) m.entries().get(3)).textProperty().get());
    }

    @Test
    void streamedTextChangesTheMessageOncePerFrameAndTheTurnsWholeTextWins() {
        List<Runnable> frame = new java.util.ArrayList<>();
        TranscriptModel paced = new TranscriptModel(frame::add);
        paced.onEvent(new Event.AssistantDelta(t, "r", "Hel"));
        paced.onEvent(new Event.AssistantDelta(t, "r", "lo "));
        paced.onEvent(new Event.AssistantDelta(t, "r", "wor"));
        MessageEntry msg = (MessageEntry) paced.entries().get(0);
        List<String> shown = new java.util.ArrayList<>();
        msg.textProperty().addListener((o, a, b) -> shown.add(b));
        assertEquals("", msg.textProperty().get(), "nothing until the frame");
        assertEquals(1, frame.size(), "one flush per frame, not one per delta");
        frame.remove(0).run();
        assertEquals(List.of("Hello wor"), shown);
        paced.onEvent(new Event.AssistantDelta(t, "r", "ld"));
        paced.onEvent(new Event.AssistantMessage(t, "r", "Hello world", true));
        frame.remove(0).run();
        assertEquals("Hello world", msg.textProperty().get());
        assertEquals(1, paced.entries().size());
        // a turn whose text was not streamed still shows
        paced.onEvent(new Event.AssistantMessage(t, "r", "Not streamed", true));
        assertEquals("Not streamed", ((MessageEntry) paced.entries().get(1)).textProperty().get());
    }

    @Test
    void cardCollectsOutputStatusDurationAndViolations() {
        m.onEvent(new Event.ToolCallStarted(t, "r", "c1", "Bash", "{\"command\":\"x\"}"));
        m.onEvent(new Event.ToolOutput(t, "r", "c1", "a\nb"));
        Violation v = new Violation(t, Violation.Tier.OBSERVED, Violation.Kind.NETWORK, "r", "c1", "Bash", "x",
                "example.com:443", "blocked");
        m.onEvent(new Event.ViolationObserved(t, v));
        m.onEvent(new Event.ToolCallFinished(t, "r", "c1", "Bash", dev.monoagent.common.ToolOutcome.OK, "boom",
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("exitCode", 7), 12));
        ToolCard c = m.card("c1");
        assertEquals(List.of("a", "b"), c.outputLines());
        assertEquals("exit 7", c.statusProperty().get());
        assertEquals(12, c.durationMsProperty().get());
        assertEquals(List.of(v), c.violations());
    }

    @Test
    void violationWithoutACallBecomesASystemLine() {
        m.onEvent(new Event.ViolationObserved(t, new Violation(t, Violation.Tier.DETECTED, Violation.Kind.WRITE,
                null, null, "scan", "", ".env.local", "quarantined")));
        assertTrue(((MessageEntry) m.entries().get(0)).textProperty().get().contains(".env.local"));
    }

    @Test
    void repeatedSandboxStateIsShownOnce() {
        m.onEvent(new Event.SandboxStateChanged(t, dev.monoagent.common.Effective.NATIVE, null));
        m.onEvent(new Event.SandboxStateChanged(t, dev.monoagent.common.Effective.NATIVE, null));
        m.onEvent(new Event.SandboxStateChanged(t, dev.monoagent.common.Effective.BLOCKED, "gone"));
        assertEquals(2, m.entries().size());
    }

    @Test
    void revealUnknownCallIsRefused() {
        assertFalse(m.reveal("nope"));
    }

    /** Allowed host-loopback traffic shows as a line of its own on the transcript, not as a violation on a card. */
    @Test
    void allowedTrafficIsShownAsAllowedNotAsAViolation() {
        m.onEvent(new Event.ToolCallStarted(t, "r", "c9", "Bash", "{}"));
        m.onEvent(new Event.NetworkAllowed(t, "r", "c9", "Bash", "curl", "127.0.0.1", 8080, "node (pid 5)"));
        ToolCard card = (ToolCard) m.entries().get(0);
        assertTrue(card.violations().isEmpty(), "allowed traffic is not a violation of the call");
        String line = ((MessageEntry) m.entries().get(1)).textProperty().get();
        assertTrue(line.startsWith("Allowed network (Bash c9): allowed connection to host port 8080")
                && line.contains("node (pid 5)"), line);
    }
}
