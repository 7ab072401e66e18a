package dev.monoagent.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command may touch of its surroundings: its output streams, working directory and environment. Tests build
 * one with string writers and a temp dir; {@link Main} builds the real one.
 *
 * @param interactive whether stdin is a terminal (commands never prompt otherwise)
 */
public record CliContext(PrintWriter out, PrintWriter err, Path cwd, Map<String, String> env, boolean interactive) {
    public CliContext {
        env = Map.copyOf(env);
    }

    /**
     * {@code text} as every human view prints untrusted output (a tool's stdout, the model's words): with its terminal
     * control sequences escaped ({@link dev.monoagent.common.Printable#terminal}), also when stdout is a pipe (a
     * {@code | cat} or a CI log still reaches a terminal). The exact bytes are in each command's {@code --json}.
     */
    String shown(String text) {
        return dev.monoagent.common.Printable.terminal(text);
    }
}
