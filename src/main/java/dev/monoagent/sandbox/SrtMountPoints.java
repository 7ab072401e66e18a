package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where srt's live sandboxes of one engine have mount points on the host. For a denied path that does not exist when
 * a command is wrapped, srt binds a read-only placeholder over its first missing component ({@code /dev/null} for the
 * path itself, an empty directory for a missing parent), and bubblewrap creates that component in the workspace: an
 * empty file with no write bits, or an empty directory — there for as long as that sandbox lives, and past it until
 * srt's counter of outstanding wraps is back at zero. Moving or deleting one from the host detaches that sandbox's
 * bind, and the denied path becomes writable inside it, so no scan may quarantine, restore or record
 * one while any sandbox of the engine lives. Once none does, whatever is left is removed ({@link #close}).
 *
 * <p>Computed from what srt is given, the same rule it applies (first missing component at wrap time), not from its
 * bwrap arguments (which may be passed through a file). A path only counts while it still has a placeholder's shape:
 * an empty read-only file, or a directory holding nothing but such entries on the way to a denied path — anything
 * the sandbox could have written there (content, another name) makes it an ordinary path again.
 */
final class SrtMountPoints {
    private final List<Path> roots;
    /** Per live wrap (commandId): the first missing component of each of its denied paths when it was wrapped. */
    private final Map<String, Set<Path>> live = new HashMap<>();
    /** Placeholders of every wrap since the set was last empty (srt removes them only when all are cleaned up). */
    private final Set<Path> placed = new LinkedHashSet<>();
    /** The denied paths of those wraps: a placeholder directory may hold only entries on the way to one. */
    private final Set<Path> denied = new HashSet<>();
    /**
     * Where a warm command's placeholders wait between commands (null: none kept): a directory of the host's own in
     * the workspace's state dir (read-only inside every sandbox), on the workspace's filesystem, so moving one there
     * and back is a rename — and the warm shell's bind over it moves with it (a mount sits on the directory entry), so
     * the next command finds it bound already. Entries are numbered after an engine's own random prefix (two engines on
     * one workspace never rename over each other's), never named as the placeholder they are.
     */
    private final Path stash;
    /** Placeholders made by {@link #openWarm} (the ones that may wait in the stash): path → whether a directory. */
    private final Map<Path, Boolean> warmMade = new HashMap<>();
    /** Placeholders waiting in the stash: path → entry name there. */
    private final Map<Path, String> stashed = new HashMap<>();
    private long stashSeq;
    /** This engine's prefix for stash entries: two engines on one workspace never rename over each other's. */
    private final String stashPrefix = java.util.HexFormat.of().formatHex(randomBytes()) + "-";
    /** Bumped whenever placeholders may come, go or move (see {@link #generation}). */
    private long generation;

    /** {@code roots}: the writable roots (srt places nothing outside them: the rest is read-only already). */
    SrtMountPoints(Collection<Path> roots) {
        this(roots, null);
    }

    /** As above, keeping warm placeholders between commands in {@code stash} (see {@link #stash}). */
    SrtMountPoints(Collection<Path> roots, Path stash) {
        List<Path> r = new ArrayList<>();
        for (Path p : roots) {
            r.add(p.toAbsolutePath().normalize());
        }
        this.roots = List.copyOf(r);
        this.stash = stash == null ? null : stash.toAbsolutePath().normalize();
        // a stash left by an earlier process holds nothing anyone binds any more
        NoFollowFs.deleteTree(this.stash);
    }

    /**
     * srt's own denies at its working directory (the workspace), added to ours on every wrap (srt 0.0.78
     * {@code linuxGetCwdMandatoryDenyPaths}); its nested scan only adds paths that exist.
     */
    static List<Path> srtCwdDenies(Path ws) {
        List<Path> out = new ArrayList<>();
        Policy.ENGINE_DANGEROUS_FILES.forEach(f -> out.add(ws.resolve(f)));
        Policy.ENGINE_DANGEROUS_DIRS.forEach(d -> out.add(ws.resolve(d)));
        if (Files.isDirectory(ws.resolve(".git"))) {
            out.add(ws.resolve(".git/hooks"));
            out.add(ws.resolve(".git/config"));
        }
        return out;
    }

    /** A placeholder the warm shell binds for one command: {@code dir} when it stands for a missing parent. */
    record Mark(Path path, boolean dir) {}

    /**
     * A wrap was made for {@code id} with these denied paths (absolute): its placeholders count from now on. It holds
     * the first missing component of each (srt creates and binds it) and every placeholder already on the host on the
     * way to one (srt binds an existing path over itself, so removing that placeholder would detach its bind).
     */
    synchronized void open(String id, Collection<Path> deniedPaths) {
        generation++;
        Map<Path, Boolean> mine = nodes(deniedPaths, new HashSet<>());
        live.put(id, new LinkedHashSet<>(mine.keySet()));
        placed.addAll(mine.keySet());
    }

    /**
     * A number that changes whenever placeholders may have come, gone or moved on the host: a wrap srt prepared ahead
     * (deciding then which denied paths exist) fits only while it is unchanged.
     */
    synchronized long generation() {
        return generation;
    }

    /** The wrap counted under {@code from} (before srt named it) is {@code to} from now on. */
    synchronized void rekey(String from, String to) {
        Set<Path> held = live.remove(from);
        if (held != null) {
            live.put(to, held);
        }
    }

    /**
     * One command on a warm shell ({@code id}): the placeholders it needs bound in the shell's mount namespace before
     * it starts — the first missing component of each denied path, and each placeholder already there on the way to
     * one (a bind the host's removal of it detached). The shell creates the missing ones inside the sandbox and binds
     * every one read-only over itself; they count as held by {@code id} until {@link #close}, which removes them.
     */
    synchronized List<Mark> openWarm(String id, Collection<Path> deniedPaths) {
        generation++;
        Set<Path> absent = new HashSet<>();
        Map<Path, Boolean> mine = nodes(deniedPaths, absent);
        live.put(id, new LinkedHashSet<>(mine.keySet()));
        placed.addAll(mine.keySet());
        List<Mark> out = new ArrayList<>();
        Map<Path, List<Path>> files = new java.util.LinkedHashMap<>();
        Map<Path, List<Path>> back = new java.util.LinkedHashMap<>();
        // a placeholder another live wrap holds may be made by its bubblewrap any moment (after its wrap was counted,
        // which this lock orders): it is made here by O_EXCL instead, never renamed over (a rename replaces)
        Set<Path> others = new HashSet<>();
        live.forEach((k, v) -> {
            if (!k.equals(id)) {
                others.addAll(v);
            }
        });
        mine.forEach((p, dir) -> {
            if (absent.contains(p)) {
                if (stashed.containsKey(p) && !dir.equals(warmMade.get(p))) {
                    dropStashed(stashed.remove(p)); // the same name now stands for the other kind
                }
                if (stashed.containsKey(p) && !others.contains(p)) {
                    back.computeIfAbsent(p.getParent(), k -> new ArrayList<>()).add(p);
                } else if (dir) {
                    createDir(p);
                } else {
                    files.computeIfAbsent(p.getParent(), k -> new ArrayList<>()).add(p);
                }
                warmMade.put(p, dir);
            }
            out.add(new Mark(p, dir));
        });
        List<Path> notBack = new ArrayList<>();
        back.forEach((parent, places) -> notBack.addAll(unstash(parent, places)));
        files.forEach(SrtMountPoints::createFiles);
        // one the stash could not give back is made afresh (the shell binds it; mountinfo tells it apart)
        for (Path p : notBack) {
            if (mine.get(p)) {
                createDir(p);
            } else {
                createFiles(p.getParent(), List.of(p));
            }
        }
        return out;
    }

    /**
     * Moves stashed placeholders back to their places in {@code parent}; returns those it could not move (still
     * missing, unless something appeared there meanwhile, which is left as it is).
     */
    private List<Path> unstash(Path parent, List<Path> places) {
        List<Path> failed = new ArrayList<>();
        try (var from = NoFollowFs.openDir(stash, false); var to = NoFollowFs.openDir(parent, false)) {
            for (Path p : places) {
                String s = stashed.remove(p);
                try {
                    // absent a moment ago and only the host writes here: nothing is replaced
                    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                        from.move(Path.of(s), to, p.getFileName());
                    } else {
                        dropStashed(s);
                    }
                } catch (IOException e) {
                    dropStashed(s);
                    failed.add(p);
                }
            }
        } catch (IOException e) {
            // no stash (or no parent): made afresh by the caller
            for (Path p : places) {
                stashed.remove(p);
                failed.add(p);
            }
        }
        return failed;
    }

    /**
     * Moves warm commands' placeholders (swept, scanned, held by no live wrap, still of a placeholder's shape) into
     * the stash instead of deleting them; returns the ones that could not go there (the caller deletes those).
     */
    private List<Path> toStash(List<Path> gone) {
        Path ws = stash == null ? null : stash.getParent().getParent();
        Map<Path, List<Path>> byParent = new java.util.LinkedHashMap<>();
        List<Path> rest = new ArrayList<>();
        for (Path p : gone) {
            Boolean dir = warmMade.get(p);
            if (ws == null || dir == null || !p.startsWith(ws) || p.startsWith(stash) || stashed.containsKey(p)
                    || dir != Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                rest.add(p);
            } else {
                byParent.computeIfAbsent(p.getParent(), k -> new ArrayList<>()).add(p);
            }
        }
        if (byParent.isEmpty()) {
            return rest;
        }
        try (var to = NoFollowFs.openDir(stash, true)) {
            for (Map.Entry<Path, List<Path>> e : byParent.entrySet()) {
                try (var from = NoFollowFs.openDir(e.getKey(), false)) {
                    for (Path p : e.getValue()) {
                        String name = stashPrefix + (++stashSeq);
                        try {
                            from.move(p.getFileName(), to, Path.of(name));
                            stashed.put(p, name);
                        } catch (IOException x) {
                            rest.add(p);
                        }
                    }
                } catch (IOException x) {
                    rest.addAll(e.getValue());
                }
            }
        } catch (IOException x) {
            byParent.values().forEach(rest::addAll);
        }
        return rest;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[6];
        new java.security.SecureRandom().nextBytes(b);
        return b;
    }

    private void dropStashed(String name) {
        Path e = stash.resolve(name);
        try {
            if (Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                NoFollowFs.deleteTree(e);
            } else {
                Files.deleteIfExists(e);
            }
        } catch (IOException ignored) {
            // left for the stash's own removal
        }
    }

    /** Deletes the stash and forgets the warm placeholders (no warm shell left to bind them). */
    synchronized void dropStash() {
        stashed.clear();
        warmMade.clear();
        NoFollowFs.deleteTree(stash);
    }

    /**
     * Makes missing placeholders on the host, as bubblewrap would: empty files with no write bits (here) or an empty
     * directory ({@link #createDir}). Made here rather than in the sandbox, where srt's feed would report each as a
     * write to a denied path. Files are created by descriptor below their parent, opened once without following links;
     * a directory's parent is a writable root itself in practice (srt's names lie directly below the workspace).
     */
    private static void createFiles(Path parent, List<Path> files) {
        try (var dir = NoFollowFs.openDir(parent, false)) {
            for (Path f : files) {
                try {
                    NoFollowFs.createEmpty(dir, f.getFileName(), READ_ONLY);
                } catch (IOException e) {
                    // made meanwhile: the shell binds what is there, or refuses
                }
            }
        } catch (IOException e) {
            // a parent that is no directory (or a link): the shell refuses to bind what is missing
        }
    }

    private static final Set<java.nio.file.attribute.PosixFilePermission> READ_ONLY =
            java.nio.file.attribute.PosixFilePermissions.fromString("r--r--r--");

    private static void createDir(Path p) {
        try {
            Files.createDirectory(p, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            // made meanwhile, or a parent that is no directory: the shell binds what is there or refuses
        }
    }

    /**
     * The warm shell's own wrap ({@code id}) stays live but holds none of its placeholders: each of its commands binds
     * its own ({@link #openWarm}), so the ones srt made when the shell started are removed now (unless another sandbox
     * holds them) instead of lasting as long as the shell; removing one detaches srt's bind in the shell, where no
     * command runs yet.
     */
    synchronized void holdNone(String id) {
        if (live.containsKey(id)) {
            live.put(id, Set.of());
            removeUnheld();
        }
    }

    /**
     * Per node (first missing component, or a placeholder already there): whether it stands for a missing parent.
     * The nodes found absent (not placeholders already there) are added to {@code absent}.
     */
    private Map<Path, Boolean> nodes(Collection<Path> deniedPaths, Set<Path> absent) {
        Map<Path, Boolean> mine = new java.util.LinkedHashMap<>();
        Presence present = new Presence();
        for (Path raw : deniedPaths) {
            Path d = raw.toAbsolutePath().normalize();
            Path root = rootOf(d);
            if (root == null || d.equals(root)) {
                continue;
            }
            denied.add(d);
            Path first = firstMissing(root, d, absent, present);
            if (first != null) {
                mine.merge(first, !first.equals(d), Boolean::logicalOr);
            }
        }
        return mine;
    }

    /**
     * The sandbox wrapped for {@code id} is gone and srt was told (its cleanup ran), or the warm command {@code id}
     * ended and its processes were swept. Every placeholder no live wrap holds (nor one inside or around it) is removed
     * from the host now: srt leaves them while any wrap is outstanding, and a warm shell's wrap is outstanding for as
     * long as the shell lives. When it was the last live one, everything placed is gone (as far as it still has a
     * placeholder's shape) and forgotten.
     */
    synchronized void close(String id) {
        if (live.remove(id) == null) {
            return;
        }
        removeUnheld();
    }

    /** Removes from the host every placeholder no live wrap holds (see {@link #close}). */
    synchronized void removeUnheld() {
        Set<Path> held = new HashSet<>();
        live.values().forEach(held::addAll);
        List<Path> all = new ArrayList<>(placed);
        // deepest first: a placeholder inside another one's directory goes before that directory
        all.sort(Comparator.comparingInt(Path::getNameCount).reversed());
        List<Path> gone = new ArrayList<>();
        for (Path p : all) {
            if (held.stream().noneMatch(h -> h.startsWith(p) || p.startsWith(h))) {
                gone.add(p);
                placed.remove(p);
            }
        }
        // deepest first still: what another wrap placed inside a warm command's placeholder directory (srt's entries
        // in an empty .git) is removed before that directory is judged, so only empty ones go to the stash
        List<Path> toStash = new ArrayList<>();
        for (Path p : gone) {
            if (warmMade.containsKey(p) && shaped(p, 0)) {
                toStash.add(p);
            } else if (remove(p)) {
                generation++;
            }
        }
        List<Path> left = toStash(toStash);
        if (left.size() < toStash.size()) {
            generation++;
        }
        for (Path p : left) {
            if (remove(p)) {
                generation++;
            }
        }
        if (live.isEmpty()) {
            placed.clear();
            denied.clear();
            dropStash();
        }
    }

    /**
     * What makes a {@code .git} placeholder a repository: a wrap made while one is on the host (another sandbox's:
     * an empty directory, read-only only inside that sandbox) sees an existing {@code .git} directory, and srt then
     * denies only the entries it was given — so these are given too (else a second sandbox
     * could write HEAD, objects and refs into the placeholder, and host git would see a repository).
     */
    static final List<String> REPOSITORY_ENTRIES = List.of("HEAD", "objects", "refs", "commondir", "config.worktree",
            "modules", "worktrees", "index", "packed-refs");

    /** For each {@code .git} placeholder on the host now, its {@link #REPOSITORY_ENTRIES} (to deny in a new wrap). */
    synchronized List<String> repositoryEntriesOfPlaceholders() {
        List<String> out = new ArrayList<>();
        if (live.isEmpty()) {
            return out;
        }
        for (Path p : placed) {
            if (p.getFileName() != null && p.getFileName().toString().equals(".git")
                    && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && shaped(p, 0)) {
                REPOSITORY_ENTRIES.forEach(e -> out.add(p.resolve(e).toString()));
            }
        }
        return out;
    }

    /** Whether some sandbox of the engine is live (wrapped and not yet cleaned up). */
    synchronized boolean anyLive() {
        return !live.isEmpty();
    }

    /**
     * Whether {@code p} is one of srt's placeholders (or inside one) while a sandbox lives: never a protected file
     * written, a repository or a git redirection, and never to be moved.
     */
    synchronized boolean excused(Path p) {
        if (live.isEmpty()) {
            return false;
        }
        Path n = p.toAbsolutePath().normalize();
        for (Path r : placed) {
            if (n.startsWith(r) && shaped(n, 0)) {
                return true;
            }
        }
        return false;
    }

    private Path rootOf(Path d) {
        for (Path r : roots) {
            if (d.startsWith(r)) {
                return r;
            }
        }
        return null;
    }

    /** The first component of {@code d} below {@code root} that is absent or one of the placeholders placed. */
    private Path firstMissing(Path root, Path d, Set<Path> absent, Presence present) {
        Path acc = root;
        for (Path part : root.relativize(d)) {
            acc = acc.resolve(part);
            if (!present.exists(acc)) {
                absent.add(acc);
                return acc;
            }
            if (placed.contains(acc) && shaped(acc, 0)) {
                return acc;
            }
            if (!Files.isDirectory(acc, LinkOption.NOFOLLOW_LINKS)) {
                return null; // nothing can be created below a file (srt skips such a deny)
            }
        }
        return null;
    }

    /** A placeholder's shape at {@code p}: on the way to (or at) a denied path, empty, or holding only such. */
    private boolean shaped(Path p, int depth) {
        if (depth > 16 || denied.stream().noneMatch(d -> d.startsWith(p))) {
            return false;
        }
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return false;
        }
        if (a.isRegularFile()) {
            Set<PosixFilePermission> perms = a.permissions();
            return a.size() == 0 && !perms.contains(PosixFilePermission.OWNER_WRITE)
                    && !perms.contains(PosixFilePermission.GROUP_WRITE)
                    && !perms.contains(PosixFilePermission.OTHERS_WRITE);
        }
        if (!a.isDirectory()) {
            return false;
        }
        try (var s = Files.list(p)) {
            for (Path c : (Iterable<Path>) s::iterator) {
                if (!shaped(c, depth + 1)) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Removes a leftover placeholder that still has its shape (nothing sandboxed is alive to swap it); whether
     * something was deleted.
     */
    private boolean remove(Path p) {
        if (!shaped(p, 0)) {
            return false;
        }
        try {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                List<Path> children;
                try (var s = Files.list(p)) {
                    children = s.toList();
                }
                for (Path c : children) {
                    remove(c);
                }
            }
            return Files.deleteIfExists(p);
        } catch (IOException ignored) {
            return false; // gone already, or no longer empty: left as it is
        }
    }
}
