package dev.monoagent.agent;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code mono-agent start} asked for.
 *
 * @param workspace    the agent folder
 * @param configPath   the config file (already preflighted by the CLI)
 * @param foreground   run in this process ({@code -f/--foreground}); otherwise a detached child is spawned
 * @param headless     true = no window; false = window; null = decide by {@link InstanceLauncher#displayAvailable()}
 * @param childCommand argv that re-runs this CLI (e.g. {@code [java, -cp, <cp>, dev.monoagent.cli.Main, start]}); the
 *                     launcher appends {@code --foreground} and the headless choice. Only used when not foreground.
 */
public record StartOptions(Path workspace, Path configPath, boolean foreground, Boolean headless,
                           List<String> childCommand) {
    public StartOptions {
        workspace = workspace.toAbsolutePath().normalize();
        configPath = configPath.toAbsolutePath().normalize();
        childCommand = childCommand == null ? List.of() : List.copyOf(childCommand);
    }

    /** Whether this start runs without a window, with the automatic choice resolved. */
    public boolean resolvedHeadless() {
        return headless != null ? headless : !InstanceLauncher.displayAvailable();
    }
}
