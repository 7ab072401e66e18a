package dev.monoagent.tools;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A file that passed {@link PathGuard}, reached race-free: the checked real path has no symlinks by construction, so
 * it is opened from {@code /} one component at a time relative to the previous directory's descriptor with
 * {@code O_NOFOLLOW}, and all I/O on the last component goes through the parent directory's descriptor. Sandboxed
 * code swapping a directory for a symlink between the policy check and the I/O (the path string would then be
 * re-resolved elsewhere) is met as a symlink on the walk and refused as {@link Raced} instead of followed.
 */
final class FdFile implements Closeable {
    /** Test seam: runs with the real path after the policy check, before the walk. */
    static volatile Consumer<Path> afterCheck = p -> {};

    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A symlink (or a non-directory) appeared on a path that had none when it was checked. */
    static final class Raced extends IOException {
        private static final long serialVersionUID = 1L;

        Raced(Path where) {
            super("the path changed while in use (" + where + " is now a symbolic link or not a directory); "
                    + "refused as a possible race");
        }
    }

    private final SecureDirectoryStream<Path> dir;
    private final Path dirPath;
    private final Path name;

    private FdFile(SecureDirectoryStream<Path> dir, Path dirPath, Path name) {
        this.dir = dir;
        this.dirPath = dirPath;
        this.name = name;
    }

    /**
     * Opens the parent directory of {@code real} by descriptor. With {@code createParents}, missing directories are
     * created one at a time: Java has no {@code mkdirat}, so the mkdir itself goes by path, but every created
     * component is then opened relative to its parent's descriptor with {@code O_NOFOLLOW}, so a racing swap can at
     * worst leave an empty directory elsewhere, never put file content there.
     */
    static FdFile open(Path real, boolean createParents) throws IOException {
        afterCheck.accept(real);
        Path parent = real.getParent();
        if (parent == null || real.getFileName() == null) {
            throw new IOException("not a file path: " + real);
        }
        DirectoryStream<Path> rootStream = Files.newDirectoryStream(parent.getRoot());
        if (!(rootStream instanceof SecureDirectoryStream<Path> sds)) {
            rootStream.close();
            throw new IOException("this platform cannot open directories race-free; refusing in-process file I/O");
        }
        Path at = parent.getRoot();
        try {
            for (Path part : parent) {
                Path component = Path.of(part.toString());
                at = at.resolve(component);
                SecureDirectoryStream<Path> next = openChild(sds, component, at, createParents);
                sds.close();
                sds = next;
            }
        } catch (IOException | RuntimeException e) {
            sds.close();
            throw e;
        }
        return new FdFile(sds, parent, Path.of(real.getFileName().toString()));
    }

    private static SecureDirectoryStream<Path> openChild(SecureDirectoryStream<Path> sds, Path component, Path at,
                                                         boolean create) throws IOException {
        try {
            return sds.newDirectoryStream(component, NOFOLLOW);
        } catch (NoSuchFileException e) {
            if (!create) {
                throw e;
            }
            try {
                Files.createDirectory(at);
            } catch (FileAlreadyExistsException raced) {
                // created concurrently: the open below decides whether it is a directory
            }
            try {
                return sds.newDirectoryStream(component, NOFOLLOW);
            } catch (FileSystemException again) {
                throw symlinkOr(sds, component, at, again);
            }
        } catch (FileSystemException e) {
            throw symlinkOr(sds, component, at, e);
        }
    }

    /** {@link Raced} when the component is now a symlink, not-a-directory for a file, else the original failure. */
    private static IOException symlinkOr(SecureDirectoryStream<Path> sds, Path component, Path at, IOException e) {
        try {
            BasicFileAttributes a = sds.getFileAttributeView(component, PosixFileAttributeView.class, NOFOLLOW)
                    .readAttributes();
            if (a.isSymbolicLink()) {
                return new Raced(at);
            }
            if (!a.isDirectory()) {
                return new NotDirectoryException(at.toString());
            }
        } catch (IOException ignored) {
            // gone as well: report the first failure
        }
        return e;
    }

    /** The target's own attributes (a symlink is not followed), or null when it does not exist. */
    PosixFileAttributes attributes() throws IOException {
        try {
            return dir.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW).readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** The target's attributes, refusing a symlink where the checked path had a file. */
    PosixFileAttributes attributesNoLink() throws IOException {
        PosixFileAttributes a = attributes();
        if (a != null && a.isSymbolicLink()) {
            throw new Raced(dirPath.resolve(name));
        }
        return a;
    }

    /** Opens the target for reading; {@code O_NOFOLLOW}, relative to the parent descriptor. */
    SeekableByteChannel openRead() throws IOException {
        try {
            return dir.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW));
        } catch (FileSystemException e) {
            PosixFileAttributes a = attributes();
            if (a != null && a.isSymbolicLink()) {
                throw new Raced(dirPath.resolve(name));
            }
            throw e;
        }
    }

    /** The whole content, at most {@code max} bytes (more is an error). */
    byte[] readAll(int max) throws IOException {
        try (SeekableByteChannel ch = openRead()) {
            long size = ch.size();
            if (size > max) {
                throw new IOException("larger than " + max + " bytes");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // keep reading until full or EOF
            }
            byte[] out = new byte[buf.position()];
            buf.flip().get(out);
            return out;
        }
    }

    /**
     * Replaces the target atomically: a new temp file in the same directory (created {@code O_EXCL|O_NOFOLLOW}
     * relative to the directory descriptor), fsync, then {@code renameat} over the target within that same
     * descriptor, so the bytes can only land in the directory that was checked.
     */
    void replace(byte[] data, Set<PosixFilePermission> perms, PathGuard guard) throws IOException {
        Path tmp = Path.of(".mono-write-" + HexFormat.of().formatHex(randomBytes()) + ".tmp");
        if (guard.writeDenial(guard.toPolicySpace(dirPath.resolve(tmp))) != null) {
            throw new IOException("temporary file would be protected: " + dirPath.resolve(tmp));
        }
        boolean moved = false;
        try {
            try (SeekableByteChannel ch = dir.newByteChannel(tmp,
                    Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, NOFOLLOW),
                    PosixFilePermissions.asFileAttribute(FileAccess.NEW_FILE_PERMS))) {
                ByteBuffer buf = ByteBuffer.wrap(data);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                if (ch instanceof FileChannel fc) {
                    fc.force(true);
                }
            }
            // the create mode is masked by the umask; set the exact bits the target had (or rw-r--r--)
            dir.getFileAttributeView(tmp, PosixFileAttributeView.class, NOFOLLOW).setPermissions(perms);
            dir.move(tmp, dir, name);
            moved = true;
        } finally {
            if (!moved) {
                try {
                    dir.deleteFile(tmp);
                } catch (IOException ignored) {
                    // never created, or already gone
                }
            }
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return b;
    }

    @Override
    public void close() throws IOException {
        dir.close();
    }
}
