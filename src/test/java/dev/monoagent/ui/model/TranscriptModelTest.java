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
    void streamedTextIsShownAtOnceLaidOutInTheSameRunnableAndDeltasWaitingTogetherAreOneUpdate() {
        List<Runnable> soon = new java.util.ArrayList<>();
        List<Runnable> later = new java.util.ArrayList<>();
        List<String> log = new java.util.ArrayList<>();
        TranscriptModel paced = new TranscriptModel(soon::add, (nanos, r) -> later.add(r), () -> 0L, () -> 0L);
        paced.onEvent(new Event.AssistantDelta(t, "r", "Hel"));
        MessageEntry msg = (MessageEntry) paced.entries().get(0);
        msg.textProperty().addListener((o, a, b) -> log.add("text " + b));
        paced.layoutWith(m -> log.add("layout " + m.textProperty().get()));
        paced.onEvent(new Event.AssistantDelta(t, "r", "lo "));
        paced.onEvent(new Event.AssistantDelta(t, "r", "wor"));
        assertEquals("", msg.textProperty().get(), "nothing before the posted runnable runs");
        assertEquals(1, soon.size(), "one showing for the deltas that wait together, not one per delta");
        soon.remove(0).run();
        assertEquals(List.of("text Hello wor", "layout Hello wor"), log, "shown, then laid out in the same runnable");
        assertTrue(later.isEmpty(), "a showing that cost nothing imposes no wait");
        paced.onEvent(new Event.AssistantDelta(t, "r", "ld"));
        paced.onEvent(new Event.AssistantMessage(t, "r", "Hello world", true));
        soon.remove(0).run();
        assertEquals("Hello world", msg.textProperty().get(), "the turn's whole text wins over what was buffered");
        assertEquals(1, paced.entries().size());
        // a turn whose text was not streamed still shows
        paced.onEvent(new Event.AssistantMessage(t, "r", "Not streamed", true));
        assertEquals("Not streamed", ((MessageEntry) paced.entries().get(1)).textProperty().get());
    }

    @Test
    void afterACostlyShowingTheNextWaitsThreeTimesItsCostAndTakesEverythingThatStreamedMeanwhile() {
        List<Runnable> soon = new java.util.ArrayList<>();
        List<long[]> waits = new java.util.ArrayList<>();
        List<Runnable> later = new java.util.ArrayList<>();
        long[] clock = {1_000_000_000L};
        TranscriptModel paced = new TranscriptModel(soon::add, (nanos, r) -> {
            waits.add(new long[] {nanos});
            later.add(r);
        }, () -> clock[0], () -> clock[0]);
        paced.layoutWith(m -> clock[0] += 2_000_000L); // every showing costs 2 ms of UI thread
        paced.onEvent(new Event.AssistantDelta(t, "r", "a "));
        soon.remove(0).run();
        clock[0] += 1_000_000L; // 1 ms later: within the 6 ms idle time of that showing
        paced.onEvent(new Event.AssistantDelta(t, "r", "b "));
        paced.onEvent(new Event.AssistantDelta(t, "r", "c "));
        assertTrue(soon.isEmpty(), "not at once: the UI thread is resting");
        assertEquals(1, later.size(), "one delayed showing for both deltas");
        assertEquals(5_000_000L, waits.get(0)[0], "until 3 x 2 ms after the last showing ended");
        MessageEntry msg = (MessageEntry) paced.entries().get(0);
        assertEquals("a ", msg.textProperty().get());
        clock[0] += 5_000_000L;
        later.remove(0).run();
        assertEquals("a b c ", msg.textProperty().get());
        clock[0] += 6_000_000L; // the idle time has passed: at once again
        paced.onEvent(new Event.AssistantDelta(t, "r", "d"));
        assertEquals(1, soon.size());
        assertTrue(later.isEmpty());
    }

    @Test
    void restTakenBeyondWhatWasOwedPaysForARareCostlyShowingUpToFiftyMilliseconds() {
        List<Runnable> soon = new java.util.ArrayList<>();
        List<long[]> waits = new java.util.ArrayList<>();
        List<Runnable> later = new java.util.ArrayList<>();
        long[] clock = {1_000_000_000L};
        long[] cost = {1_000_000L};
        TranscriptModel paced = new TranscriptModel(soon::add, (nanos, r) -> {
            waits.add(new long[] {nanos});
            later.add(r);
        }, () -> clock[0], () -> clock[0]);
        paced.layoutWith(b -> clock[0] += cost[0]);
        paced.onEvent(new Event.AssistantDelta(t, "r", "a "));
        soon.remove(0).run(); // 1 ms: 3 ms owed
        clock[0] += 43_000_000L; // the stream pauses: 40 ms rested beyond what was owed
        cost[0] = 10_000_000L; // a costly showing (a new block's row)
        paced.onEvent(new Event.AssistantDelta(t, "r", "b "));
        soon.remove(0).run();
        paced.onEvent(new Event.AssistantDelta(t, "r", "c "));
        assertEquals(1, soon.size(), "30 ms owed, paid from the 40 ms rested: the next delta is shown at once");
        assertTrue(later.isEmpty());
        soon.remove(0).run(); // another 10 ms at once: 30 ms owed, 10 ms left to pay it
        paced.onEvent(new Event.AssistantDelta(t, "r", "d "));
        assertTrue(soon.isEmpty(), "resting again");
        assertEquals(20_000_000L, waits.get(0)[0], "3 x 10 ms owed less the 10 ms left");
        clock[0] += 20_000_000L;
        later.remove(0).run();
        // a long pause banks no more than 50 ms: a 20 ms showing (60 ms owed, capped at 50) spends it all, so the
        // next one rests its whole 50 ms
        clock[0] += 10_000_000_000L;
        cost[0] = 20_000_000L;
        paced.onEvent(new Event.AssistantDelta(t, "r", "e "));
        soon.remove(0).run();
        paced.onEvent(new Event.AssistantDelta(t, "r", "f "));
        soon.remove(0).run();
        paced.onEvent(new Event.AssistantDelta(t, "r", "g"));
        assertTrue(soon.isEmpty());
        assertEquals(50_000_000L, waits.get(1)[0]);
        assertEquals("a b c d e f ", ((MessageEntry) paced.entries().get(0)).textProperty().get());
    }

    @Test
    void onlyTheLastBlockOfTheOpenAnswerStreamsAndNoneOnceTheTurnOrTheAnswerEnds() {
        for (int i = 0; i < 400; i++) {
            m.onEvent(new Event.AssistantDelta(t, "r", "word" + i + " "));
        }
        List<MessageEntry> blocks = m.entries().stream().map(MessageEntry.class::cast).toList();
        assertTrue(blocks.size() > 2, "several blocks: " + blocks.size());
        for (int i = 0; i < blocks.size(); i++) {
            assertEquals(i == blocks.size() - 1, blocks.get(i).streamingProperty().get(), "block " + i);
        }
        String all = blocks.stream().map(b -> b.textProperty().get()).reduce("", String::concat);
        m.onEvent(new Event.AssistantMessage(t, "r", all, true));
        assertTrue(blocks.stream().noneMatch(b -> b.streamingProperty().get()), "the turn ended");
        m.onEvent(new Event.AssistantDelta(t, "r", "next turn"));
        MessageEntry open = (MessageEntry) m.entries().get(m.entries().size() - 1);
        assertTrue(open.streamingProperty().get());
        m.onEvent(new Event.ToolCallStarted(t, "r", "c1", "Read", "{}"));
        assertFalse(open.streamingProperty().get(), "a tool call ends the answer");
        assertFalse(new MessageEntry(t, MessageEntry.Role.ASSISTANT, "not streamed").streamingProperty().get());
    }

    @Test
    void aLongAnswerStreamsInBlocksThatJoinBackToItsTextAndItsWholeTextRecutsThemTheSameWay() {
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 900; i++) {
            String d = i % 97 == 96 ? "line " + i + "\n" : "word" + i + " ";
            all.append(d);
            m.onEvent(new Event.AssistantDelta(t, "r", d));
        }
        List<MessageEntry> blocks = m.entries().stream().map(MessageEntry.class::cast).toList();
        assertTrue(blocks.size() > 3, "several blocks: " + blocks.size());
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < blocks.size(); i++) {
            MessageEntry b = blocks.get(i);
            assertTrue(b.textProperty().get().length() <= TranscriptModel.BLOCK_CHARS, "block " + i);
            assertEquals(i > 0, b.continuation(), "block " + i);
            assertEquals(i < blocks.size() - 1, b.continuedProperty().get(), "block " + i);
            assertTrue(b.textProperty().get().endsWith(" ") || b.textProperty().get().endsWith("\n")
                    || i == blocks.size() - 1, "cut after a space or a line break, never inside a word");
            joined.append(b.textProperty().get());
        }
        assertEquals(all.toString(), joined.toString());
        List<String> before = blocks.stream().map(b -> b.textProperty().get()).toList();
        m.onEvent(new Event.AssistantMessage(t, "r", all.toString(), true));
        assertEquals(before, m.entries().stream().map(e -> ((MessageEntry) e).textProperty().get()).toList(),
                "the same cut whether streamed or whole");
        // a shorter authoritative text drops the surplus blocks
        TranscriptModel other = new TranscriptModel();
        for (int i = 0; i < 900; i++) {
            other.onEvent(new Event.AssistantDelta(t, "r", "word" + i + " "));
        }
        other.onEvent(new Event.AssistantMessage(t, "r", "short", true));
        assertEquals(1, other.entries().size());
        assertEquals("short", ((MessageEntry) other.entries().get(0)).textProperty().get());
        assertFalse(((MessageEntry) other.entries().get(0)).continuedProperty().get());
    }

    @Test
    void aReasoningSummaryIsOneCollapsedLinePerStretchBeforeTheTurnsText() {
        m.onEvent(new Event.UserMessage(t, "r", "why?"));
        m.onEvent(new Event.ReasoningDelta(t, "r", "Look at "));
        m.onEvent(new Event.ReasoningDelta(t, "r", "the config."));
        m.onEvent(new Event.AssistantDelta(t, "r", "Because"));
        m.onEvent(new Event.AssistantMessage(t, "r", "Because", false));
        m.onEvent(new Event.ToolCallStarted(t, "r", "c1", "Read", "{}"));
        m.onEvent(new Event.ReasoningDelta(t, "r", "Now answer."));
        assertEquals(5, m.entries().size());
        MessageEntry first = (MessageEntry) m.entries().get(1);
        assertEquals(MessageEntry.Role.REASONING, first.role());
        assertEquals("Look at the config.", first.textProperty().get());
        assertFalse(first.expandedProperty().get(), "collapsed until opened");
        assertEquals("Because", ((MessageEntry) m.entries().get(2)).textProperty().get());
        MessageEntry second = (MessageEntry) m.entries().get(4);
        assertEquals(MessageEntry.Role.REASONING, second.role());
        assertEquals("Now answer.", second.textProperty().get());
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
