package dev.monoagent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The host facts the engine depends on, gathered once so tests can substitute every one of them: where the private
 * cache lives, which home directory the sandbox protects, the PATH used to find host tools (never the sandbox's PATH),
 * and where per-session temp dirs go. {@link #detect()} reads the real process environment.
 *
 * @param cacheRoot  {@code ${XDG_CACHE_HOME:-~/.cache}/mono-agent} (macOS {@code ~/Library/Caches/mono-agent}), or
 *                   {@code MONO_AGENT_CACHE_DIR} / system property {@code monoagent.cacheDir}
 * @param home       the user's home directory
 * @param path       the PATH searched for node, bwrap, socat, rg and an external srt
 * @param tmpRoot    parent of the per-session temp dirs
 * @param hostEnv    the host environment, only for the allowlisted variables passed into the sandbox
 * @param extraProtected product-owned ports that must never be granted to the sandbox (e.g. a UI server)
 */
public record HostEnv(Path cacheRoot, Path home, String path, Path tmpRoot, Map<String, String> hostEnv,
                      List<Integer> extraProtected) {

    public HostEnv {
        Objects.requireNonNull(cacheRoot);
        Objects.requireNonNull(home);
        hostEnv = Map.copyOf(hostEnv);
        extraProtected = List.copyOf(extraProtected);
    }

    /** The real host: process env, user home, default cache root (with the documented overrides). */
    public static HostEnv detect() {
        return from(System.getenv());
    }

    /** The host as seen through an explicit environment map (the CLI's context; tests pass their own). */
    public static HostEnv from(Map<String, String> env) {
        Path home = Path.of(System.getProperty("user.home"));
        return new HostEnv(defaultCacheRoot(env, home), home, env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"),
                Path.of(System.getProperty("java.io.tmpdir")), env, List.of());
    }

    /** The default cache root with overrides: system property, then env, then the platform cache dir. */
    public static Path defaultCacheRoot(Map<String, String> env, Path home) {
        return defaultCacheRoot(env, home, Platform.current());
    }

    /** As {@link #defaultCacheRoot(Map, Path)} for {@code platform}. */
    public static Path defaultCacheRoot(Map<String, String> env, Path home, Platform platform) {
        String prop = System.getProperty("monoagent.cacheDir");
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        String override = env.get("MONO_AGENT_CACHE_DIR");
        if (override != null && !override.isBlank()) {
            return Path.of(override).toAbsolutePath().normalize();
        }
        if (platform == Platform.MACOS) {
            return home.resolve("Library/Caches/mono-agent");
        }
        String xdg = env.get("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : home.resolve(".cache");
        return base.resolve("mono-agent");
    }

    /**
     * The cache dir the {@code mono-agent} launcher script keeps its JDK path ({@code java-path}) and class-data
     * archives in: {@code ${XDG_CACHE_HOME:-$HOME/.cache}/mono-agent}, from the exported {@code HOME}, which may not be
     * {@code user.home}. Whoever writes {@code java-path} chooses the program the reviewer's next {@code mono-agent}
     * runs. Null when neither variable is an absolute path (the launcher then ignores a relative one).
     */
    public static Path launcherCacheRoot(Map<String, String> env) {
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Path.of(xdg).normalize().resolve("mono-agent");
        }
        String home = env.get("HOME");
        if (home != null && home.startsWith("/")) {
            return Path.of(home).normalize().resolve(".cache/mono-agent");
        }
        return null;
    }

    /**
     * mono-agent's per-user config dir (it holds the ChatGPT sign-in): {@code MONO_AGENT_CONFIG_DIR}, else
     * {@code ~/Library/Application Support/mono-agent} on macOS, else {@code ${XDG_CONFIG_HOME:-~/.config}/mono-agent}.
     * Here, below the model layer, so the sandbox policy can deny reading it wherever it lives.
     */
    public static Path defaultConfigRoot(Map<String, String> env, Path home) {
        return defaultConfigRoot(env, home, Platform.current());
    }

    /** As {@link #defaultConfigRoot(Map, Path)} for {@code platform}. */
    public static Path defaultConfigRoot(Map<String, String> env, Path home, Platform platform) {
        return UserConfigRoot.of(env, home, platform == Platform.MACOS);
    }

    public HostEnv withCacheRoot(Path root) {
        return new HostEnv(root, home, path, tmpRoot, hostEnv, extraProtected);
    }

    public HostEnv withPath(String p) {
        return new HostEnv(cacheRoot, home, p, tmpRoot, hostEnv, extraProtected);
    }

    public HostEnv withHome(Path h) {
        return new HostEnv(cacheRoot, h, path, tmpRoot, hostEnv, extraProtected);
    }

    public HostEnv withProtectedPorts(List<Integer> ports) {
        return new HostEnv(cacheRoot, home, path, tmpRoot, hostEnv, ports);
    }

    /** First trusted executable named {@code name} on {@link #path()} (see {@link #which(String, Collection)}). */
    public Path which(String name) {
        return which(name, List.of());
    }

    /**
     * First executable named {@code name} on {@link #path()}, as an absolute path, or null. Host tools run outside
     * the sandbox, so a PATH entry the sandboxed agent can write to would let it plant the next session's
     * {@code setsid}/{@code bwrap}: relative entries (they resolve against the cwd, usually the workspace) and entries
     * inside {@code untrusted} (the caller's workspace and writable roots), the cache root and our per-session temp
     * parent are skipped, both as written and after resolving symlinks; so is a hit whose real file lies there.
     */
    public Path which(String name, Collection<Path> untrusted) {
        List<Path> bad = new ArrayList<>();
        for (Path u : untrusted) {
            addBoth(bad, u);
        }
        addBoth(bad, cacheRoot);
        if (tmpRoot != null) {
            addBoth(bad, tmpRoot.resolve("mono-agent-" + currentUid()));
        }
        for (String dir : path.split(":")) {
            if (dir.isEmpty() || !Path.of(dir).isAbsolute()) {
                continue;
            }
            Path d = Path.of(dir).normalize();
            if (inside(d, bad) || inside(real(d), bad)) {
                continue;
            }
            Path p = d.resolve(name);
            if (Files.isRegularFile(p) && Files.isExecutable(p) && !inside(real(p), bad)) {
                return p;
            }
        }
        return null;
    }

    private static void addBoth(List<Path> out, Path p) {
        Path n = p.toAbsolutePath().normalize();
        out.add(n);
        Path r = real(n);
        if (!r.equals(n)) {
            out.add(r);
        }
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | RuntimeException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    private static boolean inside(Path p, List<Path> roots) {
        return roots.stream().anyMatch(p::startsWith);
    }

    /** The PATH entries that exist, for the sandbox's and the bridge's PATH. */
    public List<String> pathEntries() {
        List<String> out = new ArrayList<>();
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && !out.contains(dir)) {
                out.add(dir);
            }
        }
        return out;
    }

    public boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    /** The uid this process runs as, or -1 when the system does not say. */
    public static int currentUid() {
        try {
            return (Integer) java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (java.io.IOException | UnsupportedOperationException e) {
            try {
                return (Integer) java.nio.file.Files.getAttribute(Path.of(System.getProperty("user.home")), "unix:uid");
            } catch (java.io.IOException ex) {
                return -1;
            }
        }
    }
}
