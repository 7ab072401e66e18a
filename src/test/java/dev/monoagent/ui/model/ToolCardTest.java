package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCardTest {
    private final ToolCard card = new ToolCard(Instant.now(), "r", "c", "Bash", "{}");

    @Test
    void partialLinesContinueAcrossChunks() {
        card.appendOutput("ab");
        card.appendOutput("c\nde");
        card.appendOutput("f\n");
        card.appendOutput("g");
        assertEquals(List.of("abc", "def", "g"), card.outputLines());
    }

    @Test
    void emptyLinesAreKept() {
        card.appendOutput("a\n\nb\n");
        assertEquals(List.of("a", "", "b"), card.outputLines());
    }

    @Test
    void chunkStartingWithNewlineClosesTheOpenLine() {
        card.appendOutput("a");
        card.appendOutput("\nb");
        assertEquals(List.of("a", "b"), card.outputLines());
    }
}
