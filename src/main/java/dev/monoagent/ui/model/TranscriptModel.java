package dev.monoagent.ui.model;

import dev.monoagent.common.Event;
import dev.monoagent.model.Item;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The transcript: renders the event stream as messages and tool-call cards. Output chunks go to their card by
 * {@code callId}; a violation is attached to its call's card (an inline marker) or, when it has no call, becomes a
 * system line. {@link #reveal} asks the view to scroll to a card (from the violations inspector). Streamed assistant
 * text is buffered and shown as soon as the UI thread gets to it, laid out at once by the view's hook, within a
 * per-frame budget ({@link StreamPacer}); a model sends a delta per token, and deltas that wait together are one update.
 */
public final class TranscriptModel {
    /** Longest block of a streamed assistant message (see {@link MessageEntry}). */
    static final int BLOCK_CHARS = 1024;

    private final ObservableList<TranscriptEntry> entries = FXCollections.observableArrayList();
    private final Map<String, ToolCard> cards = new HashMap<>();
    private final ReadOnlyObjectWrapper<ToolCard> revealed = new ReadOnlyObjectWrapper<>();
    private final StreamPacer pacer;
    private Consumer<MessageEntry> layout = m -> { };
    /** The blocks of the assistant message streaming now (empty when none is open), oldest first. */
    private final List<MessageEntry> blocks = new ArrayList<>();
    /** Streamed text not shown yet (it joins the open message's blocks at the next showing). */
    private final StringBuilder pending = new StringBuilder();
    private boolean showScheduled;
    /** The reasoning summary streaming now (one collapsible line per stretch of reasoning), or null. */
    private MessageEntry reasoning;
    private boolean turnHadText;
    private String lastState;

    /** Applies streamed text at once (tests, tools without a frame clock). */
    public TranscriptModel() {
        this(Runnable::run, (nanos, r) -> r.run(), System::nanoTime, System::nanoTime);
    }

    /**
     * @param soon  posts its argument to the UI thread behind what is queued there (the executor's runLater)
     * @param after runs its runnable on the UI thread after the given nanoseconds (the executor's runOnUiAfter)
     * @param clock nanoseconds, monotonic (paces the showings of streamed text)
     * @param cpu   the calling (UI) thread's CPU time in nanoseconds (what a showing costs)
     */
    public TranscriptModel(Consumer<Runnable> soon, BiConsumer<Long, Runnable> after, LongSupplier clock,
                           LongSupplier cpu) {
        this.pacer = new StreamPacer(soon, after, clock, cpu);
    }

    /**
     * The view's hook that lays out a block whose text just changed, now (CSS and layout of its node), so streamed
     * text is on the laid-out node when the runnable that showed it ends rather than at the next pulse.
     */
    public void layoutWith(Consumer<MessageEntry> layoutNow) {
        this.layout = layoutNow;
    }

    /** Applies one event (UI thread). */
    public void onEvent(Event e) {
        switch (e) {
            case Event.RunStarted r -> system(r, "Run " + r.runId() + " started in " + r.workspace());
            case Event.RunFinished r -> system(r, "Run " + r.runId() + " finished: " + r.status().wire());
            case Event.RunHeader h -> { /* the run log's first line; the sandbox panel shows the same facts */ }
            case Event.UserMessage m -> {
                closeAssistant();
                entries.add(new MessageEntry(m.time(), MessageEntry.Role.USER, m.text()));
            }
            case Event.ReasoningDelta r -> {
                if (reasoning == null) {
                    closeAssistant();
                    reasoning = new MessageEntry(r.time(), MessageEntry.Role.REASONING, "");
                    entries.add(reasoning);
                }
                reasoning.setText(reasoning.textProperty().get() + r.text());
            }
            case Event.AssistantDelta d -> {
                reasoning = null;
                if (blocks.isEmpty()) {
                    MessageEntry first = new MessageEntry(d.time(), MessageEntry.Role.ASSISTANT, "");
                    first.setStreaming(true);
                    entries.add(first);
                    blocks.add(first);
                }
                turnHadText = true;
                pending.append(d.text());
                if (!showScheduled) {
                    showScheduled = true;
                    pacer.schedule(() -> {
                        MessageEntry tail = showBuffered();
                        if (tail != null) {
                            layout.accept(tail);
                        }
                    });
                }
            }
            case Event.ToolCallStarted s -> {
                closeAssistant();
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
                    system(v, "Violation: " + v.violation().kind() + " " + (v.violation().aggregated()
                            ? v.violation().more() + " aggregated" : dev.monoagent.common.Printable.line(v.violation().target()))
                            + " — " + dev.monoagent.common.Printable.line(v.violation().reason()));
                }
            }
            case Event.NetworkAllowed a -> system(a, "Allowed network" + (a.callId() == null ? "" : " (" + a.tool()
                    + " " + a.callId() + ")") + ": " + dev.monoagent.common.Printable.line(a.describe())
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
                reasoning = null;
                if (!blocks.isEmpty()) {
                    pending.setLength(0);
                    setTurnText(m.text() == null ? "" : m.text()); // the turn's whole text is authoritative
                } else if (!turnHadText && m.text() != null && !m.text().isBlank()) {
                    entries.add(new MessageEntry(m.time(), MessageEntry.Role.ASSISTANT, m.text())); // not streamed
                }
                endBlocks();
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

    /** Shows the text streamed since the last showing (one change per block); returns the block it ends in. */
    private MessageEntry showBuffered() {
        showScheduled = false;
        if (pending.isEmpty() || blocks.isEmpty()) {
            return null;
        }
        MessageEntry tail = blocks.get(blocks.size() - 1);
        String text = tail.textProperty().get() + pending;
        pending.setLength(0);
        setTail(text);
        return blocks.get(blocks.size() - 1);
    }

    /** Sets the open message's tail block to {@code text}, starting new blocks while it is longer than a block. */
    private void setTail(String text) {
        MessageEntry tail = blocks.get(blocks.size() - 1);
        while (text.length() > BLOCK_CHARS) {
            int cut = cut(text);
            tail.setText(text.substring(0, cut));
            text = text.substring(cut);
            MessageEntry next = new MessageEntry(tail.time(), MessageEntry.Role.ASSISTANT, "", true);
            tail.setContinued(true);
            tail.setStreaming(false);
            next.setStreaming(true);
            entries.add(entries.indexOf(tail) + 1, next);
            blocks.add(next);
            tail = next;
        }
        tail.setText(text);
    }

    /** Replaces the open message's text: its blocks become the blocks of {@code all}, surplus ones are dropped. */
    private void setTurnText(String all) {
        int i = 0;
        String rest = all;
        while (i < blocks.size() - 1 && rest.length() > BLOCK_CHARS) {
            int cut = cut(rest);
            blocks.get(i).setText(rest.substring(0, cut));
            rest = rest.substring(cut);
            i++;
        }
        while (blocks.size() > i + 1) {
            entries.remove(blocks.remove(blocks.size() - 1));
        }
        blocks.get(i).setContinued(false);
        blocks.get(i).setStreaming(true);
        setTail(rest);
    }

    /**
     * Where a text longer than a block is cut: after its last line break within the block (if in the block's second
     * half), else after its last space, else at the block's length. It depends on the first {@link #BLOCK_CHARS}
     * characters only, so a message cut as it streams and the same message cut whole give the same blocks.
     */
    static int cut(String text) {
        int nl = text.lastIndexOf('\n', BLOCK_CHARS - 1);
        if (nl >= BLOCK_CHARS / 2) {
            return nl + 1;
        }
        int sp = text.lastIndexOf(' ', BLOCK_CHARS - 1);
        return sp > 0 ? sp + 1 : BLOCK_CHARS;
    }

    /** Ends the open assistant message (something else happened): what is still buffered is shown now. */
    private void closeAssistant() {
        reasoning = null;
        if (!blocks.isEmpty() && !pending.isEmpty()) {
            showBuffered();
        }
        pending.setLength(0);
        endBlocks();
    }

    /** The open message ends: no block of it streams any more. */
    private void endBlocks() {
        if (!blocks.isEmpty()) {
            blocks.get(blocks.size() - 1).setStreaming(false);
        }
        blocks.clear();
    }

    private void system(Event e, String text) {
        closeAssistant();
        entries.add(new MessageEntry(e.time(), MessageEntry.Role.SYSTEM, text));
    }

    /** Empties the transcript (a new conversation, or one picked in the history, replaces it). */
    public void clear() {
        closeAssistant();
        pending.setLength(0);
        turnHadText = false;
        cards.clear();
        entries.clear();
        lastState = null;
    }

    /**
     * Shows a saved conversation in place of what the transcript held: its user turns, the assistant's text and
     * each tool call as a card with the output the model saw (the conversation keeps no times or durations, so every
     * entry carries {@code at}, the conversation's last save). Reasoning items are the provider's opaque state and
     * are not shown.
     */
    public void showConversation(String id, Instant at, List<Item> items) {
        clear();
        long turns = items.stream().filter(i -> i instanceof Item.UserText).count();
        entries.add(new MessageEntry(at, MessageEntry.Role.SYSTEM, "Conversation " + id + " (" + turns
                + (turns == 1 ? " turn" : " turns") + "): the next prompt continues it"));
        for (Item i : items) {
            switch (i) {
                case Item.UserText u -> entries.add(new MessageEntry(at, MessageEntry.Role.USER, u.text()));
                case Item.AssistantText a -> {
                    if (!a.text().isBlank()) {
                        entries.add(new MessageEntry(at, MessageEntry.Role.ASSISTANT, a.text()));
                    }
                }
                case Item.ToolCall c -> {
                    ToolCard card = new ToolCard(at, null, c.callId(), c.name(), c.arguments());
                    card.expandedProperty().set(false); // a past call: its output one click away
                    cards.put(c.callId(), card);
                    entries.add(card);
                }
                case Item.ToolOutput o -> {
                    ToolCard card = cards.get(o.callId());
                    if (card != null) {
                        card.appendOutput(o.output());
                        card.finish(o.isError() ? "failed" : "ok", o.output(), -1);
                    }
                }
                case Item.Reasoning r -> { /* opaque provider state */ }
            }
        }
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
