package dev.monoagent.common;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How a tool call ended: {@code ok} or one stable failure code. A command that ran and exited nonzero is still
 * {@link #OK} (the exit code is in the result's data). The wire names are what {@code --json}, the run log and the
 * model see.
 */
public enum ToolOutcome {
    OK("ok"),
    SANDBOX_PREPARE_FAILED("sandbox_prepare_failed"),
    DENIED_BY_POLICY("denied_by_policy"),
    INVALID_ARGUMENTS("invalid_arguments"),
    NOT_FOUND("not_found"),
    TIMEOUT("timeout"),
    TOO_LARGE("too_large"),
    IS_DIRECTORY("is_directory"),
    NO_MATCH("no_match"),
    AMBIGUOUS_MATCH("ambiguous_match"),
    TOOL_NOT_ALLOWED("tool_not_allowed"),
    INVALID_TOOL_POLICY("invalid_tool_policy"),
    FAILED("failed");

    private final String wire;

    ToolOutcome(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    public boolean ok() {
        return this == OK;
    }

    /** The value for a wire name, or {@link #FAILED} for an unknown one (an older or newer peer). */
    @JsonCreator
    public static ToolOutcome fromWire(String w) {
        for (ToolOutcome o : values()) {
            if (o.wire.equals(w)) {
                return o;
            }
        }
        return FAILED;
    }
}
