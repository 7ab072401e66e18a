package dev.monoagent.ui.model;

import dev.monoagent.agent.Conversation;
import dev.monoagent.ui.port.AgentPort;
import dev.monoagent.ui.task.TaskExecutor;
import java.util.List;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The window's conversation history: the workspace's conversations under {@code .mono-agent/sessions/}, newest
 * first. Opening one shows its transcript and makes the next prompt continue it; "New conversation" empties the
 * transcript and makes the next prompt start one. Both wait while a run is active (its conversation is busy). The
 * list is read in the background, when the History tab is first shown and again after every run.
 */
public final class HistoryModel {
    private final AgentPort port;
    private final TaskExecutor executor;
    private final TranscriptModel transcript;
    private final PromptModel prompt;
    private final Runnable showTranscript;
    private final ObservableList<Conversation.Summary> rows = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private boolean loaded;

    /** @param showTranscript brings the transcript tab forward (after opening a conversation) */
    public HistoryModel(AgentPort port, TaskExecutor executor, TranscriptModel transcript, PromptModel prompt,
                        Runnable showTranscript) {
        this.port = port;
        this.executor = executor;
        this.transcript = transcript;
        this.prompt = prompt;
        this.showTranscript = showTranscript;
        // a run adds a turn to a conversation (or a new one): the list follows once it has been shown
        prompt.stateProperty().addListener((o, a, b) -> {
            if (b == PromptModel.State.IDLE && loaded) {
                refresh();
            }
        });
    }

    /** Reads the list again (background). */
    public void refresh() {
        loaded = true;
        if (!port.available()) {
            status.set("No agent loop in this window: no conversations.");
            return;
        }
        executor.submit("history", port::conversations, list -> {
            rows.setAll(list);
            status.set(list.isEmpty() ? "No conversations yet: the first prompt starts one (saved under "
                    + ".mono-agent/sessions/)." : list.size() + (list.size() == 1 ? " conversation" : " conversations")
                    + ", newest first. Open one to read it and continue it.");
        }, e -> status.set("Conversations unreadable: " + PromptModel.oneLine(e.getMessage())));
    }

    /** Shows {@code c}'s transcript and makes the next prompt continue it. */
    public void open(Conversation.Summary c) {
        if (prompt.stateProperty().get() != PromptModel.State.IDLE) {
            status.set("A run is in progress: open a conversation when it has ended.");
            return;
        }
        executor.submit("history-open", () -> port.conversation(c.id()), items -> {
            if (prompt.continueWith(c.id())) {
                transcript.showConversation(c.id(), c.updated(), items);
                status.set("Opened " + c.id() + ": the next prompt continues it.");
                showTranscript.run();
            }
        }, e -> status.set("Cannot open " + c.id() + ": " + PromptModel.oneLine(e.getMessage())));
    }

    /** Empties the transcript; the next prompt starts a new conversation. */
    public void newConversation() {
        if (!prompt.startNew()) {
            status.set("A run is in progress: start a new conversation when it has ended.");
            return;
        }
        transcript.clear();
        status.set("The next prompt starts a new conversation.");
        showTranscript.run();
    }

    /** The conversations, newest first. */
    public ObservableList<Conversation.Summary> rows() {
        return rows;
    }

    /** The conversation the next prompt continues (null: a new one). */
    public ReadOnlyStringProperty currentProperty() {
        return prompt.conversationProperty();
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** Shared with the prompt box: open and new are off while a run is active. */
    public javafx.beans.binding.BooleanBinding busyBinding() {
        return prompt.runningBinding();
    }

    /** One row's text: the first prompt (one line, cut), then when and how many turns. */
    public static String describe(Conversation.Summary c, java.time.ZoneId zone) {
        String first = c.firstPrompt() == null ? "(no prompt)" : c.firstPrompt().strip().lines().findFirst()
                .orElse("");
        if (first.length() > 120) {
            first = first.substring(0, 119) + "…";
        }
        String when = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(zone)
                .format(c.updated());
        return first + "\n" + when + "  ·  " + c.turns() + (c.turns() == 1 ? " turn" : " turns") + "  ·  " + c.id();
    }
}
