package dev.monoagent.ui.model;

import dev.monoagent.common.Event;
import java.util.HashMap;
import java.util.Map;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The transcript: renders the event stream as messages and tool-call cards. Output chunks go to their card by
 * {@code callId}; a violation is attached to its call's card (an inline marker) or, when it has no call, becomes a
 * system line. {@link #reveal} asks the view to scroll to a card (from the violations inspector).
 */
public final class TranscriptModel {
    private final ObservableList<TranscriptEntry> entries = FXCollections.observableArrayList();
    private final Map<String, ToolCard> cards = new HashMap<>();
    private final ReadOnlyObjectWrapper<ToolCard> revealed = new ReadOnlyObjectWrapper<>();
    private MessageEntry openAssistant;
    private String lastState;

    /** Applies one event (UI thread). */
    public void onEvent(Event e) {
        switch (e) {
            case Event.RunStarted r -> system(r, "Run " + r.runId() + " started in " + r.workspace());
            case Event.RunFinished r -> system(r, "Run " + r.runId() + " finished: " + r.status().wire());
            case Event.RunHeader h -> { /* the run log's first line; the sandbox panel shows the same facts */ }
            case Event.UserMessage m -> {
                openAssistant = null;
                entries.add(new MessageEntry(m.time(), MessageEntry.Role.USER, m.text()));
            }
            case Event.AssistantDelta d -> {
                if (openAssistant == null) {
                    openAssistant = new MessageEntry(d.time(), MessageEntry.Role.ASSISTANT, "");
                    entries.add(openAssistant);
                }
                openAssistant.append(d.text());
            }
            case Event.ToolCallStarted s -> {
                openAssistant = null;
                ToolCard c = new ToolCard(s.time(), s.runId(), s.callId(), s.tool(), s.argsJson());
                cards.put(s.callId(), c);
                entries.add(c);
            }
            case Event.ToolOutput o -> {
                ToolCard c = cards.get(o.callId());
                if (c != null) {
                    c.appendOutput(o.text());
                }
            }
            case Event.ToolCallFinished f -> {
                ToolCard c = cards.get(f.callId());
                if (c != null) {
                    if (f.outcome().ok() && c.outputLines().isEmpty() && f.text() != null) {
                        // runners that do not stream (the tools facade) deliver the output with the result
                        c.appendOutput(f.text());
                    }
                    c.finish(f.statusWord(), f.text(), f.durationMs());
                }
            }
            case Event.ViolationObserved v -> {
                ToolCard c = v.violation().callId() == null ? null : cards.get(v.violation().callId());
                if (c != null) {
                    c.addViolation(v.violation());
                } else {
                    system(v, "Violation: " + v.violation().kind() + " " + v.violation().target() + " — "
                            + v.violation().reason());
                }
            }
            case Event.SandboxStateChanged s -> {
                String line = "Sandbox is now " + s.effective().wire() + (s.reason() == null ? "" : " — " + s.reason());
                if (!line.equals(lastState)) {
                    lastState = line;
                    system(s, line);
                }
            }
            case Event.SelfCheckFinished s -> system(s, "Sandbox check " + (s.passed() ? "passed" : "FAILED")
                    + " (" + s.results().size() + " probes)");
            case Event.SelfCheckStarted s -> { /* progress is shown in the sandbox panel */ }
            case Event.ProbeFinished p -> { /* shown in the sandbox panel */ }
            case Event.AgentRunStarted a -> { /* the model shows in the prompt box's status, not the transcript */ }
            case Event.ModelCallFinished m -> { /* request metadata: run log and report */ }
            case Event.ModelRetrying m -> system(m, "Model busy (" + m.reason() + "); retrying in "
                    + m.delayMs() + " ms");
            case Event.AssistantMessage m -> openAssistant = null;
            case Event.ContextElided c -> system(c, "Context nearly full: " + c.outputs()
                    + " old tool outputs elided (~" + c.tokensBefore() + " → ~" + c.tokensAfter() + " tokens)");
            case Event.RunFailed f -> system(f, "Run " + f.runId() + " failed: " + f.kind() + " — " + f.message());
            case Event.MemoryRecalled m -> system(m, "Recalled " + m.items() + " memory items (" + m.bytes() + " bytes, "
                    + m.mode() + (m.reason() == null ? "" : ": " + m.reason()) + ")");
            case Event.PolicyChanged c -> system(c, "Sandbox policy " + (c.applied() ? "changed" : "change REFUSED")
                    + (c.weaker() ? " (weaker, " + c.by() + ")" : " (" + c.by() + ")") + ": "
                    + String.join("; ", c.changes()));
        }
    }

    private void system(Event e, String text) {
        openAssistant = null;
        entries.add(new MessageEntry(e.time(), MessageEntry.Role.SYSTEM, text));
    }

    /** Scrolls the transcript to a call's card; returns false when the call is unknown. */
    public boolean reveal(String callId) {
        ToolCard c = cards.get(callId);
        if (c == null) {
            return false;
        }
        c.expandedProperty().set(true);
        revealed.set(null);
        revealed.set(c);
        return true;
    }

    public ToolCard card(String callId) {
        return cards.get(callId);
    }

    public ObservableList<TranscriptEntry> entries() {
        return entries;
    }

    /** The card the view should scroll to and highlight. */
    public ReadOnlyObjectProperty<ToolCard> revealedProperty() {
        return revealed.getReadOnlyProperty();
    }
}
