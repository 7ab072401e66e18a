package dev.monoagent.common;

/**
 * One line of the sandbox self-check.
 *
 * @param id      stable probe id ({@code engine}, {@code outside-write-denied}, ...)
 * @param passed  whether the probe proved what it claims
 * @param detail  one human line ("Outside write denied.")
 * @param millis  how long the probe took
 */
public record ProbeResult(String id, boolean passed, String detail, long millis) {}
