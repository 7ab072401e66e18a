package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Version-manager toolchains inside the sandbox. Home is read-denied and only the PATH entries are
 * bound back, so a pyenv shim in {@code ~/.pyenv/shims} dies on {@code ~/.pyenv/libexec/pyenv}, an nvm {@code npm}
 * link into {@code lib/node_modules}, a cargo proxy on {@code ~/.rustup}, a pipx link in {@code ~/.local/bin} on its
 * venv. Here, from the host's PATH and the managers' variables, is what else becomes readable:
 * <ul>
 *   <li>the whole root of a known manager ({@link #MANAGERS}) that a PATH entry lies in, with its companions
 *       (cargo needs rustup's home, asdf/mise their version files);</li>
 *   <li>for an executable in a PATH dir that is a link (or a script whose {@code #!} names an interpreter) outside
 *       every readable area: the manager root it lands in, else its prefix ({@code X} for {@code X/bin/tool}, else
 *       the dir holding it) — how pipx, uv and mise shims are laid out;</li>
 *   <li>a Python venv behind a {@code X/bin} entry ({@code X/pyvenv.cfg}) and the user site beside {@code ~/.local/bin}.</li>
 * </ul>
 * Never home itself, a dir holding home, a whole top-level dir or anything at or inside a {@link #secrets secret}.
 * The secrets are read-denied by literal path even inside an opened root: srt lets a {@code denyRead} path beneath an
 * {@code allowRead} dir win (a file becomes {@code /dev/null}, a dir an empty tmpfs), checked by ToolchainSandboxTest.
 * Everything is read-only (home is never writable). {@link #check} says which PATH tools still cannot run, and why.
 */
public final class Toolchains {
    /** A version manager: the variables naming its roots, their defaults under home, and what it also reads. */
    record Manager(String name, List<String> vars, List<String> defaults, List<String> companionVars,
                   List<String> companionDefaults) {}

    static final List<Manager> MANAGERS = List.of(
            new Manager("pyenv", List.of("PYENV_ROOT"), List.of(".pyenv"), List.of(), List.of()),
            new Manager("nvm", List.of("NVM_DIR"), List.of(".nvm"), List.of(), List.of()),
            new Manager("rustup/cargo", List.of("CARGO_HOME", "RUSTUP_HOME"), List.of(".cargo", ".rustup"),
                    List.of("CARGO_HOME", "RUSTUP_HOME"), List.of(".cargo", ".rustup")),
            new Manager("sdkman", List.of("SDKMAN_DIR"), List.of(".sdkman"), List.of(), List.of()),
            new Manager("asdf", List.of("ASDF_DATA_DIR", "ASDF_DIR"), List.of(".asdf"),
                    List.of("ASDF_DATA_DIR", "ASDF_DIR"), List.of(".asdf", ".tool-versions", ".asdfrc")),
            new Manager("mise", List.of("MISE_DATA_DIR"), List.of(".local/share/mise"),
                    List.of("MISE_DATA_DIR", "MISE_CONFIG_DIR", "MISE_STATE_DIR"),
                    List.of(".local/share/mise", ".config/mise", ".local/state/mise", ".tool-versions")),
            new Manager("volta", List.of("VOLTA_HOME"), List.of(".volta"), List.of(), List.of()),
            new Manager("bun", List.of("BUN_INSTALL"), List.of(".bun"), List.of(), List.of()));

    /** The managers' non-secret variables, passed into every command's environment when set on the host. */
    public static final List<String> ENV = List.of("PYENV_ROOT", "PYENV_VERSION", "NVM_DIR", "NVM_BIN", "NVM_INC",
            "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "SDKMAN_DIR", "SDKMAN_CANDIDATES_DIR", "JAVA_HOME",
            "VIRTUAL_ENV", "ASDF_DIR", "ASDF_DATA_DIR", "MISE_DATA_DIR", "MISE_CONFIG_DIR", "MISE_STATE_DIR",
            "VOLTA_HOME", "BUN_INSTALL");

    /**
     * Secrets under home (relative), unreadable by every tool whatever {@code readableRoots} says (each holds a
     * credential a command needs no copy of to build or test — a token, a password, a private key, a signed-in
     * session). Similar paths left readable on purpose: {@code ~/.config/pip} beyond
     * {@code pip.conf} (nothing secret), {@code ~/.terraform.d} beyond its credentials file (the plugin cache
     * terraform needs), {@code ~/.m2/repository} and {@code ~/.gradle/caches} (the build caches).
     */
    public static final List<String> HOME_SECRETS = List.of(".cargo/credentials.toml", ".cargo/credentials", ".npmrc",
            ".pypirc", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
            ".docker/config.json", ".kube", ".aws", ".ssh", ".gnupg", ".netrc", ".git-credentials", ".config/gh",
            ".config/git/credentials", ".codex", ".bunfig.toml", ".config/pip/pip.conf", ".pip/pip.conf",
            // cloud and database clients: gcloud's and az's whole state is sign-in tokens; hub keeps a GitHub token;
            // terraform's API tokens, vault's token, libpq's and mysql's password files, s3cmd/boto, rclone
            ".config/gcloud", ".azure", ".config/hub", ".terraform.d/credentials.tfrc.json", ".vault-token",
            ".pgpass", ".my.cnf", ".s3cfg", ".boto", ".config/rclone/rclone.conf", ".oci",
            // desktop keyrings and password stores, Hugging Face's token
            ".local/share/keyrings", ".password-store", ".cache/huggingface/token", ".huggingface/token");

    /** Secret names at the top of an opened root or of a toolchain prefix inside it (global npmrc, pip.conf). */
    static final List<String> ROOT_SECRETS = List.of("credentials.toml", "credentials", ".npmrc", ".pypirc", ".netrc",
            ".git-credentials", "pip.conf", "etc/npmrc", "etc/pip.conf", "bunfig.toml");

    /** Dirs inside a manager root whose children are installed toolchains (each a prefix with its own etc/). */
    private static final List<String> VERSION_DIRS = List.of("versions", "versions/node", "tools/image/node",
            "toolchains", "installs", "candidates");

    /** PATH entries under these are the system's own: never scanned (they hold thousands of entries). */
    private static final List<Path> SYSTEM_BINS = List.of(Path.of("/usr/bin"), Path.of("/usr/sbin"), Path.of("/bin"),
            Path.of("/sbin"));

    private static final int SCAN_LIMIT = 2000;
    private static final Pattern EXEC_PATH = Pattern.compile("exec\\s+\"?(/[^\"\\s$]+)");

    /**
     * What the toolchains on PATH need. {@code roots}: dirs (and version files) to re-allow for reading; {@code secrets}:
     * paths to read-deny, whether or not they exist yet (a later {@code cargo login} is denied at the next wrap).
     */
    public record Plan(List<Path> roots, List<Path> secrets) {
        public Plan {
            roots = List.copyOf(roots);
            secrets = List.copyOf(secrets);
        }
    }

    private Toolchains() {}

    /**
     * The plan for this host's PATH and variables (I/O: stats and lists the PATH dirs, reads script heads).
     * {@code untrusted}: the dirs the agent can write (workspace, writable roots): a link or {@code #!} planted in a
     * PATH entry there may lead only into a known manager's root, never open an arbitrary prefix in home for the next
     * session.
     */
    public static Plan plan(HostEnv env, Collection<Path> untrusted) {
        return plan(env, untrusted, List.of());
    }

    /**
     * As {@link #plan(HostEnv, Collection)}; {@code readable}: what else the sandbox will read (the configured roots,
     * the engine's tool dirs). Only the secrets inside (or holding) a readable area are listed: the rest are hidden by
     * the home deny already, and each listed path costs every command's wrap a lookup.
     */
    public static Plan plan(HostEnv env, Collection<Path> untrusted, Collection<Path> readable) {
        Path home = env.home().toAbsolutePath().normalize();
        List<Path> agentDirs = new ArrayList<>();
        for (Path u : untrusted) {
            agentDirs.add(u.toAbsolutePath().normalize());
            agentDirs.add(real(u));
        }
        agentDirs.add(env.cacheRoot().toAbsolutePath().normalize());
        if (env.tmpRoot() != null) {
            agentDirs.add(env.tmpRoot().toAbsolutePath().normalize());
        }
        Map<String, String> vars = env.hostEnv();
        List<Path> secrets = secrets(env);
        Set<Path> roots = new LinkedHashSet<>();
        for (Path entry : entries(env)) {
            roots.addAll(managerRoots(entry, home, vars));
            Path parent = entry.getParent();
            if (entry.getFileName() != null && entry.getFileName().toString().equals("bin") && parent != null
                    && Files.isRegularFile(parent.resolve("pyvenv.cfg"))) {
                roots.add(parent);
            }
            if (entry.equals(home.resolve(".local/bin"))) {
                roots.addAll(userSite(home));
            }
        }
        // links and interpreters that lead out of every readable area: open the root or prefix they land in
        for (Path entry : entries(env)) {
            if (SYSTEM_BINS.stream().anyMatch(entry::startsWith)) {
                continue;
            }
            boolean agentWritable = agentDirs.stream().anyMatch(entry::startsWith);
            for (Path tool : executables(entry)) {
                for (Path target : targets(tool)) {
                    if (!covered(target, entry, roots, home)) {
                        List<Path> m = managerRoots(target, home, vars);
                        if (!m.isEmpty() || !agentWritable) {
                            roots.addAll(m.isEmpty() ? List.of(prefix(target)) : m);
                        }
                    }
                }
            }
        }
        List<Path> safe = new ArrayList<>();
        for (Path r : roots) {
            if (allowed(r, home, secrets) && Files.exists(r)) {
                safe.add(r);
            }
        }
        List<Path> areas = new ArrayList<>(safe);
        areas.addAll(entries(env));
        for (Path r : readable) {
            areas.add(r.toAbsolutePath().normalize());
        }
        for (Path u : untrusted) {
            areas.add(u.toAbsolutePath().normalize());
        }
        Set<Path> allSecrets = new LinkedHashSet<>();
        for (Path s : secrets) {
            if (areas.stream().anyMatch(a -> s.startsWith(a) || a.startsWith(s))) {
                allSecrets.add(s);
            }
        }
        for (Path r : safe) {
            allSecrets.addAll(rootSecrets(r));
        }
        return new Plan(safe, List.copyOf(allSecrets));
    }

    /** Whether {@code root} may be opened: absolute, below a top-level dir, not holding home, clear of secrets. */
    static boolean allowed(Path root, Path home, List<Path> secrets) {
        if (!root.isAbsolute() || root.getNameCount() < 2 || home.startsWith(root)) {
            return false;
        }
        return secrets.stream().noneMatch(root::startsWith);
    }

    /**
     * The home secrets as absolute paths, their variable overrides ({@code CARGO_HOME}, {@code DOCKER_CONFIG},
     * {@code GH_CONFIG_DIR}, {@code CODEX_HOME}, ...) and our own sign-in store (the user config dir).
     */
    static List<Path> secrets(HostEnv env) {
        return secrets(env.home(), env.hostEnv());
    }

    /** As {@link #secrets(HostEnv)} for a home and the host's variables. */
    static List<Path> secrets(Path homeDir, Map<String, String> v) {
        Path home = homeDir.toAbsolutePath().normalize();
        Set<Path> out = new LinkedHashSet<>();
        HOME_SECRETS.forEach(s -> out.add(home.resolve(s)));
        under(v, "CARGO_HOME", "credentials.toml", out);
        under(v, "CARGO_HOME", "credentials", out);
        under(v, "DOCKER_CONFIG", "config.json", out);
        under(v, "GH_CONFIG_DIR", "", out);
        under(v, "CODEX_HOME", "", out);
        under(v, "GNUPGHOME", "", out);
        under(v, "GRADLE_USER_HOME", "gradle.properties", out);
        under(v, "NPM_CONFIG_USERCONFIG", "", out);
        under(v, "PIP_CONFIG_FILE", "", out);
        under(v, "AWS_SHARED_CREDENTIALS_FILE", "", out);
        under(v, "AWS_CONFIG_FILE", "", out);
        under(v, "CLOUDSDK_CONFIG", "", out);
        under(v, "AZURE_CONFIG_DIR", "", out);
        under(v, "PGPASSFILE", "", out);
        under(v, "PASSWORD_STORE_DIR", "", out);
        String kube = v.get("KUBECONFIG");
        if (kube != null) {
            for (String k : kube.split(":")) {
                if (!k.isEmpty() && Path.of(k).isAbsolute()) {
                    out.add(Path.of(k).normalize());
                }
            }
        }
        String xdg = v.get("XDG_CONFIG_HOME");
        if (xdg != null && Path.of(xdg).isAbsolute()) {
            for (String rel : List.of("gh", "git/credentials", "pip/pip.conf", "gcloud", "hub", "rclone/rclone.conf")) {
                out.add(Path.of(xdg).resolve(rel).normalize());
            }
        }
        out.add(HostEnv.defaultConfigRoot(v, home).toAbsolutePath().normalize());
        return List.copyOf(out);
    }

    /**
     * The secrets of the compiled policy ({@code Policy.readSecrets}), which every tool and the engine deny: the home
     * secrets with their variable overrides and the sign-in store ({@link #secrets(Path, Map)}), the secrets inside
     * the system dirs, and in each readable root that is no agent-writable dir (a repository's own {@code .npmrc} or
     * {@code credentials} fixture is its content, not the user's) the {@link #ROOT_SECRETS} at its top and, when it
     * is a toolchain root, those of each installed version.
     */
    public static List<Path> policySecrets(Path home, Map<String, String> vars, Collection<Path> readableRoots,
                                           Collection<Path> agentWritable) {
        Set<Path> out = new LinkedHashSet<>(secrets(home, vars));
        ReadScope.SYSTEM_SECRETS.forEach(s -> out.add(Path.of(s)));
        for (Path raw : readableRoots) {
            Path r = raw.toAbsolutePath().normalize();
            if (r.getNameCount() == 0 || agentWritable.stream().anyMatch(w -> r.startsWith(w) || w.startsWith(r))) {
                continue;
            }
            ROOT_SECRETS.forEach(s -> out.add(r.resolve(s)));
            out.addAll(rootSecrets(r));
        }
        return List.copyOf(out);
    }

    private static void under(Map<String, String> vars, String var, String rel, Set<Path> out) {
        String val = vars.get(var);
        if (val != null && !val.isBlank() && Path.of(val).isAbsolute()) {
            out.add(rel.isEmpty() ? Path.of(val).normalize() : Path.of(val).resolve(rel).normalize());
        }
    }

    /**
     * The existing {@link #ROOT_SECRETS} at the top of {@code root} and of each installed toolchain in its version dirs
     * (every denied path costs each wrap a lookup, and there can be dozens of versions; one that appears later is
     * picked up when the engine re-initialises — the well-known ones, {@code ~/.cargo/credentials.toml} after a
     * {@code cargo login}, are in {@link #HOME_SECRETS} and listed whether or not they exist yet).
     */
    static List<Path> rootSecrets(Path root) {
        List<Path> out = new ArrayList<>();
        existingSecrets(root, out);
        for (String vd : VERSION_DIRS) {
            for (Path p : list(root.resolve(vd), 200)) {
                existingSecrets(p, out);
                // asdf/mise: installs/<tool>/<version>/, sdkman: candidates/<tool>/<version>/
                if (vd.equals("installs") || vd.equals("candidates")) {
                    list(p, 200).forEach(q -> existingSecrets(q, out));
                }
            }
        }
        return out;
    }

    private static void existingSecrets(Path prefix, List<Path> out) {
        for (String s : ROOT_SECRETS) {
            Path p = prefix.resolve(s);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                out.add(p);
            }
        }
    }

    /** The roots (and companion files) of every manager whose root holds {@code p}; empty when none does. */
    static List<Path> managerRoots(Path p, Path home, Map<String, String> vars) {
        List<Path> out = new ArrayList<>();
        for (Manager m : MANAGERS) {
            boolean hit = false;
            for (Path r : rootsOf(m.vars(), m.defaults(), home, vars)) {
                if (p.startsWith(r) || real(p).startsWith(r)) {
                    hit = true;
                    out.add(r);
                }
            }
            if (hit) {
                out.addAll(rootsOf(m.companionVars(), m.companionDefaults(), home, vars));
            }
        }
        return out;
    }

    private static List<Path> rootsOf(List<String> varNames, List<String> defaults, Path home,
                                      Map<String, String> vars) {
        Set<Path> out = new LinkedHashSet<>();
        for (String v : varNames) {
            String val = vars.get(v);
            if (val != null && !val.isBlank() && Path.of(val).isAbsolute()) {
                out.add(Path.of(val).normalize());
            }
        }
        defaults.forEach(d -> out.add(home.resolve(d)));
        return List.copyOf(out);
    }

    /** {@code ~/.local/lib/python3.*}: pip --user packages the scripts in {@code ~/.local/bin} import. */
    private static List<Path> userSite(Path home) {
        return list(home.resolve(".local/lib"), 50).stream()
                .filter(p -> p.getFileName().toString().startsWith("python")).toList();
    }

    /** The absolute PATH entries, as written and resolved. */
    static List<Path> entries(HostEnv env) {
        Set<Path> out = new LinkedHashSet<>();
        for (String d : env.pathEntries()) {
            if (!d.isEmpty() && Path.of(d).isAbsolute()) {
                Path p = Path.of(d).normalize();
                out.add(p);
                out.add(real(p));
            }
        }
        return List.copyOf(out);
    }

    /** Where running {@code tool} leads first: its link target and its script's {@code #!} interpreter. */
    static List<Path> targets(Path tool) {
        List<Path> out = new ArrayList<>();
        Path real = real(tool);
        if (!real.equals(tool)) {
            out.add(real);
        }
        Path interp = shebang(real);
        if (interp != null) {
            out.add(interp);
            Path ri = real(interp);
            if (!ri.equals(interp)) {
                out.add(ri);
            }
        }
        return out;
    }

    /** The absolute interpreter of a {@code #!} script, or null. */
    static Path shebang(Path file) {
        String head = head(file, 256);
        if (!head.startsWith("#!")) {
            return null;
        }
        String line = head.substring(2).lines().findFirst().orElse("").trim();
        String first = line.split("\\s+")[0];
        return first.startsWith("/") ? Path.of(first).normalize() : null;
    }

    private static String head(Path file, int max) {
        if (!Files.isRegularFile(file)) {
            return "";
        }
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(max), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }

    /** {@code X} for {@code X/bin/tool}, else the dir holding the file. */
    static Path prefix(Path target) {
        Path dir = target.getParent();
        if (dir != null && dir.getFileName() != null && dir.getFileName().toString().equals("bin")
                && dir.getParent() != null) {
            return dir.getParent();
        }
        return dir == null ? target : dir;
    }

    /** Whether {@code target} is readable already: a system path, the PATH entry itself, or an opened root. */
    private static boolean covered(Path target, Path entry, Set<Path> roots, Path home) {
        if (target.startsWith(entry) || roots.stream().anyMatch(target::startsWith)) {
            return true;
        }
        return !target.startsWith(home) && system(target);
    }

    private static boolean system(Path p) {
        return ReadScope.SYSTEM.stream().anyMatch(s -> p.startsWith(Path.of(s)))
                && ReadScope.SYSTEM_SECRETS.stream().noneMatch(s -> p.startsWith(Path.of(s)));
    }

    /** The executables in a dir (at most {@link #SCAN_LIMIT}; links included). */
    static List<Path> executables(Path dir) {
        return list(dir, SCAN_LIMIT).stream().filter(p -> Files.isSymbolicLink(p)
                || (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && Files.isExecutable(p))).toList();
    }

    private static List<Path> list(Path dir, int limit) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (out.size() >= limit) {
                    break;
                }
                out.add(p);
            }
        } catch (IOException | SecurityException e) {
            // unlistable: nothing derived from it
        }
        return out;
    }

    static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | RuntimeException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    // ---- validate: which PATH tools still cannot run inside, and why ----

    /**
     * One line per PATH tool that cannot run inside the sandbox (with the reason), after the lines saying which
     * toolchain roots are opened. {@code roots}: the configured readable and writable roots.
     */
    public static List<String> check(HostEnv env, List<Path> roots) {
        Path home = env.home().toAbsolutePath().normalize();
        Plan plan = plan(env, roots, roots);
        List<Path> denied = ReadScope.readDenied();
        List<Path> allSecrets = new ArrayList<>(secrets(env));
        allSecrets.addAll(plan.secrets());
        List<String> out = new ArrayList<>();
        out.add("toolchains: " + (plan.roots().isEmpty() ? "no version-manager roots on PATH"
                : "readable read-only: " + String.join(", ", plan.roots().stream().map(Path::toString).toList()))
                + "; secrets unreadable to every tool (Bash, Read, Grep, Glob) whatever readableRoots says: "
                + String.join(" ", HOME_SECRETS.stream().map(s -> "~/" + s).toList())
                + ", the sign-in store, their variable overrides and the credentials at the top of each readable "
                + "root outside the workspace.");
        Readable r = new Readable(home, plan, roots, entries(env), allSecrets, denied);
        List<String> problems = new ArrayList<>();
        for (String raw : env.pathEntries()) {
            if (raw.isEmpty() || !Path.of(raw).isAbsolute()) {
                continue;
            }
            Path entry = Path.of(raw).normalize();
            String why = r.entryProblem(entry);
            if (why != null) {
                int n = executables(entry).size();
                if (n > 0) {
                    problems.add("PATH entry " + entry + " (" + n + " tools): " + why);
                }
                continue;
            }
            if (SYSTEM_BINS.stream().anyMatch(entry::startsWith)) {
                continue;
            }
            for (Path tool : executables(entry)) {
                String bad = r.toolProblem(tool);
                if (bad != null) {
                    problems.add(tool.getFileName() + " (" + tool + "): " + bad);
                }
            }
        }
        int shown = Math.min(problems.size(), 20);
        for (int i = 0; i < shown; i++) {
            out.add("[WARN] cannot run inside the sandbox: " + problems.get(i));
        }
        if (problems.size() > shown) {
            out.add("[WARN] ... and " + (problems.size() - shown) + " more PATH tools that cannot run inside.");
        }
        return out;
    }

    /** What the sandbox can read, as the policy compiler builds it, answered for one path at a time. */
    private record Readable(Path home, Plan plan, List<Path> roots, List<Path> pathEntries, List<Path> secrets,
                            List<Path> denied) {
        /** Why nothing in a PATH entry can run, or null. */
        String entryProblem(Path entry) {
            if (home.startsWith(entry)) {
                return "it holds the home dir, which is never made readable (it would open every secret in home).";
            }
            String s = secretOf(entry);
            if (s != null) {
                return "it is inside the secret " + s + ".";
            }
            if (entry.getNameCount() == 1 && denied.contains(entry)) {
                return "it is a whole top-level dir, which is never made readable.";
            }
            return null;
        }

        /** Why one tool cannot run, or null when its link, interpreter and exec'd paths are all readable. */
        String toolProblem(Path tool) {
            Path real = Toolchains.real(tool);
            if (Files.isSymbolicLink(tool) && !Files.exists(tool)) {
                return "its link target does not exist.";
            }
            String why = unreadable(real, "its link target");
            if (why != null) {
                return why;
            }
            Path interp = shebang(real);
            if (interp != null && (why = unreadable(interp, "its interpreter")) != null) {
                return why;
            }
            Matcher m = EXEC_PATH.matcher(head(real, 4096));
            while (m.find()) {
                Path p = Path.of(m.group(1)).normalize();
                if ((why = unreadable(p, "the program it execs")) != null) {
                    return why;
                }
            }
            return null;
        }

        private String unreadable(Path p, String what) {
            String s = secretOf(p);
            if (s != null) {
                return what + " " + p + " is inside the secret " + s + ", which stays unreadable.";
            }
            if (readable(p)) {
                return null;
            }
            if (p.startsWith(home)) {
                return what + " " + p + " is under the hidden home and in no known toolchain root (pyenv, nvm, "
                        + "rustup/cargo, sdkman, asdf, mise, volta, bun) or PATH dir; add its dir to readableRoots.";
            }
            return what + " " + p + " is outside the readable system dirs; add its dir to readableRoots.";
        }

        private boolean readable(Path p) {
            if (roots.stream().anyMatch(p::startsWith) || plan.roots().stream().anyMatch(p::startsWith)) {
                return true;
            }
            for (Path e : pathEntries) {
                if (p.startsWith(e) && !home.startsWith(e)) {
                    return true;
                }
            }
            if (p.startsWith(home)) {
                return false;
            }
            return denied.stream().noneMatch(p::startsWith);
        }

        private String secretOf(Path p) {
            for (Path s : secrets) {
                if (p.startsWith(s)) {
                    return s.toString();
                }
            }
            return null;
        }
    }
}
