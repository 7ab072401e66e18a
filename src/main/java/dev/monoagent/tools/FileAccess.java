package dev.monoagent.tools;

import dev.monoagent.common.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Set;

/**
 * Shared mechanics of the in-process file tools: turning a {@link PathGuard} refusal into {@code denied_by_policy}
 * plus an OBSERVED violation, race-free atomic writes (by directory descriptor, see {@link FdFile}) that keep
 * permissions, and binary sniffing.
 */
final class FileAccess {
    private FileAccess() {}

    static final Set<PosixFilePermission> NEW_FILE_PERMS = PosixFilePermissions.fromString("rw-r--r--");

    static PathGuard guard(ToolContext ctx) {
        return new PathGuard(ctx.workspace(), ctx.policy(), ctx.sandbox().deniedPaths());
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

    /** The result for a path that changed between the policy check and the I/O: refused like a policy denial. */
    static ToolResult raced(ToolContext ctx, PathGuard.Check.Allowed a, FdFile.Raced r, Violation.Kind kind,
                            String verb) {
        return denied(ctx, new PathGuard.Check.Denied(a.shown(), a.real(), r.getMessage()), kind, verb);
    }

    /**
     * Why writing the existing regular file with {@code attrs} (read through the directory descriptor; checked as
     * {@code real}) is refused, or null. The hard-link count cannot be read through the descriptor, so it is read by
     * path after confirming the path still names the very file the descriptor sees (a mismatch is a race).
     */
    static String hardLinkDenial(PosixFileAttributes attrs, Path real, PathGuard guard) throws IOException {
        Object key;
        try {
            key = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (NoSuchFileException e) {
            throw new FdFile.Raced(real);
        }
        if (!Objects.equals(key, attrs.fileKey())) {
            throw new FdFile.Raced(real);
        }
        return guard.hardLinkDenial(real);
    }

    /**
     * Replaces the checked file with {@code data} atomically through its directory descriptor (see
     * {@link FdFile#replace}). An existing file keeps its permissions; a new one gets rw-r--r--. Missing parent
     * dirs are created. The outcome is a result when the target is unusable, else null.
     */
    static ToolResult write(ToolContext ctx, PathGuard.Check.Allowed a, PathGuard guard, FdFile f, byte[] data,
                            String verb) throws IOException {
        PosixFileAttributes attrs = f.attributesNoLink();
        Set<PosixFilePermission> perms = NEW_FILE_PERMS;
        if (attrs != null) {
            if (attrs.isDirectory()) {
                return new ToolResult.Failed(ToolResult.IS_DIRECTORY, "Error: " + a.shown() + " is a directory.");
            }
            if (!attrs.isRegularFile()) {
                return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                        "Error: " + a.shown() + " is not a regular file.");
            }
            String why = hardLinkDenial(attrs, a.real(), guard);
            if (why != null) {
                return denied(ctx, new PathGuard.Check.Denied(a.shown(), a.real(), why), Violation.Kind.WRITE, verb);
            }
            perms = attrs.permissions();
        }
        f.replace(data, perms, guard);
        return null;
    }

    /** A short description of a binary file's type from its first bytes. */
    static String sniffType(byte[] head, int len) {
        byte[] h = head;
        int n = Math.min(len, 16);
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

    /** True when {@code head} (the first 8 KiB) contains a NUL byte (the usual text/binary heuristic). */
    static boolean looksBinary(byte[] head, int len) {
        for (int i = 0; i < len; i++) {
            if (head[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** The policy's read denial for an absolute path (mapped into the policy's root spelling), or null. */
    static String readDenied(PathGuard guard, Path abs) {
        return guard.policyReadDenial(abs);
    }
}
