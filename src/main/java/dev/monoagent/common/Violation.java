package dev.monoagent.common;

import java.time.Instant;

/**
 * Something the sandbox or a tool refused (or detected after the fact), attributed to the tool call that caused it.
 *
 * @param time    when it was seen
 * @param tier    how we know: observed by the engine, detected by a scan, or inferred from output
 * @param kind    write, network, read or other
 * @param runId   the run, or null outside a run
 * @param callId  the tool call, or null
 * @param tool    the tool name ({@code Bash}, {@code Write}, {@code sandbox-check}, ...)
 * @param command the command text or a short description of the call
 * @param target  the path or host:port that was refused (a display hint for engine events, never a policy input)
 * @param reason  why it was refused, in words
 */
public record Violation(Instant time, Tier tier, Kind kind, String runId, String callId, String tool, String command,
                        String target, String reason) {

    /** How a violation became known. */
    public enum Tier { OBSERVED, DETECTED, INFERRED }

    /** What was attempted. */
    public enum Kind { WRITE, NETWORK, READ, OTHER }
}
