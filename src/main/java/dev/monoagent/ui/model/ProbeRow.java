package dev.monoagent.ui.model;

/**
 * One probe line in the sandbox panel.
 *
 * @param id     probe id ({@code engine}, {@code outside-write-denied}, ...)
 * @param state  PENDING while the check runs, then PASS or FAIL
 * @param detail the probe's one-line detail
 * @param millis how long it took
 */
public record ProbeRow(String id, State state, String detail, long millis) {
    /** Row states. */
    public enum State { PENDING, PASS, FAIL }
}
