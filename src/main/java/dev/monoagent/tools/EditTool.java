package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Violation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.attribute.PosixFileAttributes;

/**
 * Edit: exact-string replacement in a text file. {@code old_string} must occur exactly once unless
 * {@code replace_all}; otherwise the result says how many times it occurred ({@code no_match} /
 * {@code ambiguous_match}). Same write policy and atomic write as {@link WriteTool}.
 */
final class EditTool extends BasicTool {
    private static final JsonNode SCHEMA = Args.schema()
            .str("file_path", "Path of the file (absolute, or relative to the workspace).", true)
            .str("old_string", "The exact text to replace (must be unique unless replace_all).", true)
            .str("new_string", "The replacement text.", true)
            .bool("replace_all", "Replace every occurrence (default false).")
            .build();

    EditTool() {
        super(ToolNames.EDIT,
                "Replace an exact string in a text file. old_string must match exactly once unless replace_all is "
                + "true; include surrounding lines to make it unique.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String input = Args.requireString(args, "file_path");
        String oldS = Args.requireString(args, "old_string");
        String newS = Args.requireString(args, "new_string");
        boolean all = Args.optBool(args, "replace_all");
        if (oldS.isEmpty()) {
            return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                    "Error: old_string is empty; use Write to create or replace a whole file.");
        }
        if (oldS.equals(newS)) {
            return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                    "Error: old_string and new_string are identical; nothing to change.");
        }
        PathGuard guard = FileAccess.guard(ctx);
        return switch (guard.forWrite(input)) {
            case PathGuard.Check.Invalid i -> FileAccess.invalid(i);
            case PathGuard.Check.Denied d -> FileAccess.denied(ctx, d, Violation.Kind.WRITE, "Editing");
            case PathGuard.Check.Allowed a -> edit(ctx, a, guard, oldS, newS, all);
        };
    }

    private static ToolResult edit(ToolContext ctx, PathGuard.Check.Allowed a, PathGuard guard, String oldS,
                                   String newS, boolean all) {
        // one directory descriptor for the read and the write, so both see the file that was checked
        try (FdFile f = FdFile.open(a.real(), false)) {
            PosixFileAttributes attrs = f.attributesNoLink();
            if (attrs == null) {
                return notFound(a);
            }
            if (attrs.isDirectory()) {
                return new ToolResult.Failed(ToolResult.IS_DIRECTORY, "Error: " + a.shown() + " is a directory.");
            }
            if (!attrs.isRegularFile()) {
                return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                        "Error: " + a.shown() + " is not a regular file; Edit only edits files.");
            }
            if (attrs.size() > WriteTool.MAX_BYTES) {
                return new ToolResult.Failed(ToolResult.TOO_LARGE, "Error: " + a.shown() + " is larger than "
                        + WriteTool.MAX_BYTES + " bytes.");
            }
            String text;
            try {
                text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(f.readAll(WriteTool.MAX_BYTES))).toString();
            } catch (CharacterCodingException e) {
                return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                        "Error: " + a.shown() + " is not UTF-8 text; Edit works on text files only.");
            }
            int count = count(text, oldS);
            if (count == 0) {
                return new ToolResult.Failed(ToolResult.NO_MATCH,
                        "Error: old_string was not found in " + a.shown() + " (0 matches).");
            }
            if (count > 1 && !all) {
                return new ToolResult.Failed(ToolResult.AMBIGUOUS_MATCH, "Error: old_string matches " + count
                        + " times in " + a.shown() + "; add surrounding context to make it unique, or set "
                        + "replace_all.");
            }
            String updated = all ? text.replace(oldS, newS) : replaceOnce(text, oldS, newS);
            ToolResult refused = FileAccess.write(ctx, a, guard, f, updated.getBytes(StandardCharsets.UTF_8),
                    "Editing");
            if (refused != null) {
                return refused;
            }
            int replaced = all ? count : 1;
            var data = ToolOrchestrator.JSON.createObjectNode().put("path", a.shown().toString())
                    .put("replacements", replaced);
            return new ToolResult.Ok("Edited " + a.shown() + ": replaced " + replaced
                    + (replaced == 1 ? " occurrence." : " occurrences."), data);
        } catch (FdFile.Raced r) {
            return FileAccess.raced(ctx, a, r, Violation.Kind.WRITE, "Editing");
        } catch (NoSuchFileException | NotDirectoryException e) {
            return notFound(a);
        } catch (IOException e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: cannot edit " + a.shown() + ": " + e.getMessage());
        }
    }

    private static ToolResult notFound(PathGuard.Check.Allowed a) {
        return new ToolResult.Failed(ToolResult.NOT_FOUND, "Error: File not found: " + a.shown()
                + " (use Write to create it).");
    }

    static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }

    private static String replaceOnce(String text, String oldS, String newS) {
        int i = text.indexOf(oldS);
        return text.substring(0, i) + newS + text.substring(i + oldS.length());
    }
}
