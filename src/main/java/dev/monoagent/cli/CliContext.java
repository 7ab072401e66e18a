package dev.monoagent.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command may touch of its surroundings: its output streams, working directory and environment. Tests build
 * one with string writers and a temp dir; {@link Main} builds the real one.
 *
 * @param interactive whether stdin is a terminal (commands never prompt otherwise)
 * @param terminal    whether stdout is a terminal too: untrusted output (a tool's stdout, the model's words) is then
 *                    printed with its terminal control sequences escaped ({@link dev.monoagent.common.Printable#terminal})
 */
public record CliContext(PrintWriter out, PrintWriter err, Path cwd, Map<String, String> env, boolean interactive,
                         boolean terminal) {
    public CliContext {
        env = Map.copyOf(env);
    }

    /** A context whose stdout is not a terminal (output printed byte for byte). */
    public CliContext(PrintWriter out, PrintWriter err, Path cwd, Map<String, String> env, boolean interactive) {
        this(out, err, cwd, env, interactive, false);
    }

    /** {@code text} as this context prints untrusted output: escaped for a terminal, exact otherwise. */
    String shown(String text) {
        return terminal ? dev.monoagent.common.Printable.terminal(text) : text;
    }
}
