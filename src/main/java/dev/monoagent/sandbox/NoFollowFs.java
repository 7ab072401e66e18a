package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * Host-side moves and writes inside the workspace that a still-running sandboxed process cannot redirect. Every
 * directory is opened from {@code /} one component at a time relative to its parent's descriptor with
 * {@code O_NOFOLLOW}, and the final step is a {@code renameat}/{@code openat} on that descriptor. A directory the
 * agent swaps for a symlink (to {@code ~/.ssh}) is met as a symlink and refused; one swapped after it was opened
 * is still the same directory by descriptor, so the operation stays on the agent's own files wherever they now are.
 */
final class NoFollowFs {
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private NoFollowFs() {}

    /**
     * Moves {@code from} (an entry below {@code ws}, not followed if it is a symlink) to {@code to}. Missing
     * directories of {@code to} are created (a mkdir by path, then opened without following: a racing swap can at
     * worst leave an empty directory, never move a file through a link).
     */
    static void move(Path from, Path to) throws IOException {
        try (SecureDirectoryStream<Path> src = openDir(from.getParent(), false);
             SecureDirectoryStream<Path> dst = openDir(to.getParent(), true)) {
            src.move(name(from), dst, name(to));
        }
    }

    /** Creates {@code file} with {@code bytes}; refuses an existing entry and a symlinked parent chain. */
    static void createFile(Path file, byte[] bytes) throws IOException {
        try (SecureDirectoryStream<Path> dir = openDir(file.getParent(), false);
             SeekableByteChannel ch = dir.newByteChannel(name(file),
                     Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, NOFOLLOW))) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
    }

    private static Path name(Path p) throws IOException {
        Path n = p.getFileName();
        if (n == null) {
            throw new IOException("not an entry: " + p);
        }
        // the entry's own name object keeps its raw bytes; Path.of(n.toString()) would re-encode a name that is not
        // valid UTF-8 and miss the file (issue 9 item 6: byte-exact names)
        return n;
    }

    /** {@code dir} opened by descriptor without following any symlink on the way (it must be absolute). */
    static SecureDirectoryStream<Path> openDir(Path dir, boolean create) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        DirectoryStream<Path> root = Files.newDirectoryStream(abs.getRoot());
        if (!(root instanceof SecureDirectoryStream<Path> sds)) {
            root.close();
            throw new IOException("this platform cannot open directories by descriptor; refusing the move");
        }
        Path at = abs.getRoot();
        try {
            for (Path part : abs) {
                Path component = Path.of(part.toString());
                at = at.resolve(component);
                SecureDirectoryStream<Path> next;
                try {
                    next = sds.newDirectoryStream(component, NOFOLLOW);
                } catch (java.nio.file.NoSuchFileException e) {
                    if (!create) {
                        throw e;
                    }
                    try {
                        Files.createDirectory(at);
                    } catch (FileAlreadyExistsException raced) {
                        // made concurrently: the no-follow open decides
                    }
                    next = sds.newDirectoryStream(component, NOFOLLOW);
                }
                sds.close();
                sds = next;
            }
        } catch (IOException | RuntimeException e) {
            sds.close();
            throw e;
        }
        return sds;
    }
}
