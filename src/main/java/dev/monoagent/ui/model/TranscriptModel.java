package dev.monoagent.ui.model;

import dev.monoagent.common.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The transcript: renders the event stream as messages and tool-call cards. Output chunks go to their card by
 * {@code callId}; a violation is attached to its call's card (an inline marker) or, when it has no call, becomes a
 * system line. {@link #reveal} asks the view to scroll to a card (from the violations inspector). Streamed assistant
 * text is buffered and shown once per frame (a model sends a delta per token; the label changes once per pulse).
 */
public final class TranscriptModel {
    private final ObservableList<TranscriptEntry> entries = FXCollections.observableArrayList();
    private final Map<String, ToolCard> cards = new HashMap<>();
    private final ReadOnlyObjectWrapper<ToolCard> revealed = new ReadOnlyObjectWrapper<>();
    private final Consumer<Runnable> nextFrame;
    private final List<MessageEntry> unshown = new ArrayList<>();
    private MessageEntry openAssistant;
    private boolean turnHadText;
    private String lastState;

    /** Applies streamed text at once (tests, tools without a frame clock). */
    public TranscriptModel() {
        this(Runnable::run);
    }

    /** @param nextFrame runs its argument at the start of the next frame (the executor's runOnNextFrame) */
    public TranscriptModel(Consumer<Runnable> nextFrame) {
        this.nextFrame = nextFrame;
    }

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
                turnHadText = true;
                if (openAssistant.buffer(d.text())) {
                    unshown.add(openAssistant);
                    if (unshown.size() == 1) {
                        nextFrame.accept(this::showBuffered);
                    }
                }
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
            case Event.NetworkAllowed a -> system(a, "Allowed network" + (a.callId() == null ? "" : " (" + a.tool()
                    + " " + a.callId() + ")") + ": " + a.describe()
                    + "; localhost mode grants host loopback listeners, narrow them with sandbox.network.localhostPorts");
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
            case Event.AssistantMessage m -> {
                if (openAssistant != null) {
                    openAssistant.replace(m.text()); // the turn's whole text is authoritative
                } else if (!turnHadText && m.text() != null && !m.text().isBlank()) {
                    entries.add(new MessageEntry(m.time(), MessageEntry.Role.ASSISTANT, m.text())); // not streamed
                }
                openAssistant = null;
                turnHadText = false;
            }
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

    /** Shows the text buffered since the last frame (one label change per message per frame). */
    private void showBuffered() {
        for (MessageEntry m : unshown) {
            m.flush();
        }
        unshown.clear();
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
