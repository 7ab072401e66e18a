package dev.monoagent.sandbox;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * The compiled, immutable sandbox policy: the one answer to "may this path be read / written" shared by the engine
 * config, the in-process file tools, the tree badges and the self-check. All paths are absolute and normalized.
 *
 * <p>Protected globs follow gitignore rules: a glob without {@code /} ({@code .env}, {@code .env.*}) matches that
 * name at any depth under the workspace; a glob with {@code /} is anchored at the workspace root; {@code dir/**}
 * also protects {@code dir} itself. Absolute globs are matched as written.
 *
 * @param workspace         the agent folder
 * @param mode              native or off
 * @param fallback          fail-closed or unsafe-host-process
 * @param unsafeAllowed     both unsafe switches set
 * @param readableRoots     where reads are allowed under the home directory
 * @param writableRoots     the only places writes are allowed
 * @param denyWriteGlobs    the protected globs as configured
 * @param protectedLiterals literal paths always protected (state dir, engine cache, {@code .git/config}, hooks dir)
 * @param denyRead          read-denied areas ({@code ~/.ssh}, home, the non-system top-level dirs): readable only
 *                          inside a readable root that lies at or inside the area
 * @param network           network mode
 * @param allowlist         host suffixes for allowlist mode
 * @param localhostPorts    localhost mode: the only host ports granted (empty: every loopback listener)
 * @param readSecrets       secrets never readable whatever the roots say (home and toolchain credentials, the
 *                          sign-in store, {@code /etc/shadow} and friends): {@link #readDenial}
 * @param hostFileNames     file names mono-agent itself reads as the reviewer's settings under a name the config
 *                          chose ({@code --config review.json}, {@code --env-file agent.env}): protected at any depth
 *                          below every root, like {@link #HOST_FILE_NAMES}
 * @param pins              where the workspace and each root really led when the policy was made (null: now)
 */
public record Policy(Path workspace, SandboxMode mode, Fallback fallback, boolean unsafeAllowed,
                     List<Path> readableRoots, List<Path> writableRoots, List<String> denyWriteGlobs,
                     List<Path> protectedLiterals, List<Path> denyRead, NetworkMode network, List<String> allowlist,
                     List<Integer> localhostPorts, List<Path> readSecrets, List<String> hostFileNames,
                     RootPins pins) {

    /** A policy whose roots are pinned where they lead now. */
    public Policy(Path workspace, SandboxMode mode, Fallback fallback, boolean unsafeAllowed,
                  List<Path> readableRoots, List<Path> writableRoots, List<String> denyWriteGlobs,
                  List<Path> protectedLiterals, List<Path> denyRead, NetworkMode network, List<String> allowlist,
                  List<Integer> localhostPorts, List<Path> readSecrets, List<String> hostFileNames) {
        this(workspace, mode, fallback, unsafeAllowed, readableRoots, writableRoots, denyWriteGlobs, protectedLiterals,
                denyRead, network, allowlist, localhostPorts, readSecrets, hostFileNames, null);
    }

    /** A policy protecting only the fixed {@link #HOST_FILE_NAMES}. */
    public Policy(Path workspace, SandboxMode mode, Fallback fallback, boolean unsafeAllowed,
                  List<Path> readableRoots, List<Path> writableRoots, List<String> denyWriteGlobs,
                  List<Path> protectedLiterals, List<Path> denyRead, NetworkMode network, List<String> allowlist,
                  List<Integer> localhostPorts, List<Path> readSecrets) {
        this(workspace, mode, fallback, unsafeAllowed, readableRoots, writableRoots, denyWriteGlobs, protectedLiterals,
                denyRead, network, allowlist, localhostPorts, readSecrets, List.of());
    }

    /** A policy with no secrets beyond {@code denyRead} (tests and the self-check's scratch policy). */
    public Policy(Path workspace, SandboxMode mode, Fallback fallback, boolean unsafeAllowed,
                  List<Path> readableRoots, List<Path> writableRoots, List<String> denyWriteGlobs,
                  List<Path> protectedLiterals, List<Path> denyRead, NetworkMode network, List<String> allowlist,
                  List<Integer> localhostPorts) {
        this(workspace, mode, fallback, unsafeAllowed, readableRoots, writableRoots, denyWriteGlobs, protectedLiterals,
                denyRead, network, allowlist, localhostPorts, List.of());
    }

    /** A policy granting every host loopback listener in localhost mode. */
    public Policy(Path workspace, SandboxMode mode, Fallback fallback, boolean unsafeAllowed,
                  List<Path> readableRoots, List<Path> writableRoots, List<String> denyWriteGlobs,
                  List<Path> protectedLiterals, List<Path> denyRead, NetworkMode network, List<String> allowlist) {
        this(workspace, mode, fallback, unsafeAllowed, readableRoots, writableRoots, denyWriteGlobs, protectedLiterals,
                denyRead, network, allowlist, List.of());
    }

    /**
     * srt 0.0.78's built-in write-protected files: refused at any depth by the engine itself, whatever the config
     * says. The one list the file tools, the protected-path scan and the workbench's mount-point filter share.
     */
    public static final List<String> ENGINE_DANGEROUS_FILES = List.of(".gitconfig", ".gitmodules", ".bashrc",
            ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc", ".mcp.json");

    /** srt 0.0.78's built-in write-protected directories (relative paths, at any depth). */
    public static final List<String> ENGINE_DANGEROUS_DIRS = List.of(".vscode", ".idea", ".claude/commands",
            ".claude/agents");

    /**
     * Entries of a repository's {@code .git} dir through which host git can be redirected to config or hooks the
     * agent wrote (and so run its code on the user's next {@code git status}, e.g. via {@code core.fsmonitor}):
     * {@code config} and {@code hooks} directly; {@code commondir} points git at another dir's {@code config}/hooks;
     * {@code config.worktree} is read as config when {@code extensions.worktreeConfig} is set; {@code modules/*} and
     * {@code worktrees/*} hold whole git dirs (config + hooks) of submodules and linked worktrees. Not listed:
     * {@code info/} (attributes/exclude/sparse-checkout only name drivers that config must define) and
     * {@code objects/info/alternates} (object lookup only, no code).
     */
    public static final List<String> GIT_CONTROL_ENTRIES = List.of("config", "hooks", "commondir", "config.worktree",
            "modules", "worktrees");

    /** Every single path segment of the two lists above ({@code .bashrc}, {@code .claude}, {@code commands}, ...). */
    public static final java.util.Set<String> ENGINE_DANGEROUS_SEGMENTS = engineSegments();

    private static java.util.Set<String> engineSegments() {
        java.util.Set<String> s = new java.util.LinkedHashSet<>(ENGINE_DANGEROUS_FILES);
        for (String d : ENGINE_DANGEROUS_DIRS) {
            s.addAll(List.of(d.split("/")));
        }
        return java.util.Collections.unmodifiableSet(s);
    }

    public Policy {
        readableRoots = List.copyOf(readableRoots);
        writableRoots = List.copyOf(writableRoots);
        denyWriteGlobs = List.copyOf(denyWriteGlobs);
        protectedLiterals = List.copyOf(protectedLiterals);
        denyRead = List.copyOf(denyRead);
        allowlist = List.copyOf(allowlist);
        localhostPorts = List.copyOf(localhostPorts);
        readSecrets = List.copyOf(readSecrets);
        hostFileNames = List.copyOf(hostFileNames);
        if (pins == null) {
            List<Path> roots = new ArrayList<>();
            roots.add(workspace);
            roots.addAll(writableRoots);
            roots.addAll(readableRoots);
            pins = RootPins.of(roots);
        }
    }

    /**
     * What mono-agent reads as the reviewer's own settings, by name, from whichever directory it is started in: its
     * config, its state dir and the persona files the system prompt includes. A copy at any depth below any root
     * would be read the next time the reviewer runs mono-agent from that directory, so none may be written.
     */
    public static final List<String> HOST_FILE_NAMES = List.of("mono-agent.config.json", ".mono-agent", "IDENTITY.md",
            "SOUL.md");

    /**
     * Whether {@code dir} would be a repository host git obeys (a bare layout) once its entry {@code entry} exists:
     * what the in-process file tools must not complete or write into.
     */
    public static boolean bareLayoutWith(Path dir, String entry) {
        return HostControl.bareLayoutWith(dir, entry);
    }

    /**
     * The roots whose protected names are guarded: the workspace and every writable root, leaving out any that lies
     * inside another (its files are the outer one's). Each is walked, denied and scanned as the workspace is.
     */
    public List<Path> guardedRoots() {
        List<Path> all = new ArrayList<>();
        all.add(workspace);
        for (Path r : writableRoots) {
            if (!all.contains(r)) {
                all.add(r);
            }
        }
        List<Path> out = new ArrayList<>();
        for (Path a : all) {
            if (all.stream().noneMatch(b -> !b.equals(a) && a.startsWith(b))) {
                out.add(a);
            }
        }
        return List.copyOf(out);
    }

    /** The guarded root holding {@code n} (the outermost), or null when {@code n} is in none or is one itself. */
    public Path rootOf(Path n) {
        for (Path r : guardedRoots()) {
            if (n.startsWith(r) && !n.equals(r)) {
                return r;
            }
        }
        return null;
    }

    /** The {@link #HOST_FILE_NAMES} or {@link #hostFileNames} entry that a segment of {@code rel} is, or null. */
    public String hostFileName(Path rel) {
        for (Path part : rel) {
            String name = part.toString();
            if (HOST_FILE_NAMES.contains(name) || hostFileNames.contains(name)) {
                return name;
            }
        }
        return null;
    }

    /** As {@link #dangerousName}, and the host's own file names ({@link #hostFileName}). */
    public String namedProtection(Path rel) {
        String named = dangerousName(rel);
        if (named == null && hostFileName(rel) != null) {
            named = "read by mono-agent as the reviewer's settings (" + hostFileName(rel) + ")";
        }
        return named;
    }

    /**
     * Where the sandboxed agent can write (writable roots and the workspace): host programs are never taken from PATH
     * entries there.
     */
    public List<Path> agentWritable() {
        List<Path> out = new ArrayList<>(writableRoots);
        out.add(workspace);
        return List.copyOf(out);
    }

    /**
     * Files and dirs a host tool reads on its own and through which it runs code the writer chose, at any depth below a
     * writable root: hook managers, Claude Code's settings, package-manager and toolchain-selector configs, AI agents'
     * project settings ({@link HostExecuted} has the catalogue and the reason for each). Existing ones are denied to
     * the engine literally; new ones are quarantined after the command, like a new {@code .env.*}.
     */
    public static final List<String> HOST_EXECUTED = HostExecuted.NAMES;

    /**
     * Why a path may not be written, or null when it may: {@link #protection} first, then the writable roots. The
     * one write rule: the engine's deny list is expanded from it ({@code PolicyCompiler.denyLiterals}), the file
     * tools ask it directly, and ParityTest holds the two to the same answers.
     */
    public String writeDenial(Path p) {
        Path n = p.toAbsolutePath().normalize();
        String why = protection(n);
        if (why != null) {
            return why;
        }
        if (writableRoots.stream().noneMatch(n::startsWith)) {
            return "outside the writable roots";
        }
        return null;
    }

    /**
     * Why a path is protected whatever the roots say, or null: a protected literal (state dir, config file, env file,
     * IDENTITY.md, memory dir, hooks path, engine cache), a denyWrite glob, or a name that is dangerous at any depth
     * below a writable root ({@link #dangerousName}).
     */
    public String protection(Path p) {
        Path n = p.toAbsolutePath().normalize();
        for (Path lit : protectedLiterals) {
            if (n.startsWith(lit)) {
                return "protected path " + lit;
            }
        }
        String glob = protectedGlob(n);
        if (glob != null) {
            return "protected by denyWrite " + glob;
        }
        for (Path root : rootsFor(n)) {
            String named = namedProtection(root.relativize(n));
            if (named != null) {
                return named;
            }
        }
        return null;
    }

    private List<Path> rootsFor(Path n) {
        List<Path> out = new ArrayList<>();
        if (n.startsWith(workspace)) {
            out.add(workspace);
        }
        for (Path r : writableRoots) {
            if (n.startsWith(r) && !out.contains(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * Whether {@code name} is one of srt's dangerous file names, in any letter case: srt's own nested scan matches
     * them case-insensitively ({@code --iglob}), and a case-folding directory (ext4 casefold, vfat) makes
     * {@code .BashRC} the same file as {@code .bashrc}.
     */
    public static boolean engineDangerousFile(String name) {
        return ENGINE_DANGEROUS_FILES.contains(name.toLowerCase(java.util.Locale.ROOT));
    }

    /** As {@link #engineDangerousFile} for srt's dangerous dirs ({@code .vscode}, {@code .claude/commands}, ...). */
    public static boolean engineDangerousDir(String relDir) {
        return ENGINE_DANGEROUS_DIRS.contains(relDir.toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * The reason a relative path is protected by name, or null: any {@code .git} segment (the whole git control
     * directory of any repository, or a {@code .git} file, is read-only to the agent), srt's built-in dangerous
     * files and dirs, and {@link #HOST_EXECUTED}. Matches the path itself or any ancestor.
     */
    public static String dangerousName(Path rel) {
        String prev = null;
        for (Path part : rel) {
            String name = part.toString();
            if (name.equals(".git")) {
                return "git control directory (read-only to the agent)";
            }
            if (engineDangerousFile(name) || engineDangerousDir(name)
                    || (prev != null && engineDangerousDir(prev + "/" + name))) {
                return "protected by the sandbox engine's built-in list (" + name + ")";
            }
            String hostRead = HostExecuted.match(prev, name);
            if (hostRead != null) {
                return "run by the host (" + hostRead + ")";
            }
            prev = name;
        }
        return null;
    }

    /**
     * Why a path may not be read, or null when it may: the one read rule. The engine's {@code denyRead}/{@code allowRead}
     * are compiled from the same components ({@code PolicyCompiler.srtConfig}), the file tools and Grep/Glob's
     * namespace ask this, and ReadParityTest holds them to the same answers. In order:
     * <ol>
     *   <li>a {@link #readSecrets secret} (or anything inside one) is never readable, whatever the roots say — not
     *       even by a root that is the secret or lies inside it;</li>
     *   <li>a {@link #denyRead denied area} is readable only inside a readable root that lies at or inside the area:
     *       a root holding home ({@code /}) does not open home, a root that is home does;</li>
     *   <li>so is each non-system top-level dir ({@link #topLevelArea}): a {@code /} root opens the system dirs only
     *       (which every command reads anyway).</li>
     * </ol>
     * The file tools also require the path to be inside a root (the engine adds the system dirs, whose host copies
     * are not what a command sees).
     */
    public String readDenial(Path p) {
        Path n = p.toAbsolutePath().normalize();
        Path secret = secretOf(n);
        if (secret != null) {
            return "secret " + secret + " (never readable, whatever readableRoots says)";
        }
        for (Path d : denyRead) {
            if (n.startsWith(d) && readableRoots.stream().noneMatch(r -> r.startsWith(d) && n.startsWith(r))) {
                return "read-protected path " + d;
            }
        }
        Path top = topLevelArea(n);
        if (top != null && concat(readableRoots, writableRoots).stream().noneMatch(r -> r.startsWith(top)
                && n.startsWith(r))) {
            return "outside the readable roots";
        }
        return null;
    }

    /**
     * The non-system top-level dir holding {@code n} ({@code /srv}, {@code /tmp}, {@code /home}), or null for a path
     * in a system dir ({@code ReadScope.SYSTEM}) or {@code /} itself: each is an area the engine hides whole, with
     * only the roots inside it bound back, so a {@code /} root does not open it.
     */
    public static Path topLevelArea(Path n) {
        if (n.getNameCount() == 0 || ReadScope.SYSTEM.contains("/" + n.getName(0))) {
            return null;
        }
        return Path.of("/").resolve(n.getName(0).toString());
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** The secret that {@code n} is or lies inside, or null. */
    public Path secretOf(Path n) {
        for (Path s : readSecrets) {
            if (n.startsWith(s)) {
                return s;
            }
        }
        return null;
    }

    /** Whether a root may be opened for reading at all: not at or inside a secret (which it would re-open). */
    public boolean rootOpens(Path root) {
        return secretOf(root.toAbsolutePath().normalize()) == null;
    }

    /** True when the path is protected whatever the roots say ({@link #protection}). */
    public boolean isProtected(Path p) {
        return protection(p) != null;
    }

    /**
     * The denyWrite glob that matches {@code n} (itself or an ancestor inside the workspace or a writable root), or
     * null: a relative glob applies below every writable root as below the workspace.
     */
    public String protectedGlob(Path n) {
        for (String g : denyWriteGlobs) {
            if (matches(g, n)) {
                return g;
            }
        }
        return null;
    }

    /** Compiled globs (a glob compiles to a regex; every scan asks about every protected path). */
    private static final java.util.concurrent.ConcurrentHashMap<String, PathMatcher> MATCHERS =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static PathMatcher matcher(String glob) {
        PathMatcher m = MATCHERS.get(glob);
        if (m == null) {
            m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
            if (MATCHERS.size() < 4096) {
                MATCHERS.put(glob, m);
            }
        }
        return m;
    }

    private boolean matches(String glob, Path n) {
        // a match on the path or any ancestor protects it: "dir/**" and "dir" both cover dir's contents
        String g = glob.endsWith("/**") ? glob.substring(0, glob.length() - 3) : glob;
        if (Path.of(g).isAbsolute()) {
            PathMatcher m = matcher(g);
            for (Path a = n; a != null; a = a.getParent()) {
                if (m.matches(a)) {
                    return true;
                }
            }
            return false;
        }
        for (Path root : rootsFor(n)) {
            if (!n.equals(root) && matchesBelow(g, root.relativize(n))) {
                return true;
            }
        }
        return false;
    }

    /** A relative glob against a path relative to one root (the workspace, or a writable root holding it). */
    private static boolean matchesBelow(String g, Path rel) {
        PathMatcher m = matcher(g);
        if (!g.contains("/")) {
            // basename glob: any path component at any depth matching protects that path and everything under it
            for (Path part : rel) {
                if (m.matches(part)) {
                    return true;
                }
            }
            return false;
        }
        List<Path> prefixes = new ArrayList<>();
        Path acc = null;
        for (Path part : rel) {
            acc = acc == null ? part : acc.resolve(part);
            prefixes.add(acc);
        }
        for (Path prefix : prefixes) {
            if (m.matches(prefix)) {
                return true;
            }
        }
        return false;
    }
}
