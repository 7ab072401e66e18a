package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
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
 * after each command by {@link ProtectedFinder} (no depth limit, no skipped dirs, ignore files ignored; a few ms on a
 * typical workspace, ≈ 0.1–0.2 s per 100k files), plus the known dirs ({@code .git/hooks}) and hooks of nested
 * repositories. New files are
 * moved to {@code <ws>/.mono-agent/quarantine/<time>/} (nothing is deleted); changed ones are reported.
 *
 * <p>srt's mount points for absent literal denies (empty, read-only files) are not secrets; they are skipped only at
 * the literal paths we asked srt to protect, so a look-alike elsewhere is still caught.
 */
final class ProtectedScan {
    /**
     * One protected path's identity at snapshot time: size, mtime, file key and ctime. The file key alone is no
     * identity — ext4 hands a freed inode number straight back, so two editor saves in a row restore it — and
     * ctime, which nothing sandboxed can set, also changes with a write that keeps size and mtime. For a
     * symlink, {@code link} is its text: srt binds only the link's target, so the link itself is an ordinary entry a
     * command can replace, and {@link #detect} puts it back as it was. {@code hops} are the other symlinks met while
     * resolving it ({@code .env -> conf/prod.env} with {@code conf -> envs}: srt bound only {@code envs/prod.env}, so a
     * command that repoints the unprotected {@code conf} changes what {@code .env} reads without touching it), and
     * {@code real} is where it led; both null for anything but a symlink.
     */
    record Key(long size, long mtime, Object fileKey, long ctime, String link, List<Hop> hops, String real) {
        Key(long size, long mtime, Object fileKey) {
            this(size, mtime, fileKey, -1, null, null, null);
        }

