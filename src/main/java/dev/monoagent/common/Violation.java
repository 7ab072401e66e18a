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
 * @param more    how many further records of the same call, tier and kind were aggregated into this one (counted,
 *                not kept one by one: a command cannot flood the record and hide one violation among thousands); 0
 *                for a record of one event
 */
public record Violation(Instant time, Tier tier, Kind kind, String runId, String callId, String tool, String command,
                        String target, String reason,
                        @com.fasterxml.jackson.annotation.JsonInclude(
                                com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT) long more) {

    /** A record of one event. */
    public Violation(Instant time, Tier tier, Kind kind, String runId, String callId, String tool, String command,
                     String target, String reason) {
        this(time, tier, kind, runId, callId, tool, command, target, reason, 0);
    }

    /** Whether this record stands for {@link #more} aggregated ones. */
    public boolean aggregated() {
        return more > 0;
    }

    /**
     * The one human wording of this record, for the CLI's stderr, its run listings and the workbench's command console:
     * {@code violation: <tier> <kind> <target> (<reason>)}, or {@code violations: <n> more <tier> <kind> aggregated
     * (<reason>)} for a summary. Plain words, so every font draws it; both starts are {@link Printable} record starts,
     * so command output printed beside it cannot pass for one. Target and reason are escaped: a file name may hold
     * anything.
     */
    public String recordLine() {
        String t = tier.name().toLowerCase(java.util.Locale.ROOT);
        String k = kind.name().toLowerCase(java.util.Locale.ROOT);
        if (aggregated()) {
            return "violations: " + more + " more " + t + " " + k + " aggregated (" + Printable.line(reason) + ")";
        }
        return "violation: " + t + " " + k + " " + (target == null ? "-" : Printable.line(target)) + " ("
                + Printable.line(reason) + ")";
    }

    /** How a violation became known. */
    public enum Tier { OBSERVED, DETECTED, INFERRED }

    /** What was attempted. */
    public enum Kind { WRITE, NETWORK, READ, OTHER }
}
