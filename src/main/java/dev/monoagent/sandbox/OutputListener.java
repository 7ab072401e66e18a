package dev.monoagent.sandbox;

/**
 * Receives a running command's output as it arrives (decoded UTF-8, never splitting a character), before the command
 * ends; the complete, bounded output still comes with the outcome. Called on the pipe pump's thread: must be quick.
 */
@FunctionalInterface
public interface OutputListener {
    /** {@code stderr}: which stream the text came from. */
    void output(boolean stderr, String text);

    OutputListener NONE = (stderr, text) -> { };
}
