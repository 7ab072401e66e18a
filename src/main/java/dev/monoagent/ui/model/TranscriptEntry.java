package dev.monoagent.ui.model;

import java.time.Instant;

/** One block of the transcript: a message or a tool-call card. */
public abstract sealed class TranscriptEntry permits MessageEntry, ToolCard {
    private final Instant time;

    protected TranscriptEntry(Instant time) {
        this.time = time;
    }

    public Instant time() {
        return time;
    }
}
