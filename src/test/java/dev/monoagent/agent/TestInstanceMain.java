package dev.monoagent.agent;

import java.nio.file.Path;
import java.util.List;

/**
 * Stand-in for the CLI's {@code start} in the spawned child of {@link InstanceLauncherSpawnTest}:
 * {@code <ws> --foreground --headless|--window}.
 */
public final class TestInstanceMain {
    private TestInstanceMain() {}

    public static void main(String[] args) throws Exception {
        Path ws = Path.of(args[0]);
        boolean headless = List.of(args).contains("--headless");
        InstanceLauncher.StartResult r = InstanceLauncher.start(new StartOptions(ws,
                ws.resolve("mono-agent.config.json"), true, headless, List.of()));
        System.exit(r instanceof InstanceLauncher.Exited e ? e.exitCode() : 1);
    }
}
