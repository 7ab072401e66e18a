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
}
