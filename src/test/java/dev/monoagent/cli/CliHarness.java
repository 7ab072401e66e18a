package dev.monoagent.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

/** Runs the real command tree in-process against a directory and an explicit environment. */
public final class CliHarness {
    /** What a run printed and returned. */
    public record Result(int exit, String out, String err) {}

    private CliHarness() {}

    public static Result run(Path cwd, Map<String, String> env, String... args) {
        return run(false, cwd, env, args);
    }

    /** As above; {@code terminal}: as if stdin and stdout were a terminal. */
    public static Result run(boolean terminal, Path cwd, Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliContext ctx = new CliContext(new PrintWriter(out, true), new PrintWriter(err, true), cwd, env, terminal,
                terminal);
        int code = MonoAgentCli.run(ctx, args);
        return new Result(code, out.toString(), err.toString());
    }
}
