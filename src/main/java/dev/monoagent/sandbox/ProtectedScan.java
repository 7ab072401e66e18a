package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * After-the-fact detection for what srt cannot stop on Linux: a protected-glob file that did not exist when the
 * command was wrapped ({@code .env.custom}). A snapshot of every path matching a protected glob is taken before and
 * after each command with a bounded walk (depth {@link PolicyCompiler#WALK_DEPTH}, skipping {@code node_modules},
 * {@code .git}, build dirs; ~1–3 ms on a typical workspace), plus the known dirs ({@code .git/hooks}). New files are
 * moved to {@code <ws>/.mono-agent/quarantine/<time>/} (nothing is deleted); changed ones are reported.
 *
 * <p>srt's mount points for absent literal denies (empty, read-only files) are not secrets; they are skipped only at
 * the literal paths we asked srt to protect, so a look-alike elsewhere is still caught.
 */
final class ProtectedScan {
    /** One protected path's identity (size, mtime, file key) at snapshot time. */
    record Key(long size, long mtime, Object fileKey) {}

    record Change(Path path, boolean created, Path quarantinedTo) {}

    /**
     * @param files  protected-glob matches with their identity (for detection)
     * @param layout digest of which wrap-relevant paths exist: protected matches, srt's built-in dangerous names,
     *               {@code .git} dirs and our literal denies. A wrap prepared for one layout is only reused for the
     *               same layout (srt's bwrap arguments depend on exactly these existence facts).
     */
    record Snapshot(Map<Path, Key> files, String layout) {}

    /** srt 0.0.78's built-in dangerous names (files and dirs) that change its bwrap arguments when they appear. */
    static final Set<String> SRT_DANGEROUS = srtDangerous();

    private static Set<String> srtDangerous() {
        Set<String> s = new HashSet<>(Policy.ENGINE_DANGEROUS_FILES);
        Policy.ENGINE_DANGEROUS_DIRS.forEach(d -> s.add(d.split("/")[0]));
        s.add(".git");
        return Set.copyOf(s);
    }

    private ProtectedScan() {}

    static Snapshot snapshot(Policy p, Collection<Path> denyLiterals) {
        Map<Path, Key> out = new HashMap<>();
        java.util.TreeSet<String> layout = new java.util.TreeSet<>();
        Set<Path> literals = new HashSet<>(denyLiterals);
        Path ws = p.workspace();
        for (Path lit : denyLiterals) {
            if (Files.exists(lit, LinkOption.NOFOLLOW_LINKS)) {
                layout.add("L " + lit);
            }
        }
        if (!Files.isDirectory(ws)) {
            return new Snapshot(out, TreeDigest.sha256(String.join("\n", layout)));
        }
        try {
            Files.walkFileTree(ws, EnumSet.noneOf(FileVisitOption.class), PolicyCompiler.WALK_DEPTH,
                    new SimpleFileVisitor<>() {
                        int seen;

                        @Override
                        public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                            if (!d.equals(ws) && SRT_DANGEROUS.contains(d.getFileName().toString())) {
                                layout.add("D " + d);
                            }
                            if (!d.equals(ws) && PolicyCompiler.SKIP_DIRS.contains(d.getFileName().toString())) {
                                return FileVisitResult.SKIP_SUBTREE;
                            }
                            return ++seen > PolicyCompiler.WALK_MAX_ENTRIES ? FileVisitResult.TERMINATE
                                    : FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                            if (SRT_DANGEROUS.contains(f.getFileName().toString())) {
                                layout.add("F " + f);
                            }
                            consider(p, literals, f, a, out);
                            return ++seen > PolicyCompiler.WALK_MAX_ENTRIES ? FileVisitResult.TERMINATE
                                    : FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path f, IOException e) {
                            return FileVisitResult.CONTINUE;
                        }
                    });
            for (Path known : List.of(ws.resolve(".git/hooks"))) {
                if (Files.isDirectory(known, LinkOption.NOFOLLOW_LINKS)) {
                    try (var s = Files.list(known)) {
                        for (Path f : (Iterable<Path>) s::iterator) {
                            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class,
                                    LinkOption.NOFOLLOW_LINKS);
                            out.put(f, new Key(a.size(), a.lastModifiedTime().toMillis(), a.fileKey()));
                        }
                    }
                }
            }
        } catch (IOException ignored) {
            // partial snapshot: compared as is
        }
        for (Path f : out.keySet()) {
            layout.add("P " + f);
        }
        return new Snapshot(out, TreeDigest.sha256(String.join("\n", layout)));
    }

    private static void consider(Policy p, Set<Path> literals, Path f, BasicFileAttributes a, Map<Path, Key> out) {
        if (p.protectedGlob(f) == null) {
            return;
        }
        if (literals.contains(f) && a.isRegularFile() && a.size() == 0 && isReadOnly(f)) {
            return;
        }
        out.put(f, new Key(a.size(), a.lastModifiedTime().toMillis(), a.fileKey()));
    }

    private static boolean isReadOnly(Path f) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS);
            return !perms.contains(PosixFilePermission.OWNER_WRITE) && !perms.contains(PosixFilePermission.GROUP_WRITE)
                    && !perms.contains(PosixFilePermission.OTHERS_WRITE);
        } catch (IOException e) {
            return false;
        }
    }

    /** Compares snapshots; new protected files are moved to the quarantine dir. */
    static List<Change> detect(Policy p, Map<Path, Key> before, Map<Path, Key> after) {
        List<Change> out = new ArrayList<>();
        Path qdir = null;
        for (Map.Entry<Path, Key> e : after.entrySet()) {
            Key old = before.get(e.getKey());
            if (old == null) {
                if (qdir == null) {
                    qdir = p.workspace().resolve(".mono-agent/quarantine/"
                            + Instant.now().toString().replace(':', '-'));
                }
                out.add(new Change(e.getKey(), true, quarantine(p.workspace(), e.getKey(), qdir)));
            } else if (!old.equals(e.getValue())) {
                out.add(new Change(e.getKey(), false, null));
            }
        }
        return out;
    }

    private static Path quarantine(Path ws, Path f, Path qdir) {
        try {
            Path dest = qdir.resolve(ws.relativize(f).toString());
            Files.createDirectories(dest.getParent());
            Files.move(f, dest, StandardCopyOption.ATOMIC_MOVE);
            return dest;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
