package dev.monoagent.tools;

import dev.monoagent.common.Violation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Shared mechanics of the in-process file tools: turning a {@link PathGuard} refusal into {@code denied_by_policy}
 * plus an OBSERVED violation, atomic writes that keep permissions, and binary sniffing.
 */
final class FileAccess {
    private FileAccess() {}

    static final Set<PosixFilePermission> NEW_FILE_PERMS = PosixFilePermissions.fromString("rw-r--r--");

    static PathGuard guard(ToolContext ctx) {
        return new PathGuard(ctx.workspace(), ctx.policy());
    }

    /** The result for a refused path, after reporting the violation. */
    static ToolResult denied(ToolContext ctx, PathGuard.Check.Denied d, Violation.Kind kind, String verb) {
        ctx.violation(kind, ctx.tool() + " " + d.shown(), d.target().toString(), d.reason());
        return new ToolResult.Failed(ToolResult.DENIED_BY_POLICY,
                "Error: " + verb + " " + d.shown() + " is denied by policy: " + d.reason() + ".");
    }

    static ToolResult invalid(PathGuard.Check.Invalid i) {
        return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS, "Error: " + i.message());
    }

    /**
     * Replaces {@code real} with {@code data} atomically: a temp file in the same directory, fsync, rename over the
     * target. An existing file keeps its permissions; a new one gets rw-r--r--. Missing parent dirs are created.
     */
    static void atomicWrite(Path real, byte[] data, PathGuard guard) throws IOException {
        Path dir = real.getParent();
        Files.createDirectories(dir);
        Set<PosixFilePermission> perms = Files.exists(real, LinkOption.NOFOLLOW_LINKS)
                ? Files.getPosixFilePermissions(real, LinkOption.NOFOLLOW_LINKS) : NEW_FILE_PERMS;
        Path tmp = Files.createTempFile(dir, ".mono-write-", ".tmp");
        try {
            if (guard.writeDenial(guard.toPolicySpace(tmp)) != null) {
                throw new IOException("temporary file would be protected: " + tmp);
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                var buf = java.nio.ByteBuffer.wrap(data);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.setPosixFilePermissions(tmp, perms);
            try {
                Files.move(tmp, real, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, real, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** A short description of a binary file's type from its first bytes. */
    static String sniffType(Path p) {
        byte[] h = new byte[16];
        int n;
        try (InputStream in = Files.newInputStream(p)) {
            n = in.readNBytes(h, 0, h.length);
        } catch (IOException e) {
            return "unknown";
        }
        String s = new String(h, 0, n, StandardCharsets.ISO_8859_1);
        if (s.startsWith("\u0089PNG")) {
            return "PNG image";
        }
        if (n >= 3 && (h[0] & 0xFF) == 0xFF && (h[1] & 0xFF) == 0xD8 && (h[2] & 0xFF) == 0xFF) {
            return "JPEG image";
        }
        if (s.startsWith("GIF8")) {
            return "GIF image";
        }
        if (s.startsWith("%PDF")) {
            return "PDF document";
        }
        if (s.startsWith("PK\u0003\u0004")) {
            return "ZIP archive (or jar/docx/xlsx)";
        }
        if (s.startsWith("\u007fELF")) {
            return "ELF executable";
        }
        if (n >= 2 && (h[0] & 0xFF) == 0x1F && (h[1] & 0xFF) == 0x8B) {
            return "gzip data";
        }
        if (s.startsWith("\u00ca\u00fe\u00ba\u00be")) {
            return "Java class file";
        }
        if (s.startsWith("SQLite format 3")) {
            return "SQLite database";
        }
        if (s.startsWith("RIFF")) {
            return "RIFF media (WAV/AVI/WebP)";
        }
        if (s.startsWith("\u0000asm")) {
            return "WebAssembly module";
        }
        return "binary data";
    }

    /** True when the first 8 KiB contain a NUL byte (the usual text/binary heuristic). */
    static boolean looksBinary(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            byte[] b = in.readNBytes(8192);
            for (byte x : b) {
                if (x == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The policy's read denial for an absolute path (mapped into the policy's root spelling), or null. */
    static String readDenied(PathGuard guard, Path abs) {
        return guard.policyReadDenial(abs);
    }
}
