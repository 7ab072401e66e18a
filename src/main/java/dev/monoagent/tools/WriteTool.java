package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Write: creates or replaces a file atomically (temp file + rename by directory descriptor, permissions kept). The target must pass the
 * same write policy as the sandbox on both its written and its real path; a refusal is {@code denied_by_policy} and
 * an OBSERVED write violation attributed to the call.
 */
final class WriteTool extends BasicTool {
    static final int MAX_BYTES = 16 * 1024 * 1024;

    private static final JsonNode SCHEMA = Args.schema()
            .str("file_path", "Path of the file (absolute, or relative to the workspace).", true)
            .str("content", "The complete new content.", true)
            .build();

    WriteTool() {
        super(ToolNames.WRITE,
                "Create or overwrite a text file with the given content (atomic). Protected files (.env, .env.*, "
                + ".git/config, .git/hooks) and the .mono-agent/ state dir cannot be written.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String input = Args.requireString(args, "file_path");
        String content = Args.requireString(args, "content");
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BYTES) {
            return new ToolResult.Failed(ToolResult.TOO_LARGE,
                    "Error: content is " + bytes.length + " bytes; the limit is " + MAX_BYTES + ".");
        }
        PathGuard guard = FileAccess.guard(ctx);
        return switch (guard.forWrite(input)) {
            case PathGuard.Check.Invalid i -> FileAccess.invalid(i);
            case PathGuard.Check.Denied d -> FileAccess.denied(ctx, d, Violation.Kind.WRITE, "Writing");
            case PathGuard.Check.Allowed a -> write(ctx, a, guard, bytes);
        };
    }

    private static ToolResult write(ToolContext ctx, PathGuard.Check.Allowed a, PathGuard guard, byte[] bytes) {
        boolean existed;
        try (FdFile f = FdFile.open(a.real(), true)) {
            existed = f.attributes() != null;
            ToolResult refused = FileAccess.write(ctx, a, guard, f, bytes, "Writing");
            if (refused != null) {
                return refused;
            }
        } catch (FdFile.Raced r) {
            return FileAccess.raced(ctx, a, r, Violation.Kind.WRITE, "Writing");
        } catch (IOException e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: cannot write " + a.shown() + ": " + e.getMessage());
        }
        var data = ToolOrchestrator.JSON.createObjectNode().put("path", a.shown().toString())
                .put("bytes", bytes.length).put("created", !existed);
        return new ToolResult.Ok((existed ? "Overwrote " : "Created ") + a.shown() + " (" + bytes.length
                + " bytes).", data);
    }
}
