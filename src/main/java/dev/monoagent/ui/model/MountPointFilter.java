package dev.monoagent.ui.model;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Hides the engine's transient mount points. While a sandboxed command (or the run's long-lived REPL) runs, srt
 * bind-mounts {@code /dev/null} or an empty read-only directory at protected paths that do not exist, and those mount
 * points are visible on the host as 0-byte read-only files ({@code .bashrc}, {@code .env}, {@code .vscode}, …). An
 * entry is litter when it did not exist when the workspace was opened and looks like such a mount point: a character
 * device, a 0-byte file without owner write permission, or an empty directory without it. Only the workspace root and
 * {@code .git} have a baseline (that is where srt puts them); deeper entries are litter only if they also carry a
 * protected or well-known dangerous name. Only entries with such names (srt's built-in list, {@code .env*}, or
 * protected by the policy) are ever hidden, so a reviewer never loses a real file to this filter; a directory the
 * engine created only to hold mount points ({@code .claude} for {@code .claude/commands}) is hidden with them.
 */
public final class MountPointFilter {
    /** srt's built-in protected names (see reference/srt-on-linux.md). */
    static final Set<String> ENGINE_NAMES = engineNames();

    private static Set<String> engineNames() {
        Set<String> s = new HashSet<>(dev.monoagent.sandbox.Policy.ENGINE_DANGEROUS_SEGMENTS);
        s.addAll(List.of("hooks", "config", ".env")); // .git/hooks, .git/config and .env mount points
        return Set.copyOf(s);
    }

    private final Map<Path, Set<String>> baseline = new HashMap<>();
    private final Predicate<Path> protectedPath;

    /** Records the baseline of {@code root} and {@code root/.git}; call when the workspace is opened. */
    public MountPointFilter(Path root, Predicate<Path> protectedPath) {
        this.protectedPath = protectedPath;
        record(root);
        record(root.resolve(".git"));
    }

    private void record(Path dir) {
        Set<String> names = new HashSet<>();
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    names.add(p.getFileName().toString());
                }
            } catch (IOException e) {
                return;
            }
        }
        baseline.put(dir, names);
    }

    /** True when {@code p} should not be shown. */
    public boolean hidden(Path p) {
        Path dir = p.getParent();
        String name = p.getFileName().toString();
        Set<String> known = baseline.get(dir);
        if (known != null && known.contains(name)) {
            return false;
        }
        if (!ENGINE_NAMES.contains(name) && !name.startsWith(".env") && !protectedPath.test(p)) {
            return false;
        }
        return looksLikeMountTree(p, 3);
    }

    /**
     * A mount point, or a directory the engine created to hold mount points ({@code .claude} for
     * {@code .claude/commands}): empty, or containing only such entries.
     */
    static boolean looksLikeMountTree(Path p, int depth) {
        if (looksLikeMountPoint(p)) {
            return true;
        }
        if (depth == 0 || !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(p)) {
            for (Path c : ds) {
                if (!looksLikeMountTree(c, depth - 1)) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static boolean looksLikeMountPoint(Path p) {
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
        if (a.isOther()) {
            return true;
        }
        boolean ownerWritable = a.permissions().contains(PosixFilePermission.OWNER_WRITE);
        if (a.isRegularFile()) {
            return a.size() == 0 && !ownerWritable;
        }
        if (a.isDirectory() && !ownerWritable) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(p)) {
                return !ds.iterator().hasNext();
            } catch (IOException e) {
                return false;
            }
        }
        return false;
    }
}
