package dev.monoagent.ui.model;

import dev.monoagent.common.Effective;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * The status-bar sandbox badge: one of three levels and the exact words a reviewer reads.
 *
 * @param level ENFORCING (green), BLOCKED (red), UNSAFE (red, host fallback), OFF (red), UNVERIFIED (amber)
 * @param text  e.g. {@code Sandbox: ENFORCING (verified 10:42)}
 */
public record Badge(Level level, String text) {
    private static final DateTimeFormatter HHMM = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneId.systemDefault());

    /** Badge levels; the view maps each to a style class. */
    public enum Level { ENFORCING, UNVERIFIED, BLOCKED, UNSAFE, OFF }

    /** The words that must always show in full: {@code BLOCKED} without its reason, otherwise the whole text. */
    public String headline() {
        return level == Level.BLOCKED && text.startsWith(BLOCKED_PREFIX) ? "BLOCKED" : text;
    }

    /** The reason after {@code BLOCKED — }, or null: shown beside the headline and allowed to shorten. */
    public String detail() {
        return level == Level.BLOCKED && text.startsWith(BLOCKED_PREFIX) ? text.substring(BLOCKED_PREFIX.length()) : null;
    }

    private static final String BLOCKED_PREFIX = "BLOCKED — ";

    /** The badge for an effective state, its reason, and the last passing check. */
    public static Badge of(Effective effective, String reason, Instant verified) {
        return switch (effective) {
            case NATIVE -> verified == null
                    ? new Badge(Level.UNVERIFIED, "Sandbox: NOT YET VERIFIED — run Check")
                    : new Badge(Level.ENFORCING, "Sandbox: ENFORCING (verified " + HHMM.format(verified) + ")");
            case UNSAFE_HOST_PROCESS -> new Badge(Level.UNSAFE, "UNSAFE HOST FALLBACK");
            case OFF -> new Badge(Level.OFF, "Sandbox: OFF — commands run on the host");
            case BLOCKED -> new Badge(Level.BLOCKED, BLOCKED_PREFIX + (reason == null ? "sandbox not proven" : reason));
        };
    }
}
