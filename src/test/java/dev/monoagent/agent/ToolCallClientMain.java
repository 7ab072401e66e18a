package dev.monoagent.agent;

import java.nio.file.Path;

/**
 * Stand-in for {@code mono-agent tools call} in the spawned child of {@link ToolCallCancelTest}: one tool call
 * through the workspace's running instance ({@code <ws> <tool> <args-json> <run-id>}), its text on stdout.
 */
public final class ToolCallClientMain {
    private ToolCallClientMain() {}

    public static void main(String[] args) {
        ControlClient.forWorkspace(Path.of(args[0])).callTool(args[1], args[2], args[3])
                .ifPresent(r -> System.out.println(r.text()));
    }
}
