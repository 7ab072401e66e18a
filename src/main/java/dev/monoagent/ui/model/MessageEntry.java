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

    public MessageEntry(Instant time, Role role, String text) {
        super(time);
        this.role = role;
        this.text = new ReadOnlyStringWrapper(text);
    }

    public Role role() {
        return role;
    }

    void append(String more) {
        text.set(text.get() + more);
    }

    public ReadOnlyStringProperty textProperty() {
        return text.getReadOnlyProperty();
    }
}
