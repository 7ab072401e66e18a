package dev.monoagent.memory;

import java.time.Instant;
import java.time.LocalDate;

/**
 * One journal entry as written in {@code daily/DATE.md}.
 *
 * @param hash content hash ({@link MemoryText#hash}), the entry's identity
 * @param time when it was appended (UTC)
 * @param kind {@code turn} (host observation of a completed turn) or {@code remember} (the Remember tool)
 * @param text normalized text
 * @param date the daily file it lives in
 * @param line 1-based line of its header in that file
 */
public record JournalEntry(String hash, Instant time, String kind, String text, LocalDate date, int line) {
    public static final String TURN = "turn";
    public static final String REMEMBER = "remember";

    /** {@code daily/2026-11-30.md:12}: where a reader finds it. */
    public String source() {
        return Journal.DAILY + "/" + date + ".md:" + line;
    }
}
