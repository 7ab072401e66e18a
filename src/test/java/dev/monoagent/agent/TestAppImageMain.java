package dev.monoagent.agent;

import java.nio.file.Path;
import java.util.List;

/**
 * Stand-in for the CLI's {@code start} behind the fake app-image launcher of {@link InstanceLauncherSpawnTest}:
 * {@code <ws>} starts a background instance through {@link InstanceLauncher#relaunchCommand} (the launcher path
 * comes from {@code jpackage.app-path}, as in the real app); {@code <ws> --foreground --headless} is that instance.
 * Prints the start result; exits 0 when the instance answered.
 */
public final class TestAppImageMain {
    private TestAppImageMain() {}

    public static void main(String[] args) throws Exception {
        Path ws = Path.of(args[0]);
        if (List.of(args).contains("--foreground")) {
            TestInstanceMain.main(args);
            return;
        }
        InstanceLauncher.StartResult r = InstanceLauncher.start(new StartOptions(ws,
                ws.resolve("mono-agent.config.json"), false, true,
                InstanceLauncher.relaunchCommand(TestAppImageMain.class.getName(), List.of(ws.toString()))));
        System.out.println(r);
        System.exit(r instanceof InstanceLauncher.Started ? 0 : 1);
    }
}
