package dev.monoagent.cli;

/** Process entry point (deliberately not the JavaFX Application class, so the fat jar starts). */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(MonoAgentCli.run(args, System.out, System.err));
    }
}
