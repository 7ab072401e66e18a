package dev.monoagent.ui.model;

import java.time.Instant;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * A user, assistant or system message, a turn's reasoning summary, or one block of a long assistant message. Streamed assistant text grows in
 * blocks of at most {@link TranscriptModel#BLOCK_CHARS} characters, each its own transcript row, so the (virtualised)
 * transcript lays out the block that changed and the rows on screen, never the whole answer: a wrapped label's layout
 * costs time in proportion to its text. A block after the first is a {@link #continuation()} of the one before.
 */
public final class MessageEntry extends TranscriptEntry {
    /** Who spoke. */
    public enum Role { USER, ASSISTANT, SYSTEM, REASONING }

    private final Role role;
    private final boolean continuation;
    private final ReadOnlyStringWrapper text;
    private final ReadOnlyBooleanWrapper continued = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper streaming = new ReadOnlyBooleanWrapper();
    /** A reasoning summary is shown collapsed (one line) until opened. */
    private final javafx.beans.property.BooleanProperty expanded = new javafx.beans.property.SimpleBooleanProperty();

    public MessageEntry(Instant time, Role role, String text) {
        this(time, role, text, false);
    }

    MessageEntry(Instant time, Role role, String text, boolean continuation) {
        super(time);
        this.role = role;
        this.continuation = continuation;
        this.text = new ReadOnlyStringWrapper(text);
    }

    public Role role() {
        return role;
    }

    /** True for the second and later blocks of one assistant message. */
    public boolean continuation() {
        return continuation;
    }

    /** True when a later block continues this one (the view joins them into one bubble). */
    public ReadOnlyBooleanProperty continuedProperty() {
        return continued.getReadOnlyProperty();
    }

    void setContinued(boolean c) {
        continued.set(c);
    }

    /**
     * True while this block is where a streaming answer grows (the last block of the open assistant message); false
     * once a later block continues it or the message ends. The view lets a streaming row grow into blank space.
     */
    public ReadOnlyBooleanProperty streamingProperty() {
        return streaming.getReadOnlyProperty();
    }

    void setStreaming(boolean s) {
        streaming.set(s);
    }

    void setText(String t) {
        if (!t.equals(text.get())) {
            text.set(t);
        }
    }

    /** Whether a reasoning summary shows its whole text (the view's toggle). */
    public javafx.beans.property.BooleanProperty expandedProperty() {
        return expanded;
    }

    public ReadOnlyStringProperty textProperty() {
        return text.getReadOnlyProperty();
    }
}
