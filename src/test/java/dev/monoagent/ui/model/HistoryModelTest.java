package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.Conversation;
import dev.monoagent.agent.RunResult;
import dev.monoagent.common.RunStatus;
import dev.monoagent.model.Item;
import dev.monoagent.ui.task.DirectTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window's conversation history without a window: conversations saved under {@code .mono-agent/sessions/} (the
 * real files, through {@link Conversation#list}), listed newest first; opening one shows it and makes the next prompt
 * continue it; "New conversation" empties the transcript; neither while a run is active; a run's end re-reads it.
 */
class HistoryModelTest {
    @TempDir
    Path ws;

    /** The scripted agent port of the prompt box's test, reading conversations from the workspace's files. */
    final class Port extends PromptModelTest.ScriptedPort {
        @Override
        public List<Conversation.Summary> conversations() throws Exception {
            return Conversation.list(ws);
        }

        @Override
        public List<Item> conversation(String id) throws Exception {
            return Conversation.load(ws, id).items();
        }

        @Override
        public Started start(String prompt, String conversationId) {
            Started s = super.start(prompt, conversationId);
            return new Started(s.runId(), conversationId == null ? "conv-new" : conversationId, s.result());
        }
    }

    static Conversation saved(Path ws, String runId, Item... items) throws Exception {
        Conversation c = Conversation.create(ws);
        c.items().addAll(List.of(items));
        c.save(runId);
        Thread.sleep(5); // distinct "updated" times
        return c;
    }

    @Test
    void listsNewestFirstOpensOneToContinueItAndStartsANewOne() throws Exception {
        Conversation older = saved(ws, "run-a", new Item.UserText("What does the config protect?\nIn detail."),
                new Item.AssistantText("Let me read it."),
                new Item.ToolCall("call_1", "Read", "{\"file_path\":\"mono-agent.config.json\"}"),
                new Item.ToolOutput("call_1", "{\"sandbox\": {}}", false),
                new Item.AssistantText("It protects .env."), new Item.UserText("And .git?"),
                new Item.AssistantText("Its config and hooks."));
        Conversation newer = saved(ws, "run-b", new Item.UserText("List the ports"), new Item.AssistantText("8080."));
        Files.writeString(Conversation.dir(ws).resolve("torn.jsonl"), "{\"type\":\"conv");

        Port port = new Port();
        DirectTaskExecutor ex = new DirectTaskExecutor();
        TranscriptModel transcript = new TranscriptModel();
        PromptModel prompt = new PromptModel(port, ex);
        int[] shown = {0};
        HistoryModel h = new HistoryModel(port, ex, transcript, prompt, () -> shown[0]++);
        h.refresh();
        assertEquals(List.of(newer.id(), older.id()), h.rows().stream().map(Conversation.Summary::id).toList(),
                "newest first; the torn file is left out");
        assertEquals("What does the config protect?", HistoryModel.describe(h.rows().get(1), ZoneOffset.UTC)
                .lines().findFirst().orElseThrow());
        assertTrue(HistoryModel.describe(h.rows().get(1), ZoneOffset.UTC).contains("2 turns"));
        assertTrue(h.statusProperty().get().startsWith("2 conversations"), h.statusProperty().get());

        h.open(h.rows().get(1));
        assertEquals(older.id(), prompt.conversationProperty().get());
        assertTrue(prompt.continueConversationProperty().get());
        assertEquals(1, shown[0], "the transcript tab comes forward");
        List<String> texts = transcript.entries().stream().filter(e -> e instanceof MessageEntry)
                .map(e -> ((MessageEntry) e).role() + ":" + ((MessageEntry) e).textProperty().get()).toList();
        assertEquals(List.of("SYSTEM:Conversation " + older.id() + " (2 turns): the next prompt continues it",
                "USER:What does the config protect?\nIn detail.", "ASSISTANT:Let me read it.",
                "ASSISTANT:It protects .env.", "USER:And .git?", "ASSISTANT:Its config and hooks."), texts);
        ToolCard card = transcript.card("call_1");
        assertEquals("ok", card.statusProperty().get());
        assertEquals(List.of("{\"sandbox\": {}}"), card.outputLines());

        // the next prompt continues it
        prompt.textProperty().set("and the hooks?");
        assertTrue(prompt.send());
        assertEquals(older.id(), port.conversations.get(0));
        // while the run is active the history does not switch conversations
        h.open(h.rows().get(0));
        assertEquals(older.id(), prompt.conversationProperty().get());
        assertTrue(h.statusProperty().get().startsWith("A run is in progress"), h.statusProperty().get());
        h.newConversation();
        assertEquals(older.id(), prompt.conversationProperty().get());
        // the run ends: the list is read again (a conversation saved meanwhile appears)
        Conversation third = saved(ws, "run-c", new Item.UserText("third"));
        port.results.get(0).complete(new RunResult("run-1", older.id(), RunStatus.COMPLETED, "ok", null, null));
        assertEquals(third.id(), h.rows().get(0).id());

        h.newConversation();
        assertTrue(transcript.entries().isEmpty(), "a new conversation starts with an empty transcript");
        assertNull(transcript.card("call_1"));
        assertNull(prompt.conversationProperty().get());
        prompt.textProperty().set("fresh start");
        assertTrue(prompt.send());
        assertNull(port.conversations.get(1), "the next prompt starts a new conversation");
        assertEquals("conv-new", prompt.conversationProperty().get(), "which the prompts after it continue");
    }

    @Test
    void anEmptyWorkspaceSaysHowTheFirstConversationStarts() {
        Port port = new Port();
        DirectTaskExecutor ex = new DirectTaskExecutor();
        HistoryModel h = new HistoryModel(port, ex, new TranscriptModel(), new PromptModel(port, ex), () -> { });
        h.refresh();
        assertTrue(h.rows().isEmpty());
        assertTrue(h.statusProperty().get().startsWith("No conversations yet"), h.statusProperty().get());
        assertFalse(h.statusProperty().get().contains("Exception"));
    }
}
