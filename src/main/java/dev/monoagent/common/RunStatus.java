package dev.monoagent.common;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** How a run ended ({@code RunFinished.status}). */
public enum RunStatus {
    /** The run did what it set out to do (the model stopped, or the CLI command ran). */
    COMPLETED("completed"),
    /** The run stopped on an error (provider, sandbox, tool infrastructure). */
    FAILED("failed"),
    /** The user (or shutdown) cancelled it. */
    CANCELLED("cancelled"),
    /**
     * The instance serving the run was stopped ({@code mono-agent stop}) while the run was still open: a run of
     * {@code tools call}s through an instance has no end of its own, and one stopped with its instance did not crash.
     */
    STOPPED("stopped");

    private final String wire;

    RunStatus(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    @JsonCreator
    public static RunStatus fromWire(String w) {
        for (RunStatus s : values()) {
            if (s.wire.equals(w)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown run status: " + w);
    }
}
