package dev.monoagent.agent;

import java.nio.file.Path;

/**
 * Stand-in for {@code mono-agent tools call} in the spawned child of {@link ToolCallCancelTest}: one tool call
 * through the workspace's running instance ({@code <ws> <tool> <args-json> <run-id>}), its text on stdout; or, for
 * {@code mono-agent run}, {@code <ws> --run <prompt>}: an agent run in the instance, its event lines on stdout.
 */
public final class ToolCallClientMain {
    private ToolCallClientMain() {}

    public static void main(String[] args) {
        if (args[1].equals("--run")) {
            try (ControlClient.RemoteRun run = ControlClient.forWorkspace(Path.of(args[0])).run(args[2], false, null)
                    .orElseThrow()) {
                System.out.println(run.stream(System.out::println));
            }
            return;
        }
        ControlClient.forWorkspace(Path.of(args[0])).callTool(args[1], args[2], args[3])
                .ifPresent(r -> System.out.println(r.text()));
    }
}
