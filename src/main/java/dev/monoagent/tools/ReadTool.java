package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Violation;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.Path;

/**
 * Read: a text file with line numbers ({@code cat -n} style, 1-based), an optional window ({@code offset},
 * {@code limit}); binary files are described (size, type) instead of dumped; directories are refused with a hint
 * to use Glob. Honors the policy's readable roots and read denials on the real (symlink-resolved) path.
 */
final class ReadTool extends BasicTool {
    static final int DEFAULT_LIMIT = 2000;
    static final int MAX_LINE_CHARS = 2000;

    private static final JsonNode SCHEMA = Args.schema()
            .str("file_path", "Path of the file (absolute, or relative to the workspace).", true)
            .integer("offset", "1-based line to start at (default 1).", false)
            .integer("limit", "Most lines to return (default 2000).", false)
            .build();

    ReadTool() {
        super(ToolNames.READ,
                "Read a text file. Returns lines numbered like `cat -n` (1-based). Use offset/limit for large files. "
                + "Binary files are described, not dumped. Directories are refused: use Glob to list files.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String input = Args.requireString(args, "file_path");
        long offset = orDefault(Args.optLong(args, "offset", 1, Integer.MAX_VALUE), 1);
        long limit = orDefault(Args.optLong(args, "limit", 1, 1_000_000), DEFAULT_LIMIT);

        PathGuard guard = FileAccess.guard(ctx);
        return switch (guard.forRead(input)) {
            case PathGuard.Check.Invalid i -> FileAccess.invalid(i);
            case PathGuard.Check.Denied d -> FileAccess.denied(ctx, d, Violation.Kind.READ, "Reading");
            case PathGuard.Check.Allowed a -> read(ctx, a, offset, limit);
        };
    }

    private static long orDefault(Long v, long d) {
        return v == null ? d : v;
    }

    private ToolResult read(ToolContext ctx, PathGuard.Check.Allowed a, long offset, long limit) {
        Path shown = a.shown();
        // by descriptor from the checked real path: a symlink swapped in after the check is refused, not followed
        try (FdFile f = FdFile.open(a.real(), false)) {
            PosixFileAttributes attrs = f.attributesNoLink();
            if (attrs == null) {
                return notFound(shown);
            }
            if (attrs.isDirectory()) {
                return new ToolResult.Failed(ToolResult.IS_DIRECTORY,
                        "Error: " + shown + " is a directory, not a file. Use Glob to list its files.");
            }
            if (!attrs.isRegularFile()) {
                return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS, "Error: " + shown
                        + " is not a regular file (device, socket or pipe); Read only reads files.");
            }
            try (SeekableByteChannel ch = f.openRead()) {
                return read(shown, ch, offset, limit);
            }
        } catch (FdFile.Raced r) {
            return FileAccess.raced(ctx, a, r, Violation.Kind.READ, "Reading");
        } catch (NoSuchFileException | NotDirectoryException e) {
            return notFound(shown);
        } catch (IOException e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: cannot read " + shown + ": " + e.getMessage());
        }
    }

    private static ToolResult notFound(Path shown) {
        return new ToolResult.Failed(ToolResult.NOT_FOUND, "Error: File not found: " + shown);
    }

    private ToolResult read(Path shown, SeekableByteChannel ch, long offset, long limit) throws IOException {
        long size = ch.size();
        byte[] head = new byte[8192];
        int headLen = readFully(ch, head);
        if (FileAccess.looksBinary(head, headLen)) {
            return binary(shown, size, head, headLen);
        }
        ch.position(0);
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        StringBuilder out = new StringBuilder();
        long lineNo = 0;
        long shownLines = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), decoder),
                1 << 16)) {
            String line;
            while ((line = r.readLine()) != null) {
                lineNo++;
                if (lineNo < offset || shownLines >= limit) {
                    continue;
                }
                if (line.length() > MAX_LINE_CHARS) {
                    line = line.substring(0, MAX_LINE_CHARS) + " … [line truncated]";
                }
                out.append(String.format("%6d\t", lineNo)).append(line).append('\n');
                shownLines++;
                if (out.length() > OutputBound.MAX_RESULT_BYTES) {
                    return new ToolResult.Failed(ToolResult.TOO_LARGE, "Error: " + shown + " (" + size
                            + " bytes) is too large to show at once; read a part with offset and limit.");
                }
            }
        } catch (CharacterCodingException e) {
            return binary(shown, size, head, headLen);
        }
        var data = ToolOrchestrator.JSON.createObjectNode().put("path", shown.toString())
                .put("totalLines", lineNo).put("startLine", offset).put("linesShown", shownLines);
        if (lineNo == 0) {
            return new ToolResult.Ok("(" + shown + " is empty)", data);
        }
        if (shownLines == 0) {
            return new ToolResult.Ok("(" + shown + " has " + lineNo + " lines; offset " + offset
                    + " is past the end)", data);
        }
        if (offset + shownLines - 1 < lineNo) {
            out.append("(showing lines ").append(offset).append('-').append(offset + shownLines - 1)
                    .append(" of ").append(lineNo).append("; use offset to read more)\n");
        }
        return new ToolResult.Ok(out.toString(), data);
    }

    private static int readFully(SeekableByteChannel ch, byte[] into) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(into);
        while (buf.hasRemaining() && ch.read(buf) >= 0) {
            // until full or EOF
        }
        return buf.position();
    }

    private static ToolResult binary(Path shown, long size, byte[] head, int headLen) {
        String type = FileAccess.sniffType(head, headLen);
        var data = ToolOrchestrator.JSON.createObjectNode().put("path", shown.toString()).put("binary", true)
                .put("size", size).put("type", type);
        return new ToolResult.Ok("Binary file " + shown + " (" + size + " bytes, " + type
                + "); not shown as text.", data);
    }
}
