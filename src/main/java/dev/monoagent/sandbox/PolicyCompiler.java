package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pure transform: config + {@link WorkspaceFacts} → {@link Policy} → {@link SrtConfig}. No file is read and no
 * process is started here; {@link WorkspaceFacts} gathers what the disk says first. The three I/O conveniences
 * ({@link #compile(LoadedConfig, Path, Path)}, {@link #denyLiterals(Policy, Path)}, {@link #engineConfig}) only
 * gather the facts and call the pure step.
 *
 * <p>Why the deny list is expanded: srt 0.0.78 on Linux takes only literal write paths and silently drops any other
 * glob ({@code .env.*}), so each configured glob becomes literal paths — the existing matches found by an unbounded
 * walk ({@link ProtectedFinder}) plus {@link #WELL_KNOWN} names — and {@code .git/config} / {@code .git/hooks} are always listed literally, because
 * srt's own protection of them only applies when {@code .git} exists at wrap time. Whatever slips through (a new
 * {@code .env.custom}) is caught by the post-command scan ({@link ProtectedScan}).
 */
final class PolicyCompiler {
    /** Secret file names protected literally even before they exist (when a configured glob matches them). */
    static final List<String> WELL_KNOWN = List.of(".env", ".env.local", ".env.development", ".env.development.local",
            ".env.production", ".env.production.local", ".env.test", ".env.test.local", ".env.staging", ".env.prod",
            ".env.dev");

    /**
     * Depth of srt's own nested dangerous-file scan, which walks the workspace on every wrap (its schema allows
     * 1..10): 1, the top level only, so a wrap costs the same at any repository size. Everything
     * srt's scan found deeper is in our literal deny list instead — {@link #nestedDangerous} finds it at any depth,
     * in any letter case and under {@code node_modules} too, from the unbounded walk or the watch index, and the
     * engine re-initialises (or, while a long-lived process runs, adds per-command denies) when one appears.
     * SrtScanCoverageTest compares the two on srt's real bwrap arguments.
     */
    static final int MANDATORY_DENY_SEARCH_DEPTH = 1;

    /** Args that make srt's rg scan blind to agent-written ignore files and rg config. */
    static final List<String> RG_SCAN_ARGS = List.of("--no-ignore", "--no-config", "--hidden");

    private PolicyCompiler() {}

    /** The policy for a loaded config, reading the workspace's git layout first (I/O). */
    static Policy compile(LoadedConfig cfg, Path home, Path cacheRoot) {
        Path ws = cfg.workspace().toAbsolutePath().normalize();
        return compile(cfg, home, cacheRoot, WorkspaceFacts.layout(ws, home, cfg.writableRoots()));
    }

    /** The policy for a loaded config and its git layout. {@code home} is the directory whose secrets reads are denied. */
    static Policy compile(LoadedConfig cfg, Path home, Path cacheRoot, WorkspaceFacts.GitLayout git) {
        MonoConfig.Sandbox s = cfg.config().sandbox();
        Path ws = cfg.workspace().toAbsolutePath().normalize();
        List<Path> protectedLiterals = new ArrayList<>();
        protectedLiterals.add(ws.resolve(".mono-agent"));
        for (String e : Policy.GIT_CONTROL_ENTRIES) {
            protectedLiterals.add(ws.resolve(".git").resolve(e));
        }
        // a .git that is a symlink or a "gitdir:" file (worktree, submodule) redirects git wholesale: protect the
        // entry itself (an absent .git is covered by srt's empty read-only mount point for .git/config and friends)
        if (git.dotGit() == WorkspaceFacts.DotGit.SYMLINK || git.dotGit() == WorkspaceFacts.DotGit.OTHER) {
            protectedLiterals.add(ws.resolve(".git"));
        }
        List<Path> hookPaths = new ArrayList<>();
        if (git.hooksPath() != null) {
            hookPaths.add(git.hooksPath());
        }
        hookPaths.addAll(git.rootHooks());
        for (Path hooks : hookPaths) {
            for (Path d : hookDirs(hooks)) {
                // a bodies dir that is (or holds) a root would freeze that whole root: its hooks dir is still denied
                boolean holdsRoot = !d.equals(hooks) && (ws.startsWith(d)
                        || cfg.writableRoots().stream().anyMatch(r -> r.startsWith(d)));
                if (!holdsRoot && !protectedLiterals.contains(d)) {
                    protectedLiterals.add(d);
                }
            }
        }
        for (Path own : HostControl.files(cfg)) {
            if (!protectedLiterals.contains(own)) {
                protectedLiterals.add(own);
            }
        }
        protectedLiterals.add(cacheRoot.toAbsolutePath().normalize());
        // the launcher's cache follows the exported HOME, which may not be user.home
        Path launcherCache = HostEnv.launcherCacheRoot(cfg.env());
        if (launcherCache != null && !protectedLiterals.contains(launcherCache)) {
            protectedLiterals.add(launcherCache);
        }
        List<Path> denyRead = new ArrayList<>(List.of(home.resolve(".ssh"), home));
        // the ChatGPT sign-in lives in the user config dir; under home it is already hidden, elsewhere deny it too
        Path userConfig = HostEnv.defaultConfigRoot(cfg.env(), home);
        if (!userConfig.startsWith(home)) {
            denyRead.add(userConfig);
        }
        List<Path> agentWritable = new ArrayList<>(cfg.writableRoots());
        agentWritable.add(ws);
        List<Path> secrets = Toolchains.policySecrets(home, cfg.env(), cfg.readableRoots(), agentWritable);
        return new Policy(ws, s.mode(), s.fallback(), s.unsafeFallbackAllowed(), cfg.readableRoots(),
                cfg.writableRoots(), s.denyWrite(), protectedLiterals, denyRead, s.network().mode(),
                s.network().allowlist(), s.network().localhostPorts(), secrets, HostControl.fileNames(cfg));
    }

    /**
     * The directories whose scripts git runs through {@code hooks}: the hooks dir itself and, for a hook manager's
     * dispatch dir named {@code _} (husky: {@code core.hooksPath .husky/_}, whose {@code _/pre-commit} runs
     * {@code .husky/pre-commit}, wherever the project keeps it, e.g. {@code .config/husky/_}), the dir above it that
     * holds the hook bodies.
     */
    static List<Path> hookDirs(Path hooks) {
        Path parent = hooks.getParent();
        if (hooks.getFileName() != null && hooks.getFileName().toString().equals("_") && parent != null
                && parent.getParent() != null) {
            return List.of(hooks, parent);
        }
        return List.of(hooks);
    }

    /** {@code core.hooksPath} in one git config file's lines, resolved against the workspace (or home for ~/), or null. */
    static Path hooksPathIn(List<String> lines, Path ws, Path home) {
        boolean core = false;
        for (String raw : lines) {
            String line = raw.trim();
            if (line.startsWith("[")) {
                core = line.toLowerCase().startsWith("[core");
            } else if (core && line.toLowerCase().startsWith("hookspath")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    String v = line.substring(eq + 1).trim().replace("\"", "");
                    if (v.startsWith("~/")) {
                        return home.resolve(v.substring(2)).normalize();
                    }
                    return ws.resolve(v).normalize();
                }
            }
        }
        return null;
    }

    /** As {@link #denyLiterals(Policy, Path)} with the Java walk. */
    static List<Path> denyLiterals(Policy p) {
        return denyLiterals(p, (Path) null);
    }

    /** Scans the workspace (with {@code rg}, see {@link ProtectedFinder}) and derives the deny literals (I/O). */
    static List<Path> denyLiterals(Policy p, Path rg) {
        return denyLiterals(p, WorkspaceFacts.scan(p, rg, null));
    }

    /**
     * Literal paths for srt's {@code denyWrite}: protected literals, each configured glob expanded to existing matches
     * and the well-known names it matches, nested dangerous paths, and the writable roots' git control entries.
     */
    static List<Path> denyLiterals(Policy p, WorkspaceFacts facts) {
        Set<Path> out = new LinkedHashSet<>(p.protectedLiterals());
        Path ws = p.workspace();
        // srt's mount point for an absent deny is an empty file, and git dies on an empty commondir ("failed to
        // read"), so an absent commondir is not mounted over: ProtectedScan removes one that appears after the
        // command (quarantine) and reports it
        Path commondir = ws.resolve(".git/commondir");
        if (!facts.exists(commondir)) {
            out.remove(commondir);
        }
        // srt resolves a symlinked deny path to its target: denying a symlinked .git would only make the target
        // read-only while the link itself stays replaceable; the post-command scan restores the link instead
        if (facts.dotGit() == WorkspaceFacts.DotGit.SYMLINK) {
            out.remove(ws.resolve(".git"));
        }
        for (String g : p.denyWriteGlobs()) {
            String glob = g.endsWith("/**") ? g.substring(0, g.length() - 3) : g;
            if (!hasGlobChars(glob)) {
                if (Path.of(glob).isAbsolute()) {
                    out.add(Path.of(glob).normalize());
                } else {
                    // relative: below every root, as the glob applies there (Policy.protectedGlob)
                    for (Path root : p.guardedRoots()) {
                        if (root.equals(ws) || facts.directories().contains(root)) {
                            out.add(root.resolve(glob).normalize());
                        }
                    }
                }
            } else if (!Path.of(glob).isAbsolute() && !glob.contains("/")) {
                PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
                for (String name : WELL_KNOWN) {
                    if (m.matches(Path.of(name))) {
                        // at the top of every root: a writable root's .env is as secret as the workspace's
                        for (Path root : p.guardedRoots()) {
                            if (root.equals(ws) || facts.directories().contains(root)) {
                                out.add(root.resolve(name));
                            }
                        }
                    }
                }
            }
        }
        out.addAll(protectedMatches(p, facts.found()));
        out.addAll(nestedDangerous(p, facts));
        for (Path root : p.writableRoots()) {
            if (!root.equals(ws) && facts.directories().contains(root)) {
                for (String e : Policy.GIT_CONTROL_ENTRIES) {
                    Path lit = root.resolve(".git").resolve(e);
                    if (!e.equals("commondir") || facts.exists(lit)) {
                        out.add(lit);
                    }
                }
            }
        }
        out.addAll(facts.hostDenies());
        // srt's mount point for an absent deny is an empty read-only file on the host while a command (or the REPL)
        // runs: an empty mono-agent.config.json or IDENTITY.md there would break the host's own next read, so absent
        // host files are not mounted over; one a command creates is quarantined by the post-command scan instead
        out.removeAll(facts.notMounted());
        return HostControl.outermost(out);
    }

    /**
     * The outermost protected path (the file, or the protected dir holding it) for each found file; a protected
     * literal is already listed.
     */
    static List<Path> protectedMatches(Policy p, List<Path> found) {
        Set<Path> hits = new LinkedHashSet<>();
        for (Path f : found) {
            Path root = p.rootOf(f);
            if (root == null || p.protectedGlob(f) == null) {
                continue;
            }
            Path acc = root;
            for (Path part : root.relativize(f)) {
                acc = acc.resolve(part);
                if (p.protectedGlob(acc) != null) {
                    break;
                }
            }
            if (!p.protectedLiterals().contains(acc)) {
                hits.add(acc);
            }
        }
        return List.copyOf(hits);
    }

    /**
     * Existing dangerous paths below the top level, at any depth: git control entries of nested repositories and
     * srt's dangerous dirs. srt finds these itself only to {@code mandatoryDenySearchDepth} and never under
     * {@code node_modules}; listing them literally removes both blind spots.
     */
    static List<Path> nestedDangerous(Policy p, WorkspaceFacts facts) {
        Set<Path> out = new LinkedHashSet<>();
        Path ws = p.workspace();
        for (Path f : facts.found()) {
            Path root = p.rootOf(f);
            if (root == null) {
                continue;
            }
            // srt's own scan covers the workspace (its cwd) only: another root's top level is listed here as well
            boolean cwd = root.equals(ws);
            Path rel = root.relativize(f);
            Path acc = root;
            for (int i = 0; i < rel.getNameCount() - 1; i++) {
                String seg = rel.getName(i).toString();
                acc = acc.resolve(seg);
                if (seg.equals(".git")) {
                    for (String e : Policy.GIT_CONTROL_ENTRIES) {
                        if (facts.exists(acc.resolve(e))) {
                            out.add(acc.resolve(e));
                        }
                    }
                    break;
                }
                // srt compares in lower case; its cwd-level list (exact case, top level) covers only ".vscode"
                boolean ownCwd = cwd && i == 0 && Policy.ENGINE_DANGEROUS_DIRS.contains(seg);
                if (!ownCwd && Policy.engineDangerousDir(seg)) {
                    out.add(acc);
                    break;
                }
                if (seg.equalsIgnoreCase(".claude") && i + 1 < rel.getNameCount() - 1) {
                    String next = rel.getName(i + 1).toString();
                    if (Policy.engineDangerousDir(seg + "/" + next) && !(cwd && i == 0
                            && Policy.ENGINE_DANGEROUS_DIRS.contains(seg + "/" + next))) {
                        out.add(acc.resolve(next));
                    }
                    break;
                }
            }
            if ((rel.getNameCount() > 1 || !cwd) && Policy.engineDangerousFile(rel.getFileName().toString())) {
                out.add(f);
            }
        }
        return List.copyOf(out);
    }

    static boolean hasGlobChars(String s) {
        return s.chars().anyMatch(c -> c == '*' || c == '?' || c == '[' || c == '{');
    }

    /** As {@link #srtConfig}, listing the directories on the {@code ~/.ssh} chain first (I/O), as srt's map. */
    static Map<String, Object> engineConfig(Policy p, List<Path> denyLiterals, EngineFacts f, List<Integer> hostPorts) {
        WorkspaceFacts listed = new WorkspaceFacts(WorkspaceFacts.DotGit.ABSENT, List.of(), Set.of(), Set.of(),
                WorkspaceFacts.sshChainListings(p, f.home()));
        return srtConfig(p, denyLiterals, f, hostPorts, listed).toMap();
    }

    /**
     * The srt config for {@code p}. {@code denyLiterals} from {@link #denyLiterals}; {@code hostPorts} are the host
     * 127.0.0.1 ports granted in localhost mode; {@code facts} supplies the {@code ~/.ssh} chain listings.
     */
    static SrtConfig srtConfig(Policy p, List<Path> denyLiterals, EngineFacts f, List<Integer> hostPorts,
                               WorkspaceFacts facts) {
        SrtConfig.Network net = new SrtConfig.Network(p.network() == NetworkMode.ALL ? null
                : allowedDomains(p, hostPorts), List.of(), true);
        Path home = f.home();
        Path ssh = home.resolve(".ssh");
        // reads outside home: every top-level dir that is not a system dir, and the secrets inside /etc, are denied
        // (EngineFacts.readDenied); the roots, the session temp dir, PATH/tool dirs and the bridge's socket dir are
        // bound back below
        Set<String> denyRead = new LinkedHashSet<>(List.of(home.toString(), ssh.toString()));
        for (Path d : f.readDenied()) {
            denyRead.add(d.toString());
        }
        // the one read rule (Policy.readDenial): a root at or inside a secret opens nothing (allowRead naming the
        // secret itself would lift its deny); a root holding a secret is bound whole and the secret's own deny,
        // deeper, lands on top of it (srt mounts read denies shallow-first)
        Set<String> allowRead = new LinkedHashSet<>();
        for (Path r : concat(p.readableRoots(), p.writableRoots())) {
            if (p.rootOpens(r) && !r.startsWith(ssh)) {
                allowRead.add(r.toString());
            }
        }
        // the helper binaries and tools must stay executable when they live under the read-denied home; but
        // allowRead beats denyRead, so a PATH entry that is home itself (or a secret) would re-open every secret
        // under it: such entries are never re-allowed (their tools are then not runnable inside the sandbox)
        // the same holds outside home: a PATH entry that is a whole top-level dir (/tmp, /opt) is not re-allowed
        for (Path raw : f.readableExtras()) {
            Path extra = raw.toAbsolutePath().normalize();
            boolean wholeTop = extra.getNameCount() <= 1 && f.readDenied().contains(extra);
            if (raw.isAbsolute() && extra.getNameCount() > 0 && !wholeTop && !home.startsWith(extra)
                    && !extra.startsWith(ssh) && p.rootOpens(extra)) {
                allowRead.add(extra.toString());
            }
        }
        // the policy's secrets inside (or holding) something re-allowed; the rest are hidden by the area denies
        // already, and every listed path costs each wrap a lookup
        for (Path secret : p.readSecrets()) {
            String sv = secret.toString();
            if (allowRead.stream().map(Path::of).anyMatch(a -> secret.startsWith(a) || a.startsWith(secret))) {
                denyRead.add(sv);
            }
        }
        allowRead.add(f.sessionTmp().toString());
        List<String> allowWrite = new ArrayList<>();
        for (Path w : p.writableRoots()) {
            allowWrite.add(w.toString());
        }
        allowWrite.add(f.sessionTmp().toString());
        // a user config dir moved outside home (the sign-in store) is denied by name as well
        p.denyRead().stream().filter(d -> !d.startsWith(home)).forEach(d -> denyRead.add(d.toString()));
        SrtConfig.Filesystem fs = new SrtConfig.Filesystem(List.copyOf(denyRead), List.copyOf(allowRead), allowWrite, denyLiterals.stream().map(Path::toString).toList());
        // srt finds nested .git/hooks, .vscode, ... with rg, which by default honours .gitignore/.rgignore and
        // RIPGREP_CONFIG_PATH: the agent could write an ignore file that hides them. These args come first on srt's rg
        // command line. The search depth goes to srt's maximum (default 3 missed sub/.git/hooks/pre-commit);
        // deeper ones and those under node_modules (srt always excludes it) are listed literally by denyLiterals
        return new SrtConfig(net, fs, new SrtConfig.Ripgrep(f.rg(), RG_SCAN_ARGS), MANDATORY_DENY_SEARCH_DEPTH,
                f.bwrap(), f.socat(), f.applySeccomp());
    }

    /**
     * Host facts the engine config needs (all absolute). {@code readDenied}: the reads denied outside home
     * ({@link ReadScope}: non-system top-level dirs and the secrets inside /etc), gathered by the caller.
     */
    record EngineFacts(Path home, Path sessionTmp, Path bwrap, Path socat, Path rg, Path applySeccomp,
                       List<Path> readableExtras, List<Path> readDenied) {
        EngineFacts {
            readableExtras = List.copyOf(readableExtras);
            readDenied = List.copyOf(readDenied);
        }

        /** Facts with this host's read denies outside home (I/O: lists {@code /}). */
        EngineFacts(Path home, Path sessionTmp, Path bwrap, Path socat, Path rg, Path applySeccomp,
                    List<Path> readableExtras) {
            this(home, sessionTmp, bwrap, socat, rg, applySeccomp, readableExtras, ReadScope.readDenied());
        }
    }

    static List<String> allowedDomains(Policy p, List<Integer> hostPorts) {
        List<String> out = new ArrayList<>();
        switch (p.network()) {
            case LOCALHOST -> hostPorts.forEach(port -> {
                // a listener on ::1 only (Node's listen(port, "localhost")) is dialled as [::1]
                out.add("127.0.0.1:" + port);
                out.add("[::1]:" + port);
            });
            case ALLOWLIST -> {
                for (String e : p.allowlist()) {
                    String h = e.trim().toLowerCase();
                    if (h.startsWith("*.")) {
                        out.add(h);
                    } else if (!h.isEmpty()) {
                        out.add(h);
                        out.add("*." + h);
                    }
                }
            }
            default -> { }
        }
        return out;
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
