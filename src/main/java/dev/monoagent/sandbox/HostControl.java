package dev.monoagent.sandbox;

import dev.monoagent.config.LoadedConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the host reads to decide what the agent may do, who it is, or what runs on the user's next git command —
 * and so what the agent must never write:
 * <ul>
 *   <li>the config file, the env file, {@code IDENTITY.md}, {@code SOUL.md} and the memory dir the config names;</li>
 *   <li>every git control directory below the roots, whole: the workspace's {@code .git}, nested repositories'
 *       {@code .git} dirs and {@code .git} files, the dir a {@code gitdir:} file points to inside the roots, and
 *       directories laid out as a bare repository ({@code HEAD} + {@code objects/} + {@code refs/}), which host git
 *       treats as a repository and whose {@code config} it obeys;</li>
 *   <li>existing {@link Policy#HOST_EXECUTED} files (hook managers' scripts and configs, Claude Code settings).</li>
 * </ul>
 * Existing ones become literal engine denies; a repository a command creates is moved to quarantine right after the
 * command ({@link #neutralise}), before a host git can see it.
 */
final class HostControl {
    private HostControl() {}

    /** The files (and memory dir) the host reads for this config, absolute. */
    static List<Path> files(LoadedConfig cfg) {
        Path ws = cfg.workspace().toAbsolutePath().normalize();
        Set<Path> out = new LinkedHashSet<>();
        out.add(cfg.configPath().toAbsolutePath().normalize());
        out.add(ws.resolve(".env"));
        if (cfg.envFile() != null) {
            out.add(cfg.envFile().toAbsolutePath().normalize());
        }
        out.add(ws.resolve("IDENTITY.md"));
        out.add(ws.resolve("SOUL.md")); // the system prompt includes it too (agent/SystemPrompt)
        String mem = cfg.config().memory() == null ? null : cfg.config().memory().path();
        if (mem != null && !mem.isBlank()) {
            Path m = cfg.resolve(mem).toAbsolutePath().normalize();
            // a memory dir that holds the whole workspace would make everything read-only: the state dir covers the
            // default location, and such a config is listed by validate rather than silently freezing the agent
            if (!ws.startsWith(m)) {
                out.add(m);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The names of the config file and env file in use when they are not the default ones ({@code --config
     * review.json}): the reviewer types the same option in any directory, so the name is protected at any depth.
     */
    static List<String> fileNames(LoadedConfig cfg) {
        Set<String> out = new LinkedHashSet<>();
        for (Path f : new Path[] {cfg.configPath(), cfg.envFile()}) {
            Path name = f == null ? null : f.getFileName();
            if (name != null && !Policy.HOST_FILE_NAMES.contains(name.toString()) && !name.toString().equals(".env")) {
                out.add(name.toString());
            }
        }
        return List.copyOf(out);
    }

    /**
     * Literal engine denies for the git control dirs and host-executed files among {@code found}
     * ({@link ProtectedFinder}) plus the workspace's and writable roots' own {@code .git}.
     */
    static List<Path> engineDenies(Policy p, List<Path> found) {
        Set<Path> out = new LinkedHashSet<>(gitDenies(p, found));
        for (Path f : found) {
            Path exec = hostExecuted(p, f);
            if (exec != null) {
                out.add(exec);
            }
        }
        return List.copyOf(out);
    }

    /** The git deny paths: {@code .git} dirs and files, gitdir targets inside the roots, bare layouts' control files. */
    static List<Path> gitDenies(Policy p, List<Path> found) {
        Set<Path> out = new LinkedHashSet<>();
        Path ws = p.workspace();
        Set<Path> roots = new LinkedHashSet<>();
        roots.add(ws);
        roots.addAll(p.writableRoots());
        for (Path r : roots) {
            Path g = r.resolve(".git");
            if (Files.isDirectory(g, LinkOption.NOFOLLOW_LINKS)) {
                out.add(g);
            }
        }
        for (Path f : found) {
            Path root = p.rootOf(f);
            if (root == null) {
                continue;
            }
            Path rel = root.relativize(f);
            Path acc = root;
            boolean inGit = false;
            for (int i = 0; i < rel.getNameCount(); i++) {
                acc = acc.resolve(rel.getName(i));
                if (rel.getName(i).toString().equals(".git")) {
                    inGit = true;
                    // a nested symlinked .git (e.g. to a repository the agent built in its temp dir) is a repository
                    // to host git: listed so a new one is neutralised; PolicyCompiler keeps symlinks out of srt's
                    // deny list (srt would deny the target instead). The workspace's own is ProtectedScan.detectGit's
                    out.add(acc);
                    if (i == rel.getNameCount() - 1 && Files.isRegularFile(acc, LinkOption.NOFOLLOW_LINKS)) {
                        Path target = gitdirTarget(acc);
                        if (target != null && roots.stream().anyMatch(target::startsWith)) {
                            out.add(target);
                        }
                    }
                    break;
                }
            }
            if (!inGit && f.getFileName().toString().equals("HEAD") && bareLayout(f.getParent())) {
                Path x = f.getParent();
                if (roots.contains(x)) {
                    for (String e : List.of("HEAD", "config", "hooks", "objects", "refs")) {
                        out.add(x.resolve(e));
                    }
                } else {
                    out.add(x);
                }
            }
        }
        return List.copyOf(out);
    }

    /** Git's own bound on nested includes ({@code MAX_INCLUDE_DEPTH}). */
    static final int MAX_INCLUDE_DEPTH = 10;

    /** At most this many config files are read per repository, each at most {@link #MAX_CONFIG_BYTES}. */
    static final int MAX_CONFIGS = 64;

    static final long MAX_CONFIG_BYTES = 1 << 20;

    /**
     * The paths inside the roots that a repository's config sends host git to, for every repository among the roots
     * and {@code found} (the roots' own, nested ones, {@code gitdir:} targets, bare layouts): each {@code core.hooksPath}
     * dir (relative to the repository's worktree; for a husky-style {@code _} also the dir above, see
     * {@link PolicyCompiler#hookDirs}) and each {@code include.path} / {@code includeIf.*.path} file (relative to the
     * including file, whatever the condition: it can come true later), following includes to git's depth. The user's
     * {@code ~/.gitconfig} and {@code ~/.config/git/config} count for every repository: a relative hooks path there is
     * relative to each worktree. Absent targets are listed too (the engine blocks creating them). Links on the way are resolved as the
     * kernel would for host git; a target that then lies outside every writable root is not listed, and the result is
     * in the policy's spelling of the root.
     */
    static List<Path> gitConfigTargets(Policy p, List<Path> found, Path home) {
        Map<Path, Path> roots = new LinkedHashMap<>();
        for (Path r : p.agentWritable()) {
            try {
                roots.put(r.toRealPath(), r);
            } catch (IOException | RuntimeException e) {
                // an absent root holds nothing to protect
            }
        }
        List<Path> globals = List.of(home.resolve(".gitconfig"), home.resolve(".config/git/config"));
        Set<Path> out = new LinkedHashSet<>();
        for (Map.Entry<Path, Path> repo : repositories(p, found).entrySet()) {
            Path gitDir = repo.getKey();
            Path worktree = repo.getValue();
            List<Path> configs = new ArrayList<>(List.of(gitDir.resolve("config"), gitDir.resolve("config.worktree")));
            Path common = commonDir(gitDir);
            if (common != null) {
                configs.add(common.resolve("config"));
            }
            configs.addAll(globals);
            List<String> hooks = new ArrayList<>();
            List<Path> includes = new ArrayList<>();
            Set<Path> seen = new LinkedHashSet<>();
            for (Path cfg : configs) {
                readConfig(cfg, 0, seen, hooks, includes, home);
            }
            for (String h : hooks) {
                Path raw = h.startsWith("~/") ? home.resolve(h.substring(2)) : worktree.resolve(h);
                Path hooksDir = inRoots(roots, resolved(raw));
                if (hooksDir == null) {
                    continue;
                }
                for (Path d : PolicyCompiler.hookDirs(hooksDir)) {
                    // a bodies dir holding a root would freeze that whole root: its hooks dir is still denied
                    boolean holdsRoot = !d.equals(hooksDir) && roots.values().stream().anyMatch(r -> r.startsWith(d));
                    if (!holdsRoot) {
                        out.add(d);
                    }
                }
            }
            for (Path inc : includes) {
                Path t = inRoots(roots, inc);
                if (t != null) {
                    out.add(t);
                }
            }
        }
        return List.copyOf(out);
    }

    /** Git dir → worktree (the git dir itself for a bare layout) for each repository among the roots and found. */
    private static Map<Path, Path> repositories(Policy p, List<Path> found) {
        Map<Path, Path> out = new LinkedHashMap<>();
        Set<Path> roots = new LinkedHashSet<>(p.agentWritable());
        for (Path r : roots) {
            addRepository(out, r.resolve(".git"));
            if (bareLayout(r)) {
                out.putIfAbsent(r, r);
            }
        }
        for (Path f : found) {
            Path root = p.rootOf(f);
            if (root == null) {
                continue;
            }
            Path acc = root;
            boolean inGit = false;
            for (Path part : root.relativize(f)) {
                acc = acc.resolve(part);
                if (part.toString().equals(".git")) {
                    inGit = true;
                    addRepository(out, acc);
                    break;
                }
            }
            if (!inGit && f.getFileName() != null && f.getFileName().toString().equals("HEAD")
                    && bareLayout(f.getParent())) {
                out.putIfAbsent(f.getParent(), f.getParent());
            }
        }
        return out;
    }

    /** Adds the repository whose {@code .git} (dir, {@code gitdir:} file or link) is {@code dotGit}, if any. */
    private static void addRepository(Map<Path, Path> out, Path dotGit) {
        Path gitDir = null;
        if (Files.isSymbolicLink(dotGit)) {
            try {
                gitDir = dotGit.toRealPath();
            } catch (IOException | RuntimeException e) {
                return;
            }
        } else if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            gitDir = dotGit;
        } else if (Files.isRegularFile(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            gitDir = gitdirTarget(dotGit);
        }
        if (gitDir != null) {
            out.putIfAbsent(gitDir, dotGit.getParent());
        }
    }

    /** The common dir a linked worktree's git dir names in its {@code commondir} file, or null. */
    private static Path commonDir(Path gitDir) {
        Path f = gitDir.resolve("commondir");
        try {
            if (!Files.isRegularFile(f) || Files.size(f) > ProtectedScan.GIT_ENTRY_MAX) {
                return null;
            }
            String v = Files.readString(f, StandardCharsets.UTF_8).strip();
            return v.isEmpty() ? null : gitDir.resolve(v).normalize();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Collects one config file's hooks paths and (recursively, to git's depth) its include targets. */
    private static void readConfig(Path cfg, int depth, Set<Path> seen, List<String> hooks, List<Path> includes,
                                   Path home) {
        if (depth > MAX_INCLUDE_DEPTH || seen.size() >= MAX_CONFIGS) {
            return;
        }
        String text;
        try {
            if (!Files.isRegularFile(cfg) || Files.size(cfg) > MAX_CONFIG_BYTES || !seen.add(cfg.toRealPath())) {
                return;
            }
            text = Files.readString(cfg, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return; // unreadable or not UTF-8: git's own reading decides, the denies above still stand
        }
        GitConfigRefs refs = GitConfigRefs.parse(text);
        hooks.addAll(refs.hooksPaths());
        for (String inc : refs.includes()) {
            Path raw;
            if (inc.startsWith("~/")) {
                raw = home.resolve(inc.substring(2));
            } else if (Path.of(inc).isAbsolute()) {
                raw = Path.of(inc);
            } else if (cfg.getParent() != null) {
                raw = cfg.getParent().resolve(inc);
            } else {
                continue;
            }
            Path target = resolved(raw);
            if (target != null) {
                includes.add(target);
                readConfig(target, depth + 1, seen, hooks, includes, home);
            }
        }
    }

    /**
     * {@code raw} as the kernel resolves it for host git: each existing component's links followed, {@code ..}
     * taken after that (so {@code link/..} is the link target's parent), the absent rest appended as written;
     * null when a link loops or the path is not valid.
     */
    static Path resolved(Path raw) {
        try {
            Path abs = raw.toAbsolutePath();
            Path cur = abs.getRoot();
            int n = abs.getNameCount();
            for (int i = 0; i < n; i++) {
                String part = abs.getName(i).toString();
                if (part.equals(".")) {
                    continue;
                }
                if (part.equals("..")) {
                    cur = cur.getParent() == null ? cur : cur.getParent();
                    continue;
                }
                Path next = cur.resolve(part);
                if (!Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
                    Path rest = next;
                    for (int j = i + 1; j < n; j++) {
                        rest = rest.resolve(abs.getName(j).toString());
                    }
                    return rest.normalize();
                }
                cur = Files.isSymbolicLink(next) ? next.toRealPath() : next;
            }
            return cur;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code real} in the policy's spelling of the writable root (real path → root) that holds it, or null. */
    private static Path inRoots(Map<Path, Path> roots, Path real) {
        if (real == null) {
            return null;
        }
        for (Map.Entry<Path, Path> r : roots.entrySet()) {
            if (real.startsWith(r.getKey())) {
                return r.getValue().resolve(r.getKey().relativize(real)).normalize();
            }
        }
        return null;
    }

    /**
     * Whether host git would, or could with one more entry, take {@code dir} itself for a (bare) repository: a
     * {@code HEAD} with {@code objects} and {@code refs} beside it, each of them there without following links (a
     * dangling {@code objects -> ../o} counts: its target can be made later, and nothing would wake us then), or a
     * {@code HEAD} with a {@code commondir}, whose objects and refs git looks up in the common dir, which may be
     * anywhere and complete itself later (host git would obey such a pair after the command, with nothing recorded).
     */
    static boolean bareLayout(Path dir) {
        Path head = dir == null ? null : dir.resolve("HEAD");
        if (head == null || !Files.exists(head, LinkOption.NOFOLLOW_LINKS)
                || Files.isDirectory(head, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        return Files.exists(dir.resolve("commondir"), LinkOption.NOFOLLOW_LINKS)
                || Files.exists(dir.resolve("objects"), LinkOption.NOFOLLOW_LINKS)
                && Files.exists(dir.resolve("refs"), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Whether {@code dir} would be a {@link #bareLayout} once its entry {@code entry} exists too (a file tool about to
     * create {@code dir/entry/...}): the in-process file tools must not complete a repository host git would obey,
     * where a command doing the same is stopped by the watch.
     */
    static boolean bareLayoutWith(Path dir, String entry) {
        java.util.function.Predicate<String> has = e -> e.equals(entry)
                || Files.exists(dir.resolve(e), LinkOption.NOFOLLOW_LINKS);
        if (!has.test("HEAD") || Files.isDirectory(dir.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        return has.test("commondir") || has.test("objects") && has.test("refs");
    }

    /** The directory a {@code gitdir: <path>} file points to (absolute, normalized), or null. */
    static Path gitdirTarget(Path dotGitFile) {
        try {
            if (Files.size(dotGitFile) > ProtectedScan.GIT_ENTRY_MAX) {
                return null;
            }
            String text = Files.readString(dotGitFile, StandardCharsets.UTF_8).strip();
            if (!text.startsWith("gitdir:")) {
                return null;
            }
            return dotGitFile.getParent().resolve(text.substring(7).strip()).toAbsolutePath().normalize();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The outermost {@link Policy#HOST_EXECUTED} path, or host file ({@link Policy#hostFileName}), that {@code f} is
     * or lies in below any of the policy's roots, or null.
     */
    static Path hostExecuted(Policy p, Path f) {
        Path root = p.rootOf(f);
        return root == null ? null : below(root, f, p);
    }

    /** The outermost {@link Policy#HOST_EXECUTED} path that {@code f} is or lies in below {@code ws}, or null. */
    static Path hostExecuted(Path ws, Path f) {
        return f.startsWith(ws) && !f.equals(ws) ? below(ws, f, null) : null;
    }

    private static Path below(Path root, Path f, Policy p) {
        Path rel = root.relativize(f);
        Path acc = root;
        String prev = null;
        for (Path part : rel) {
            String name = part.toString();
            acc = acc.resolve(name);
            if (HostExecuted.match(prev, name) != null || p != null && p.hostFileName(part) != null) {
                return acc;
            }
            prev = name;
        }
        return null;
    }

    /** Names of the host files that are quarantined when created rather than mounted over while absent. */
    static final List<String> HOST_FILE_NAMES = List.of("mono-agent.config.json", "IDENTITY.md", "SOUL.md");

    /**
     * Whether {@code lit} is the config file or IDENTITY.md and does not exist yet (an absent {@code .env} keeps
     * srt's mount point, as before: nothing on the host reads an empty one as a config).
     */
    static boolean absentHostFile(Policy p, Path lit) {
        String name = lit.getFileName() == null ? "" : lit.getFileName().toString();
        return lit.startsWith(p.workspace()) && HOST_FILE_NAMES.contains(name)
                && p.protectedLiterals().contains(lit) && !Files.exists(lit, LinkOption.NOFOLLOW_LINKS);
    }

    /** The paths among {@code paths} that no other one contains (a dir deny covers everything under it). */
    static List<Path> outermost(Collection<Path> paths) {
        List<Path> out = new ArrayList<>();
        for (Path a : paths) {
            boolean covered = false;
            for (Path b : paths) {
                if (!a.equals(b) && a.startsWith(b)) {
                    covered = true;
                    break;
                }
            }
            if (!covered && !out.contains(a)) {
                out.add(a);
            }
        }
        return List.copyOf(out);
    }

    /**
     * Takes a repository a command created out of host git's sight: a {@code .git} dir or file is moved to
     * {@code qdir/<its parent>/dot-git}, and its own {@code HEAD} there is renamed {@code HEAD.quarantined} (a git dir
     * under any name is a repository to git run inside it: a reviewer looking at the evidence with {@code cd} and
     * {@code git status}, or a prompt that shows git state, would run its {@code core.fsmonitor}); a bare layout loses
     * its {@code HEAD} (moved likewise), so git no longer recognises it. Returns where it went, or null when it could
     * not be moved (a symlink on the way).
     */
    static Path neutralise(Policy p, Path repo, Path qdir) {
        Path victim = repo.getFileName().toString().equals(".git") ? repo : repo.resolve("HEAD");
        try {
            if (!ProtectedScan.insideRoot(p, victim)) {
                return null;
            }
            Path rel = Path.of(ProtectedScan.quarantineName(p, victim));
            Path dest = qdir.resolve(rel.getParent() == null ? "" : rel.getParent().toString())
                    .resolve(victim.getFileName().toString().equals(".git") ? "dot-git" : "HEAD");
            // by descriptor, never following a symlink a still-running sandboxed process swapped in
            NoFollowFs.move(victim, dest);
            if (Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)
                    && Files.exists(dest.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS)) {
                try {
                    NoFollowFs.move(dest.resolve("HEAD"), dest.resolve("HEAD.quarantined"));
                } catch (IOException e) {
                    // the move out of the workspace stands; the evidence may still read as a repository
                }
            }
            return dest;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
