package dev.monoagent.ui.model;

/**
 * One line of a console.
 *
 * @param kind   INPUT (what the reviewer typed), OUTPUT, ERROR (failure code + text), INFO, VIOLATION
 * @param text   the line
 * @param callId the tool call it belongs to, or null
 */
public record ConsoleLine(Kind kind, String text, String callId) {
    /** Line kinds; the view maps each to a style class. */
    public enum Kind { INPUT, OUTPUT, ERROR, INFO, VIOLATION, ALLOWED }
}
