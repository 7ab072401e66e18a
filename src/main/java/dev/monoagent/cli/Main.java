package dev.monoagent.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Process entry point (deliberately not the JavaFX Application class, so the fat jar starts). */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        dev.monoagent.agent.UserDirs.keepPreferencesInConfigDir(System.getenv());
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        // System.console() is non-null when stdin and stdout are both a terminal: only then may a command prompt
        boolean tty = System.console() != null;
        CliContext ctx = new CliContext(out, err, Path.of("").toAbsolutePath(), System.getenv(), tty);
        int code = MonoAgentCli.run(ctx, args);
        out.flush();
        err.flush();
        System.exit(code);
    }
}