        /** The path's key now without following a link, or null when nothing is there. */
        static Key read(Path f) {
            try {
                return of(f, Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
            } catch (IOException e) {
                return null;
            }
        }

        static Key of(Path f, BasicFileAttributes a) {
            long ct = -1;
            try {
                Object t = Files.getAttribute(f, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
                if (t instanceof java.nio.file.attribute.FileTime ft) {
                    ct = ft.to(java.util.concurrent.TimeUnit.NANOSECONDS);
                }
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                // no unix view (or gone): size, mtime and file key only
            }
            String link = null;
            Resolved r = null;
            if (a.isSymbolicLink()) {
                try {
                    link = Files.readSymbolicLink(f).toString();
                    r = resolve(f);
                } catch (IOException | UnsupportedOperationException e) {
                    // replaced between the two reads: compared by identity only
                }
            }
            return new Key(a.size(), a.lastModifiedTime().toMillis(), a.fileKey(), ct, link,
                    r == null ? null : r.hops(), r == null ? null : r.real());
        }

        /**
         * What the layout names: which file is at the path, not what it holds; for a symlink also where it leads, so a
         * directory on the way repointed by the human (srt bound the old target) gets new binds.
         */
        String identity() {
            return fileKey + " " + ctime + (link == null ? "" : " -> " + real);
        }
    }

    /** A symlink met on the way from a protected symlink to its target: where it is (a real directory) and its text. */
    record Hop(Path path, String text) {}

    /** What resolving a symlink met: the other symlinks on the way, and the real path (null when it leads nowhere). */
    record Resolved(List<Hop> hops, String real) {}

    /**
     * Resolves {@code link} as the kernel does, component by component, recording every symlink met after the first
     * (each {@link Hop#path} lies in a real directory, so it can be put back by descriptor). Gives up after 40 links
     * (the kernel's limit) or at the first missing component: {@code real} is then null.
     */
    static Resolved resolve(Path link) {
        List<Hop> hops = new ArrayList<>();
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>();
        Path abs = link.toAbsolutePath();
        for (Path n : abs) {
            todo.add(n.toString());
        }
        Path cur = abs.getRoot();
        int links = 0;
        while (!todo.isEmpty()) {
            String n = todo.poll();
            if (n.isEmpty() || n.equals(".")) {
                continue;
            }
            if (n.equals("..")) {
                cur = cur.getParent() == null ? cur : cur.getParent();
                continue;
            }
            Path next = cur.resolve(n);
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(next, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                return new Resolved(List.copyOf(hops), null);
            }
            if (!a.isSymbolicLink()) {
                cur = next;
                continue;
            }
            String text;
            try {
                text = Files.readSymbolicLink(next).toString();
            } catch (IOException e) {
                return new Resolved(List.copyOf(hops), null);
            }
            if (++links > 40) {
                return new Resolved(List.copyOf(hops), null);
            }
            if (!next.equals(abs)) {
                hops.add(new Hop(next, text));
            }
            Path t = Path.of(text);
            java.util.ArrayDeque<String> front = new java.util.ArrayDeque<>();
            for (Path tn : t) {
                front.add(tn.toString());
            }
            while (!front.isEmpty()) {
                todo.addFirst(front.pollLast());
            }
            if (t.isAbsolute()) {
                cur = t.getRoot();
            }
        }
        return new Resolved(List.copyOf(hops), cur.toString());
    }

    /**
     * One protected path that changed. {@code link} is set for a protected symlink a command removed or replaced: the
     * link's text, put back ({@code linkRestored}) after whatever took its place was moved to {@code quarantinedTo}.
     * {@code via} is set when {@code path} is not protected itself but a symlink on the way to the protected symlink
     * {@code via} (a {@link Hop}); {@code ledTo} when a protected symlink still leads elsewhere after that (to what).
     */
    record Change(Path path, boolean created, Path quarantinedTo, String link, boolean linkRestored, Path via,
                  String ledTo) {
        Change(Path path, boolean created, Path quarantinedTo) {
            this(path, created, quarantinedTo, null, false, null, null);
        }
    }

    /**
     * @param files  protected-glob matches with their identity (for detection)
     * @param layout digest of which wrap-relevant paths exist: protected matches, srt's built-in dangerous names,
     *               {@code .git} dirs and our literal denies. A wrap prepared for one layout is only reused for the
     *               same layout (srt's bwrap arguments depend on exactly these existence facts).
     */
    record Snapshot(Map<Path, Key> files, String layout, Map<Path, GitEntry> git, Set<Path> repos) {
        Snapshot(Map<Path, Key> files, String layout) {
            this(files, layout, Map.of(), Set.of());
        }

        Snapshot(Map<Path, Key> files, String layout, Map<Path, GitEntry> git) {
            this(files, layout, git, Set.of());
        }
    }

    /**
     * What a git redirection entry was: {@code kind} 'D' directory, 'L' symlink (with its target), 'F' small file
     * (with its bytes), 'A' absent. Compared before/after each command and restored when changed.
     */
    record GitEntry(char kind, String target, byte[] bytes) {
        boolean same(GitEntry o) {
            return o != null && kind == o.kind && java.util.Objects.equals(target, o.target)
                    && java.util.Arrays.equals(bytes, o.bytes);
        }
    }

    /** Largest file content kept for restoring ({@code .git} gitdir files and {@code commondir} are one line). */
    static final int GIT_ENTRY_MAX = 4096;

    /** srt 0.0.78's built-in dangerous names (files and dirs) that change its bwrap arguments when they appear. */
    static final Set<String> SRT_DANGEROUS = srtDangerous();

    private static Set<String> srtDangerous() {
        Set<String> s = new HashSet<>(Policy.ENGINE_DANGEROUS_FILES);
        Policy.ENGINE_DANGEROUS_DIRS.forEach(d -> s.add(d.split("/")[0]));
        s.add(".git");
        return Set.copyOf(s);
    }

    private ProtectedScan() {}

    /** A path segment srt's nested scan takes for dangerous (it compares in lower case). */
    static boolean srtDangerous(String segment) {
        return SRT_DANGEROUS.contains(segment.toLowerCase(java.util.Locale.ROOT));
    }

    static Snapshot snapshot(Policy p, Collection<Path> denyLiterals) {
        return snapshot(p, denyLiterals, null);
    }

    /** A snapshot using {@code rg} for the walk ({@link ProtectedFinder}; null: Java walk). */
    static Snapshot snapshot(Policy p, Collection<Path> denyLiterals, Path rg) {
        return snapshot(p, denyLiterals, rg, null);
    }

    /**
     * A snapshot from the watch's index when it can be trusted ({@link ProtectedWatch#indexed}: synced, no lost
     * events, every directory watched), else from the full walk. Both list the same paths; only the cost differs.
     */
    static Snapshot snapshot(Policy p, Collection<Path> denyLiterals, Path rg, ProtectedWatch watch) {
        return snapshot(p, denyLiterals, rg, watch, f -> false);
    }

    /**
     * As above; {@code mountPoint} tells srt's placeholders of live sandboxes ({@link SrtMountPoints#excused}), which
     * are left out: nobody wrote them, and moving one would detach a live sandbox's read-only bind.
     */
    static Snapshot snapshot(Policy p, Collection<Path> denyLiterals, Path rg, ProtectedWatch watch,
                             java.util.function.Predicate<Path> mountPoint) {
        Map<Path, Key> out = new HashMap<>();
        java.util.TreeSet<String> layout = new java.util.TreeSet<>();
        Set<Path> literals = new HashSet<>(denyLiterals);
        Path ws = p.workspace();
        // most literals are absent: their parents are listed once instead of an lstat that throws for each
        Presence present = new Presence();
        for (Path lit : denyLiterals) {
            // with its identity, as for the protected files below: a literal the host replaced (an editor's save of a
            // protected link's target, now a literal; the human's `git config` renaming a new .git/config in) takes the
            // bind over it out of a warm shell's mount namespace, where the target would be writable
            Object id = present.exists(lit) ? fileKeyOrNull(lit) : null;
            if (id != null && !mountPoint.test(lit)) {
                layout.add("L " + lit + " " + id);
            }
        }
        Map<Path, GitEntry> git = gitState(ws, present);
        if (!Files.isDirectory(ws)) {
            return new Snapshot(out, TreeDigest.sha256(String.join("\n", layout)), git);
        }
        Set<Path> repos = new java.util.LinkedHashSet<>();
        try {
            List<Path> found = watch != null && watch.sync() ? watch.indexed() : null;
            if (found == null) {
                found = ProtectedFinder.find(p, rg);
            }
            repos.addAll(HostControl.gitDenies(p, found));
            for (Path f : found) {
                Path root = p.rootOf(f);
                if (root == null) {
                    continue;
                }
                Path rel = root.relativize(f);
                Path acc = root;
                for (int i = 0; i < rel.getNameCount() - 1; i++) {
                    acc = acc.resolve(rel.getName(i));
                    if (srtDangerous(rel.getName(i).toString()) && !mountPoint.test(acc)) {
                        layout.add("D " + acc);
                    }
                }
                if (srtDangerous(f.getFileName().toString()) && !mountPoint.test(f)) {
                    layout.add("F " + f);
                }
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException gone) {
                    continue;
                }
                if (nestedHook(rel)) {
                    out.put(f, Key.of(f, a));
                }
                if (!mountPoint.test(f)) {
                    consider(p, literals, f, a, out);
                }
            }
            for (Path known : List.of(ws.resolve(".git/hooks"))) {
                if (Files.isDirectory(known, LinkOption.NOFOLLOW_LINKS)) {
                    try (var s = Files.list(known)) {
                        for (Path f : (Iterable<Path>) s::iterator) {
                            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class,
                                    LinkOption.NOFOLLOW_LINKS);
                            out.put(f, Key.of(f, a));
                        }
                    }
                }
            }
        } catch (IOException ignored) {
            // partial snapshot: compared as is
        }
        // with its identity: a file replaced on the host (an editor's save renames a new file over it) takes the
        // bind over it out of a warm shell's mount namespace, so a shell made for the old one must not be reused (a
        // repointed symlink likewise)
        out.forEach((f, k) -> layout.add("P " + f + " " + k.identity()));
        // a live sandbox's placeholder is not part of the layout: it comes and goes with the sandboxes (a warm shell's
        // commands each bind their own), and srt's arguments for the paths below it are the same either way
        git.forEach((path, e) -> layout.add("G " + path + " " + (mountPoint.test(path) ? 'A' : e.kind())));
        repos.forEach(r -> {
            if (!mountPoint.test(r)) {
                layout.add("R " + r);
            }
        });
        return new Snapshot(out, TreeDigest.sha256(String.join("\n", layout)), git, repos);
    }

