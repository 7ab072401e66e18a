package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/** Bash: {@code /bin/bash --noprofile --norc -c COMMAND} inside the sandbox, with {@code BASH_ENV}/{@code ENV} empty. */
final class BashTool extends BasicTool {
    private static final JsonNode SCHEMA = Args.schema()
            .str("command", "The bash command line.", true)
            .integer("timeout_ms", "Wall-clock limit in milliseconds (default 120000, max 600000).", false)
            .str("workdir", "Working directory inside the workspace (default: the workspace).", false)
            .str("description", "Short note on what the command does (for the transcript).", false)
            .build();

    BashTool() {
        super(ToolNames.BASH,
                "Run a bash command in the sandbox (workspace writable except protected files; network per policy). "
                + "Returns stdout, stderr and the exit code.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String command = Args.requireNonBlank(args, "command");
        var timeout = CommandTools.timeout(args);
        return switch (CommandTools.workdir(Args.optString(args, "workdir"), ctx)) {
            case CommandTools.Workdir.Refused r -> r.result();
            case CommandTools.Workdir.Ok ok -> CommandTools.run(CommandTools.spec(
                    List.of("/bin/bash", "--noprofile", "--norc", "-c", command), ok.dir(), timeout,
                    Map.of("BASH_ENV", "/dev/null", "ENV", "/dev/null"), ctx), ctx, command);
        };
    }
}
