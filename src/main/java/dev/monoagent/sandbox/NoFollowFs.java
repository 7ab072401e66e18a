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
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
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

    /** Creates the empty file {@code name} in {@code dir} (opened with {@link #openDir}) with {@code perms}. */
    static void createEmpty(SecureDirectoryStream<Path> dir, Path name,
                            Set<java.nio.file.attribute.PosixFilePermission> perms) throws IOException {
        dir.newByteChannel(name, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW,
                NOFOLLOW), java.nio.file.attribute.PosixFilePermissions.asFileAttribute(perms)).close();
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

    /** Deepest directory level the clean-up descends to (each level holds one descriptor open). */
    static final int MAX_DEPTH = 128;

    /**
     * The bytes of regular files below {@code dir}, walked by descriptor without following any symlink (one swapped
     * in mid-walk is counted as a link, never entered). Entries that vanish while walking are skipped.
     */
    static long size(Path dir) throws IOException {
        try (SecureDirectoryStream<Path> d = openDir(dir, false)) {
            return size(d, 0);
        }
    }

    private static long size(SecureDirectoryStream<Path> d, int depth) {
        long total = 0;
        for (Path n : names(d)) {
            try {
                BasicFileAttributes a = attributes(d, n);
                if (a.isRegularFile()) {
                    total += a.size();
                } else if (a.isDirectory() && depth < MAX_DEPTH) {
                    try (SecureDirectoryStream<Path> sub = d.newDirectoryStream(n, NOFOLLOW)) {
                        total += size(sub, depth + 1);
                    }
                }
            } catch (IOException | RuntimeException gone) {
                // vanished or swapped while walking: not counted
            }
        }
        return total;
    }

    /**
     * Deletes everything below {@code dir} (which stays) by descriptor: each subdirectory is opened relative to its
     * parent with {@code O_NOFOLLOW} and each entry removed with {@code unlinkat} on its parent's descriptor. A
     * directory a running sandboxed process swaps for a symlink (to {@code ~/.ssh}) is unlinked as a link, never
     * entered; one swapped after it was opened is still the same directory, wherever it now is. Returns whether
     * everything went.
     */
    static boolean deleteContents(Path dir) throws IOException {
        try (SecureDirectoryStream<Path> d = openDir(dir, false)) {
            return empty(d, 0);
        }
    }

    /** {@link #deleteContents}, then {@code dir} itself (its parent is ours, not the agent's); null or absent: nothing. */
    static void deleteTree(Path dir) {
        if (dir == null || !Files.isDirectory(dir, NOFOLLOW)) {
            return;
        }
        try {
            // a second pass: a sandbox that just exited may still be releasing files
            if (!deleteContents(dir)) {
                deleteContents(dir);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // best effort at close: a temp dir left behind holds only the agent's own files
        }
    }

    private static boolean empty(SecureDirectoryStream<Path> d, int depth) {
        boolean all = true;
        for (Path n : names(d)) {
            try {
                if (attributes(d, n).isDirectory()) {
                    if (depth >= MAX_DEPTH) {
                        all = false;
                        continue;
                    }
                    try (SecureDirectoryStream<Path> sub = d.newDirectoryStream(n, NOFOLLOW)) {
                        all &= empty(sub, depth + 1);
                    } catch (IOException swapped) {
                        // no longer a directory: removed as whatever it is now, below
                    }
                    try {
                        d.deleteDirectory(n);
                    } catch (IOException notADirNow) {
                        d.deleteFile(n); // unlinkat without AT_REMOVEDIR: a symlink goes, its target stays
                    }
                } else {
                    d.deleteFile(n);
                }
            } catch (java.nio.file.NoSuchFileException gone) {
                // removed meanwhile
            } catch (IOException | RuntimeException e) {
                all = false;
            }
        }
        return all;
    }

    private static java.util.List<Path> names(SecureDirectoryStream<Path> d) {
        java.util.List<Path> out = new java.util.ArrayList<>();
        try {
            for (Path e : d) {
                out.add(e.getFileName());
            }
        } catch (java.nio.file.DirectoryIteratorException | IllegalStateException e) {
            // a directory removed under us lists as far as it got
        }
        return out;
    }

    private static BasicFileAttributes attributes(SecureDirectoryStream<Path> d, Path n) throws IOException {
        return d.getFileAttributeView(n, BasicFileAttributeView.class, NOFOLLOW).readAttributes();
    }

    private static Path name(Path p) throws IOException {
        Path n = p.getFileName();
        if (n == null) {
            throw new IOException("not an entry: " + p);
        }
        // the entry's own name object keeps its raw bytes; Path.of(n.toString()) would re-encode a name that is not
        // valid UTF-8 and miss the file (names are byte-exact)
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
                // the component itself, its bytes as they are: Path.of(part.toString()) re-encodes a name that is not
                // valid UTF-8 and opens another directory, or none (a quarantine would fail)
                Path component = part;
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
