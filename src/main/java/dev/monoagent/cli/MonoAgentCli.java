package dev.monoagent.cli;

import java.io.PrintStream;

/** Placeholder until the picocli tree lands. */
public final class MonoAgentCli {
    private MonoAgentCli() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        out.println("mono-agent");
        return 0;
    }
}
