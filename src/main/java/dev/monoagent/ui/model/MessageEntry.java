package dev.monoagent.ui.model;

import java.time.Instant;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/** A user, assistant or system message; assistant text grows as deltas stream in. */
public final class MessageEntry extends TranscriptEntry {
    /** Who spoke. */
    public enum Role { USER, ASSISTANT, SYSTEM }

    private final Role role;
    private final ReadOnlyStringWrapper text;
    private StringBuilder pending;

    public MessageEntry(Instant time, Role role, String text) {
        super(time);
        this.role = role;
        this.text = new ReadOnlyStringWrapper(text);
    }

    public Role role() {
        return role;
    }

    /** Buffers streamed text; true when the buffer was empty (the caller schedules a {@link #flush}). */
    boolean buffer(String more) {
        boolean first = pending == null;
        if (first) {
            pending = new StringBuilder();
        }
        pending.append(more);
        return first;
    }

    /** Shows the buffered text. */
    void flush() {
        if (pending != null) {
            text.set(text.get() + pending);
            pending = null;
        }
    }

    /** Replaces the text (the turn's complete message), dropping anything buffered. */
    void replace(String all) {
        pending = null;
        text.set(all);
    }

    public ReadOnlyStringProperty textProperty() {
        return text.getReadOnlyProperty();
    }
}
