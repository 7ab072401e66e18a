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
        // the reviewer's config dir (trust records, sign-in) stays the test run's, never the real user's
        String userDir = System.getenv("MONO_AGENT_CONFIG_DIR");
        if (userDir != null && !env.containsKey("MONO_AGENT_CONFIG_DIR")) {
            env = new java.util.HashMap<>(env);
            env.put("MONO_AGENT_CONFIG_DIR", userDir);
        }
        CliContext ctx = new CliContext(new PrintWriter(out, true), new PrintWriter(err, true), cwd, env, terminal);
        int code = MonoAgentCli.run(ctx, args);
        return new Result(code, out.toString(), err.toString());
    }
}
