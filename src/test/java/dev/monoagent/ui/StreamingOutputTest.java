package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ToolCallReply;
import dev.monoagent.common.Event;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.sandbox.TestEngine;
import dev.monoagent.ui.model.ToolCard;
import dev.monoagent.ui.model.TranscriptModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long command's output reaches the transcript card while it runs: the real engine streams the pipe, the Bash tool
 * publishes {@code ToolOutput} on the service's bus, the transcript model appends it to the card. The command prints
 * a line every 200 ms; its first line must be in the card while the card still says {@code running}.
 */
class StreamingOutputTest {
    @TempDir
    Path tmp;

    @Test
    void firstLineShowsInTheCardBeforeTheCommandEnds() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        TranscriptModel transcript = new TranscriptModel();
        LinkedBlockingQueue<Event> inbox = new LinkedBlockingQueue<>();
        try (AgentService service = AgentService.of(RealEngine.config(ws), TestEngine.env())) {
            service.events().subscribe(inbox::add);
            assertTrue(service.openEngineNow().status().ready(), String.valueOf(service.sandboxStatus().reason()));
            TaskExecutor.Task<ToolCallReply> call = service.executor().submit("long-command", () -> service.callTool(
                    "Bash", "{\"command\":\"for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i; sleep 0.2; done\"}",
                    "r1", "c1"));
            boolean seenWhileRunning = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !call.future().isDone()) {
                Event e = inbox.poll(50, TimeUnit.MILLISECONDS);
                if (e == null) {
                    continue;
                }
                transcript.onEvent(e);
                ToolCard card = transcript.card("c1");
                if (card != null && card.outputLines().contains("line1")) {
                    assertEquals(ToolCard.RUNNING, card.statusProperty().get(), "the card must still be running");
                    assertTrue(!card.outputLines().contains("line10"), "not the whole output at once");
                    seenWhileRunning = true;
                    break;
                }
            }
            assertTrue(seenWhileRunning, "the first line never reached the card while the command ran");
            ToolCallReply reply = call.future().get(60, TimeUnit.SECONDS);
            assertEquals("ok", reply.outcome().wire(), reply.text());
            for (Event e; (e = inbox.poll()) != null; ) {
                transcript.onEvent(e);
            }
            ToolCard card = transcript.card("c1");
            assertNotNull(card);
            assertEquals("ok", card.statusProperty().get());
            assertEquals(10, card.outputLines().stream().filter(l -> l.startsWith("line")).count(),
                    card.outputLines().toString());
        }
    }
}