    /** The file key of what stands at {@code p} (not following a link), or null when nothing does. */
    private static Object fileKeyOrNull(Path p) {
        try {
            Object k = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            return k == null ? "?" : k;
        } catch (IOException e) {
            return null;
        }
    }

    /** The workspace's {@code .git} entry itself and its {@code commondir}: what redirects host git elsewhere. */
    static Map<Path, GitEntry> gitState(Path ws, Presence present) {
        Map<Path, GitEntry> m = new java.util.LinkedHashMap<>();
        Path dotGit = ws.resolve(".git");
        Path commondir = dotGit.resolve("commondir");
        if (!present.exists(dotGit)) {
            // a workspace without a repository (asked of the listing the literals were looked up in)
            m.put(dotGit, new GitEntry('A', null, null));
            m.put(commondir, new GitEntry('A', null, null));
            return m;
        }
        m.put(dotGit, gitEntry(dotGit));
        m.put(commondir, Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS) ? gitEntry(commondir)
                : new GitEntry('A', null, null));
        return m;
    }

    private static GitEntry gitEntry(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) {
                return new GitEntry('L', Files.readSymbolicLink(p).toString(), null);
            }
            if (a.isDirectory()) {
                return new GitEntry('D', null, null);
            }
            if (a.isRegularFile() && a.size() <= GIT_ENTRY_MAX) {
                return new GitEntry('F', null, Files.readAllBytes(p));
            }
            return new GitEntry('F', "size " + a.size() + " key " + a.fileKey(), null);
        } catch (java.nio.file.NoSuchFileException e) {
            return new GitEntry('A', null, null);
        } catch (IOException e) {
            return new GitEntry('F', "unreadable", null);
        }
    }

    /**
     * Changes to the git redirection entries: the command's version is moved to quarantine and the previous one
     * restored (a symlink re-created, a small file re-written, an absent entry left absent), so host git never
     * follows a redirection the agent planted. A previous real directory cannot be recreated from here; that change
     * is reported only.
     */
    static List<Change> detectGit(Policy p, Map<Path, GitEntry> before, Map<Path, GitEntry> after) {
        List<Change> out = new ArrayList<>();
        Path qdir = null;
        for (Map.Entry<Path, GitEntry> e : after.entrySet()) {
            GitEntry old = before.get(e.getKey());
            if (old == null || old.same(e.getValue())) {
                continue;
            }
            // a directory turning into a directory is no change; commondir is judged only while .git is a dir
            Path path = e.getKey();
            Path moved = null;
            if (e.getValue().kind() != 'A' && e.getValue().kind() != 'D') {
                if (qdir == null) {
                    qdir = p.workspace().resolve(".mono-agent/quarantine/"
                            + Instant.now().toString().replace(':', '-') + "-git");
                }
                moved = quarantine(p, path, qdir);
            }
            restore(p.workspace(), path, old);
            out.add(new Change(path, old.kind() == 'A', moved));
        }
        return out;
    }

    private static void restore(Path ws, Path path, GitEntry old) {
        try {
            if (!insideWs(ws, path) || Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            if (old.kind() == 'L' && path.getParent().equals(ws)) {
                // no symlinkat in Java: only at the workspace root, whose parents the agent cannot swap
                Files.createSymbolicLink(path, Path.of(old.target()));
            } else if (old.kind() == 'F' && old.bytes() != null) {
                NoFollowFs.createFile(path, old.bytes());
            }
        } catch (IOException ignored) {
            // reported as changed either way; the user sees the violation
        }
    }

    /**
     * A hook of a nested repository ({@code sub/.git/hooks/x}, or in {@code .git/modules|worktrees}): srt cannot deny
     * one created by the same command that ran {@code git init}, so a new one is caught here. git never runs
     * {@code *.sample}, which {@code git init} writes.
     */
    private static boolean nestedHook(Path rel) {
        if (rel.getFileName().toString().endsWith(".sample")) {
            return false;
        }
        for (int i = 1; i + 1 < rel.getNameCount(); i++) {
            if (rel.getName(i).toString().equals("hooks")) {
                for (int j = 0; j < i; j++) {
                    if (rel.getName(j).toString().equals(".git")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static void consider(Policy p, Set<Path> literals, Path f, BasicFileAttributes a, Map<Path, Key> out) {
        Path root = p.rootOf(f);
        if (root == null) {
            return;
        }
        Path rel = root.relativize(f);
        boolean inGit = false;
        for (Path part : rel) {
            inGit |= part.toString().equals(".git");
        }
        // a .git dir is judged whole (detectRepos / detectGit), not file by file
        boolean named = !inGit && p.namedProtection(rel) != null;
        if (p.protectedGlob(f) == null && !named && !p.protectedLiterals().contains(f)) {
            return;
        }
        // srt's mount points for absent denies (ours, and its own top-level dangerous names) while a process runs
        boolean srtOwn = f.getParent().equals(p.workspace())
                && Policy.ENGINE_DANGEROUS_FILES.contains(f.getFileName().toString());
        if ((literals.contains(f) || srtOwn) && a.isRegularFile() && a.size() == 0 && isReadOnly(f)) {
            return;
        }
        out.put(f, Key.of(f, a));
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

    /** What changed between two snapshots' protected files, moving nothing. */
    static List<Change> compare(Map<Path, Key> before, Map<Path, Key> after) {
        List<Change> out = new ArrayList<>();
        for (Map.Entry<Path, Key> e : after.entrySet()) {
            Key old = before.get(e.getKey());
            if (old == null || !old.equals(e.getValue())) {
                out.add(new Change(e.getKey(), old == null, null));
            }
        }
        return out;
    }

    /**
     * Compares snapshots; new protected files are moved to the quarantine dir, and a protected symlink that is gone
     * or no longer the same link (a file, a directory or another link in its place) is put back as the human made it,
     * whatever took its place moved to the quarantine first: srt binds only a link's target read-only, so a command
     * can replace the link itself with its own {@code .env} for the host's tools to load.
     */
    static List<Change> detect(Policy p, Map<Path, Key> before, Map<Path, Key> after) {
        List<Change> out = new ArrayList<>();
        Path qdir = null;
        for (Map.Entry<Path, Key> e : after.entrySet()) {
            Key old = before.get(e.getKey());
            if (old == null) {
                if (qdir == null) {
                    qdir = quarantineDir(p);
                }
                out.add(new Change(e.getKey(), true, quarantine(p, e.getKey(), qdir)));
            } else if (old.link() == null && !old.equals(e.getValue())) {
                out.add(new Change(e.getKey(), false, null));
            }
        }
        out.addAll(restoreLinks(p, before, true));
        return out;
    }

    /**
     * The paths whose change {@link #restoreLinks} would undo: every protected symlink in {@code files} and every
     * symlink on its way, with each directory above them below {@code ws} (renaming {@code app} away and another
     * directory in its place replaces {@code app/.env} without an event that names it). The watch calls
     * the engine back when an entry at one of them is created, removed or renamed while a command runs.
     */
    static Set<Path> guarded(Path ws, Map<Path, Key> files) {
        Set<Path> out = new HashSet<>();
        files.forEach((f, k) -> {
            if (k.link() != null) {
                withParents(ws, f, out);
                if (k.hops() != null) {
                    k.hops().forEach(h -> withParents(ws, h.path(), out));
                }
            }
        });
        return out;
    }

    private static void withParents(Path ws, Path p, Set<Path> out) {
        out.add(p);
        for (Path d = p.getParent(); d != null && d.startsWith(ws) && !d.equals(ws); d = d.getParent()) {
            out.add(d);
        }
    }

    /**
     * Puts back each protected symlink in {@code before} that is gone or no longer the same link, and each symlink on
     * its way that changed, whatever took its place moved to the quarantine first (see {@link #detect}). With
     * {@code ledTo}, also records a link that still leads elsewhere afterwards (nothing to undo: recorded once, by the
     * after-command scan, not at each change the watch reports meanwhile).
     */
    static List<Change> restoreLinks(Policy p, Map<Path, Key> before, boolean ledTo) {
        List<Change> out = new ArrayList<>();
        Path[] ldir = {null};
        for (Map.Entry<Path, Key> e : before.entrySet()) {
            String link = e.getValue().link();
            if (link == null) {
                continue;
            }
            Path path = e.getKey();
            Key now = Key.read(path);
            // the same link (also one made again with the same text), or put back: what it leads through must be the
            // same too
            if (now != null && link.equals(now.link()) || putBack(p, path, now, link, null, ldir, out)) {
                hops(p, path, e.getValue(), ldir, out, ledTo);
            }
        }
        return out;
    }

    /** Test hook: runs after what stood in a protected symlink's place was moved out, before the link is made again. */
    static volatile Runnable betweenMoveAndRestore = () -> { };

    /**
     * Puts the symlink {@code path -> text} back where {@code now} (null: nothing) stands instead — what stands there
     * moved to the links' quarantine dir first ({@code ldir[0]}, made on first use) — and records it as a change of
     * {@code via}'s way when {@code via} is set. Returns whether the link is back.
     */
    private static boolean putBack(Policy p, Path path, Key now, String text, Path via, Path[] ldir,
                                   List<Change> out) {
        Path moved = null;
        if (now != null) {
            // a directory of its own: new files found inside a directory put in the link's place are already in
            // qdir under the same name
            if (ldir[0] == null) {
                ldir[0] = Path.of(quarantineDir(p) + "-links");
            }
            moved = quarantine(p, path, ldir[0]);
        }
        betweenMoveAndRestore.run();
        boolean restored = (now == null || moved != null) && restoreLink(p, path, text);
        out.add(new Change(path, false, moved, text, restored, via, null));
        return restored;
    }

    /**
     * Puts back every symlink on the way from the protected {@code path} (the human's link) to its target that is no
     * longer the one it was (see {@link #putBack}), and with {@code ledTo} records when the link still does not lead
     * where it did (a hop outside the workspace, one that could not be put back).
     */
    private static void hops(Policy p, Path path, Key was, Path[] ldir, List<Change> out, boolean ledTo) {
        // also for a link that led nowhere (its target not made yet): the hops up to the missing part are the human's
        // (.env -> conf/prod.env, conf -> envs with no envs yet: a command that repoints conf to its own directory
        // must be caught, or the next command's srt binds the agent's file as the protected one)
        if (was.hops() == null) {
            return;
        }
        for (Hop h : was.hops()) {
            Key now = Key.read(h.path());
            if (now == null || !h.text().equals(now.link())) {
                putBack(p, h.path(), now, h.text(), path, ldir, out);
            }
        }
        if (!ledTo || was.real() == null) {
            return;
        }
        String real = resolve(path).real();
        if (!was.real().equals(real)) {
            out.add(new Change(path, false, null, was.link(), false, null, real == null ? "nothing" : real));
        }
    }

    private static Path quarantineDir(Policy p) {
        return p.workspace().resolve(".mono-agent/quarantine/" + Instant.now().toString().replace(':', '-'));
    }

    /**
     * Makes {@code path -> link} again. Java has no {@code symlinkat}: the link is made in {@code .mono-agent} (denied
     * to every sandbox) and renamed into place by descriptor, so a directory on the way swapped for a symlink leads
     * nowhere ({@link NoFollowFs}); an entry that is there again by then is left as it is (false).
     */
    private static boolean restoreLink(Policy p, Path path, String link) {
        Path ws = p.workspace();
        if (!insideRoot(p, path)) {
            return false;
        }
        Path staged = null;
        try {
            Path staging = Files.createDirectories(ws.resolve(".mono-agent"));
            staged = Files.createSymbolicLink(staging.resolve(".link-" + System.nanoTime()), Path.of(link));
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            NoFollowFs.move(staged, path);
            staged = null;
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        } finally {
            if (staged != null) {
                try {
                    Files.deleteIfExists(staged);
                } catch (IOException ignored) {
                    // an empty link left in .mono-agent
                }
            }
        }
    }

    /**
     * Repositories that appeared during the command below the workspace's top level ({@code sub/.git}, a bare
     * layout, a {@code .git} file): each is moved out of host git's sight ({@link HostControl#neutralise}). The
     * workspace's own {@code .git} is judged by {@link #detectGit}.
     */
    static List<Change> detectRepos(Policy p, Set<Path> before, Set<Path> after) {
        List<Change> out = new ArrayList<>();
        Path ws = p.workspace();
        Path qdir = null;
        Set<Path> seen = new HashSet<>();
        for (Path r : after) {
            if (before.contains(r) || p.rootOf(r) == null) {
                continue;
            }
            Path repo;
            if (r.getFileName().toString().equals(".git")) {
                repo = r;
            } else if (HostControl.bareLayout(r)) {
                repo = r;
            } else if (r.getFileName().toString().equals("HEAD") && HostControl.bareLayout(r.getParent())) {
                repo = r.getParent();
            } else {
                continue; // a gitdir target or a bare root's other entries
            }
            if (repo.equals(ws.resolve(".git")) || !seen.add(repo)) {
                continue;
            }
            if (qdir == null) {
                qdir = ws.resolve(".mono-agent/quarantine/" + Instant.now().toString().replace(':', '-') + "-repo");
            }
            out.add(new Change(repo, true, HostControl.neutralise(p, repo, qdir)));
        }
        return out;
    }

    /** Lexically below one of the policy's roots (not a root itself); the real guarantee is {@link NoFollowFs}'s walk. */
    static boolean insideRoot(Policy p, Path f) {
        return p.rootOf(f.toAbsolutePath().normalize()) != null;
    }

    /**
     * Where below a quarantine dir {@code f} goes: its path in the workspace, or for another root
     * {@code roots/<n>-<root's name>/<its path there>} ({@code n} the root's place in {@link Policy#guardedRoots}).
     */
    static String quarantineName(Policy p, Path f) {
        Path n = f.toAbsolutePath().normalize();
        Path ws = p.workspace();
        if (n.startsWith(ws) && !n.equals(ws)) {
            return ws.relativize(n).toString();
        }
        Path root = p.rootOf(n);
        int i = p.guardedRoots().indexOf(root);
        String name = root.getFileName() == null ? "root" : root.getFileName().toString();
        return "roots/" + i + "-" + name + "/" + root.relativize(n);
    }

    /** Lexically below {@code ws} (not {@code ws} itself); the real guarantee is {@link NoFollowFs}'s walk. */
    static boolean insideWs(Path ws, Path f) {
        Path n = f.toAbsolutePath().normalize();
        return n.startsWith(ws) && !n.equals(ws);
    }

    /**
     * Moves a new protected file into quarantine by descriptor, never by path: a sandboxed process still running (a
     * detached child of the REPL) can swap any directory on the way for a symlink to a host directory between the
     * scan and the move; {@link NoFollowFs} refuses a symlink on the walk and renames relative to the opened
     * directory, so only the agent's own file can move. Null when it could not be moved (reported as such).
     */
    private static Path quarantine(Policy p, Path f, Path qdir) {
        try {
            if (!insideRoot(p, f)) {
                return null;
            }
            Path dest = qdir.resolve(quarantineName(p, f));
            NoFollowFs.move(f, dest);
            return dest;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
