package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Whether an entry stands at a path (a final symlink not followed, as {@code Files.exists(p, NOFOLLOW_LINKS)} says),
 * for many paths that are mostly absent: the protected names checked before and after every command. The JDK has no
 * call for that which does not throw when nothing is there, and each {@code NoSuchFileException} costs its stack
 * trace: 40–60 absent names per command cost ≈ 0.5 ms of a warm command's ≈ 8 ms here (ADR 0021). So
 * each parent is listed once (one {@code getdents} for the workspace root's few dozen entries) and the names looked up
 * in that listing. A parent with more than {@link #CAP} entries, or one that cannot be read, is answered by one
 * {@code lstat} per path as before, so the cost stays flat in the directory's size.
 *
 * <p>One instance answers one moment's questions (a scan, one command's placeholders): a listing is taken when its
 * parent is first asked about and kept for the instance's life. What it says is what a separate {@code lstat} of each
 * path at that moment would have said — a listing does not follow links either (a dangling link is listed), and
 * a parent path is resolved as {@code lstat} resolves it (following links on the way).
 */
final class Presence {
    /** Entries past which a directory is not listed (each path in it is then looked up on its own). */
    static final int CAP = 256;
    /**
     * Per parent asked about: its entries' names, or null when it is answered per path. Names as paths, never strings:
     * a path compares its bytes, while two names that are not valid UTF-8 can decode to one string
     * ({@code a\xff} deleted beside {@code a\xfe} would be taken for present).
     */
    private final Map<Path, Set<Path>> listed = new HashMap<>();

    /** Whether an entry stands at {@code p} (not following a final link). */
    boolean exists(Path p) {
        Path parent = p.getParent();
        Path name = p.getFileName();
        if (parent == null || name == null) {
            return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
        }
        Set<Path> names;
        if (listed.containsKey(parent)) {
            names = listed.get(parent);
        } else {
            // a parent its own listed parent lacks has no entries (and is not opened: that would throw too)
            Path up = parent.getParent();
            names = up != null && listed.get(up) != null && !exists(parent) ? Set.of() : list(parent);
            listed.put(parent, names);
        }
        return names == null ? Files.exists(p, LinkOption.NOFOLLOW_LINKS) : names.contains(name);
    }

    /** The names in {@code dir}; empty when it is absent or no directory; null when it has more than CAP or fails. */
    static Set<Path> list(Path dir) {
        Set<Path> out = new HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path e : ds) {
                if (out.size() == CAP) {
                    return null;
                }
                out.add(e.getFileName());
            }
            return out;
        } catch (NoSuchFileException | NotDirectoryException e) {
            return Set.of(); // nothing can stand below it (lstat would say ENOENT or ENOTDIR)
        } catch (IOException | java.nio.file.DirectoryIteratorException e) {
            return null; // unreadable: each path is asked on its own
        }
    }
}
