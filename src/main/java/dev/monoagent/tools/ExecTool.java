package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Exec: one program with an argument vector, no shell, inside the sandbox. {@code max_output_chars} caps the result
 * below the 256 KB default (head and tail kept, full output spilled).
 */
final class ExecTool extends BasicTool {
    private static final JsonNode SCHEMA = Args.schema()
            .str("executable", "Program to run (absolute path or a name found on PATH).", true)
            .strings("args", "Arguments, passed as-is (no shell).", false)
            .str("workdir", "Working directory inside the workspace (default: the workspace).", false)
            .integer("timeout_ms", "Wall-clock limit in milliseconds (default 120000, max 600000).", false)
            .integer("max_output_chars", "Cap on the returned text in characters (default: 256 KB).", false)
            .build();

    ExecTool() {
        super(ToolNames.EXEC,
                "Run one program with arguments (no shell) in the sandbox. Returns stdout, stderr and the exit code.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String exe = Args.requireString(args, "executable");
        if (exe.isBlank() || exe.indexOf('\0') >= 0) {
            throw new Args.Invalid("executable is empty.");
        }
        List<String> argv = new ArrayList<>();
        argv.add(exe);
        argv.addAll(Args.optStrings(args, "args"));
        var timeout = CommandTools.timeout(args);
        Long maxChars = Args.optLong(args, "max_output_chars", 100, OutputBound.MAX_RESULT_BYTES);
        ToolResult r = switch (CommandTools.workdir(Args.optString(args, "workdir"), ctx)) {
            case CommandTools.Workdir.Refused refused -> refused.result();
            case CommandTools.Workdir.Ok ok -> CommandTools.run(CommandTools.spec(argv, ok.dir(), timeout, Map.of(),
                    ctx), ctx, String.join(" ", argv));
        };
        if (maxChars == null || r.text().length() <= maxChars) {
            return r;
        }
        String bounded = OutputBound.chars(r.text(), maxChars.intValue(), ctx.spillFile());
        return switch (r) {
            case ToolResult.Ok ok -> new ToolResult.Ok(bounded, ok.data());
            case ToolResult.Failed f -> new ToolResult.Failed(f.code(), bounded);
        };
    }
}
