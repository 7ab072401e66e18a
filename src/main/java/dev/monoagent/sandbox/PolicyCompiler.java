package dev.monoagent.sandbox;

import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The pure transform: config + workspace facts → {@link Policy} → srt engine config. No process is started here.
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

    /** srt's maximum for its nested dangerous-file scan (its schema allows 1..10). */
    static final int MANDATORY_DENY_SEARCH_DEPTH = 10;

    private PolicyCompiler() {}

    /** The policy for a loaded config. {@code home} is the directory whose secrets reads are denied. */
    static Policy compile(LoadedConfig cfg, Path home, Path cacheRoot) {
        MonoConfig.Sandbox s = cfg.config().sandbox();
        Path ws = cfg.workspace().toAbsolutePath().normalize();
        List<Path> protectedLiterals = new ArrayList<>();
        protectedLiterals.add(ws.resolve(".mono-agent"));
        for (String e : Policy.GIT_CONTROL_ENTRIES) {
            protectedLiterals.add(ws.resolve(".git").resolve(e));
        }
        // a .git that is a symlink or a "gitdir:" file (worktree, submodule) redirects git wholesale: protect the
        // entry itself (an absent .git is covered by srt's empty read-only mount point for .git/config and friends)
        Path dotGit = ws.resolve(".git");
        if (Files.exists(dotGit, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            protectedLiterals.add(dotGit);
        }
        Path hooks = hooksPath(ws, home);
        if (hooks != null && !protectedLiterals.contains(hooks)) {
            protectedLiterals.add(hooks);
        }
        protectedLiterals.add(cacheRoot.toAbsolutePath().normalize());
        List<Path> denyRead = List.of(home.resolve(".ssh"), home);
        return new Policy(ws, s.mode(), s.fallback(), s.unsafeFallbackAllowed(), cfg.readableRoots(),
                cfg.writableRoots(), s.denyWrite(), protectedLiterals, denyRead, s.network().mode(),
                s.network().allowlist());
    }

    /** {@code core.hooksPath} from the workspace's {@code .git/config} or the user's {@code ~/.gitconfig}. */
    static Path hooksPath(Path ws, Path home) {
        for (Path cfg : List.of(ws.resolve(".git/config"), home.resolve(".gitconfig"))) {
            try {
                if (!Files.isRegularFile(cfg)) {
                    continue;
                }
                boolean core = false;
                for (String raw : Files.readAllLines(cfg)) {
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
            } catch (IOException ignored) {
                // unreadable config: the default .git/hooks literal still applies
            }
        }
        return null;
    }

    /**
     * Literal paths for srt's {@code denyWrite}: protected literals, each configured glob expanded to existing matches
     * (bounded walk) and the well-known names it matches, and the writable roots' {@code .git/config|hooks}.
     */
    static List<Path> denyLiterals(Policy p) {
        return denyLiterals(p, null);
    }

    /** As {@link #denyLiterals(Policy)}, finding existing matches with {@code rg} ({@link ProtectedFinder}). */
    static List<Path> denyLiterals(Policy p, Path rg) {
        Set<Path> out = new LinkedHashSet<>(p.protectedLiterals());
        Path ws = p.workspace();
        // srt's mount point for an absent deny is an empty file, and git dies on an empty commondir ("failed to
        // read"), so an absent commondir is not mounted over: ProtectedScan removes one that appears after the
        // command (quarantine) and reports it
        Path commondir = ws.resolve(".git/commondir");
        if (!Files.exists(commondir, LinkOption.NOFOLLOW_LINKS)) {
            out.remove(commondir);
        }
        // srt resolves a symlinked deny path to its target: denying a symlinked .git would only make the target
        // read-only while the link itself stays replaceable; the post-command scan restores the link instead
        Path dotGit = ws.resolve(".git");
        if (Files.isSymbolicLink(dotGit)) {
            out.remove(dotGit);
        }
        List<String> wildcard = new ArrayList<>();
        for (String g : p.denyWriteGlobs()) {
            String glob = g.endsWith("/**") ? g.substring(0, g.length() - 3) : g;
            if (!hasGlobChars(glob)) {
                out.add(Path.of(glob).isAbsolute() ? Path.of(glob).normalize() : ws.resolve(glob).normalize());
            } else if (!Path.of(glob).isAbsolute()) {
                wildcard.add(glob);
                if (!glob.contains("/")) {
                    PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
                    for (String name : WELL_KNOWN) {
                        if (m.matches(Path.of(name))) {
                            out.add(ws.resolve(name));
                        }
                    }
                }
            }
        }
        List<Path> found = ProtectedFinder.find(p, rg);
        out.addAll(protectedMatches(p, found));
        out.addAll(nestedDangerous(p, found));
        for (Path root : p.writableRoots()) {
            if (!root.equals(ws) && Files.isDirectory(root)) {
                for (String e : Policy.GIT_CONTROL_ENTRIES) {
                    Path lit = root.resolve(".git").resolve(e);
                    if (!e.equals("commondir") || Files.exists(lit, LinkOption.NOFOLLOW_LINKS)) {
                        out.add(lit);
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * The outermost protected path (the file, or the protected dir holding it) for each found file; a protected
     * literal is already listed.
     */
    static List<Path> protectedMatches(Policy p, List<Path> found) {
        Set<Path> hits = new LinkedHashSet<>();
        Path ws = p.workspace();
        for (Path f : found) {
            if (p.protectedGlob(f) == null) {
                continue;
            }
            Path acc = ws;
            for (Path part : ws.relativize(f)) {
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
    static List<Path> nestedDangerous(Policy p, List<Path> found) {
        Set<Path> out = new LinkedHashSet<>();
        Path ws = p.workspace();
        for (Path f : found) {
            Path rel = ws.relativize(f);
            Path acc = ws;
            for (int i = 0; i < rel.getNameCount() - 1; i++) {
                String seg = rel.getName(i).toString();
                acc = acc.resolve(seg);
                if (seg.equals(".git")) {
                    for (String e : Policy.GIT_CONTROL_ENTRIES) {
                        if (Files.exists(acc.resolve(e), LinkOption.NOFOLLOW_LINKS)) {
                            out.add(acc.resolve(e));
                        }
                    }
                    break;
                }
                if (i > 0 && (seg.equals(".vscode") || seg.equals(".idea"))) {
                    out.add(acc);
                    break;
                }
                if (i > 0 && seg.equals(".claude") && i + 1 < rel.getNameCount() - 1) {
                    String next = rel.getName(i + 1).toString();
                    if (next.equals("commands") || next.equals("agents")) {
                        out.add(acc.resolve(next));
                    }
                    break;
                }
            }
            if (rel.getNameCount() > 1 && Policy.ENGINE_DANGEROUS_FILES.contains(rel.getFileName().toString())) {
                out.add(f);
            }
        }
        return List.copyOf(out);
    }

    static boolean hasGlobChars(String s) {
        return s.chars().anyMatch(c -> c == '*' || c == '?' || c == '[' || c == '{');
    }

    /**
     * The srt config for {@code p}. {@code denyLiterals} from {@link #denyLiterals}; {@code hostPorts} are the host
     * 127.0.0.1 ports granted in localhost mode.
     */
    static Map<String, Object> engineConfig(Policy p, List<Path> denyLiterals, EngineFacts f, List<Integer> hostPorts) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        Map<String, Object> net = new LinkedHashMap<>();
        if (p.network() != NetworkMode.ALL) {
            net.put("allowedDomains", allowedDomains(p, hostPorts));
        }
        net.put("deniedDomains", List.of());
        net.put("strictAllowlist", true);
        cfg.put("network", net);

        Map<String, Object> fs = new LinkedHashMap<>();
        Path home = f.home();
        Path ssh = home.resolve(".ssh");
        fs.put("denyRead", List.of(home.toString(), ssh.toString()));
        Set<String> allowRead = new LinkedHashSet<>();
        for (Path r : concat(p.readableRoots(), p.writableRoots())) {
            if (ssh.startsWith(r)) {
                allowRead.addAll(childrenExcluding(r, ssh));
            } else if (!r.startsWith(ssh)) {
                allowRead.add(r.toString());
            }
        }
        // the helper binaries and tools must stay executable when they live under the read-denied home; but
        // allowRead beats denyRead, so a PATH entry that is home itself (or holds ~/.ssh) would re-open every secret
        // under it: such entries are never re-allowed (their tools are then not runnable inside the sandbox)
        for (Path raw : f.readableExtras()) {
            Path extra = raw.toAbsolutePath().normalize();
            if (raw.isAbsolute() && extra.startsWith(home) && !home.startsWith(extra) && !extra.startsWith(ssh)
                    && !ssh.startsWith(extra)) {
                allowRead.add(extra.toString());
            }
        }
        fs.put("allowRead", List.copyOf(allowRead));
        List<String> allowWrite = new ArrayList<>();
        for (Path w : p.writableRoots()) {
            allowWrite.add(w.toString());
        }
        allowWrite.add(f.sessionTmp().toString());
        fs.put("allowWrite", allowWrite);
        fs.put("denyWrite", denyLiterals.stream().map(Path::toString).toList());
        cfg.put("filesystem", fs);

        // srt finds nested .git/hooks, .vscode, ... with rg, which by default honours .gitignore/.rgignore and
        // RIPGREP_CONFIG_PATH: the agent could write an ignore file that hides them. These args come first on srt's rg
        // command line. The search depth goes to srt's maximum (default 3 missed sub/.git/hooks/pre-commit);
        // deeper ones and those under node_modules (srt always excludes it) are listed literally by denyLiterals
        cfg.put("ripgrep", Map.of("command", f.rg().toString(), "args", List.of("--no-ignore", "--no-config",
                "--hidden")));
        cfg.put("mandatoryDenySearchDepth", MANDATORY_DENY_SEARCH_DEPTH);
        cfg.put("bwrapPath", f.bwrap().toString());
        cfg.put("socatPath", f.socat().toString());
        cfg.put("seccomp", Map.of("applyPath", f.applySeccomp().toString()));
        return cfg;
    }

    /** Host facts the engine config needs (all absolute). */
    record EngineFacts(Path home, Path sessionTmp, Path bwrap, Path socat, Path rg, Path applySeccomp,
                       List<Path> readableExtras) {
        EngineFacts {
            readableExtras = List.copyOf(readableExtras);
        }
    }

    static List<String> allowedDomains(Policy p, List<Integer> hostPorts) {
        List<String> out = new ArrayList<>();
        switch (p.network()) {
            case LOCALHOST -> hostPorts.forEach(port -> out.add("127.0.0.1:" + port));
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

    /** Everything under {@code root} except the chain leading to {@code excluded} (which stays denied). */
    static List<String> childrenExcluding(Path root, Path excluded) {
        List<String> out = new ArrayList<>();
        Path dir = root;
        while (!dir.equals(excluded)) {
            Path next = excluded.getName(dir.getNameCount()) == null ? null : dir.resolve(excluded.getName(dir.getNameCount()));
            try (Stream<Path> kids = Files.list(dir)) {
                for (Path k : (Iterable<Path>) kids::iterator) {
                    if (!k.equals(next)) {
                        out.add(k.toString());
                    }
                }
            } catch (IOException ignored) {
                // unreadable dir: nothing to re-allow
            }
            if (next == null) {
                break;
            }
            dir = next;
        }
        return out;
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
