package dev.monoagent.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Refuses a workspace or writable root that is, or contains, the user's home directory. The agent may write anything
 * in such a root that no protected name covers, and the home directory holds what the user's shell, desktop session,
 * service manager and tools run on their own ({@code .zshenv}, {@code .bash_login}, {@code .config/autostart},
 * {@code .config/systemd/user}, {@code .local/bin}, {@code .config/git/config}, ...): a list of names can never be
 * complete there, so the root itself is refused.
 *
 * <p>"The home directory" is every directory the process's tools can take for it: Java's {@code user.home} (the
 * passwd entry) and the exported {@code HOME} (what the reviewer's shell, git, desktop session and our own launcher
 * use; it differs under {@code sudo -E}, in containers and for service accounts). {@code HOME} comes from the
 * reviewer's process environment only, never from a workspace {@code .env}.
 */
final class HomeRoots {
    private HomeRoots() {}

    /**
     * Adds an error naming the workspace or the {@code sandbox.writableRoots[i]} entry that holds a home dir of
     * {@link #homes}.
     */
    static void check(MonoConfig cfg, Path workspace, Map<String, String> processEnv, Map<String, String> envNameOf,
                      List<ConfigError> errors) {
        check(cfg, workspace, Path.of(System.getProperty("user.home")), homes(processEnv), envNameOf, errors);
    }

    /**
     * {@code user.home} and the exported {@code HOME} when it is an absolute path, as written (normalized). Each is
     * refused as a root; {@code ~} in a root still means {@code user.home}, as everywhere else.
     */
    static List<Path> homes(Map<String, String> processEnv) {
        Set<Path> out = new LinkedHashSet<>();
        out.add(Path.of(System.getProperty("user.home")).toAbsolutePath().normalize());
        String exported = processEnv.get("HOME");
        if (exported != null && !exported.isBlank()) {
            try {
                Path h = Path.of(exported);
                if (h.isAbsolute()) {
                    out.add(h.normalize());
                }
            } catch (java.nio.file.InvalidPathException e) {
                // not a path the shell could use either
            }
        }
        return List.copyOf(out);
    }

    /** As above, with {@code home} for {@code ~} and {@code homeDirs} the directories refused as roots. */
    static void check(MonoConfig cfg, Path workspace, Path home, List<Path> homeDirs, Map<String, String> envNameOf,
                      List<ConfigError> errors) {
        Path ws = workspace.toAbsolutePath().normalize();
        Path wsHome = held(ws, homeDirs);
        if (wsHome != null) {
            errors.add(new ConfigError("workspace", "The workspace " + ws + " is or contains the home directory "
                    + wsHome + "; the agent could write the files your shell, desktop and tools run from there. "
                    + "Start mono-agent in a project directory (or set " + EnvVars.WORKSPACE + " to one)."));
        }
        String name = envNameOf.getOrDefault("sandbox.writableRoots", "sandbox.writableRoots");
        List<String> roots = cfg.sandbox().writableRoots();
        for (int i = 0; i < roots.size(); i++) {
            String entry = roots.get(i);
            if (entry.isBlank()) {
                continue; // reported as empty
            }
            Path r = resolve(entry, ws, home);
            Path rootHome = held(r, homeDirs);
            if (rootHome != null) {
                errors.add(new ConfigError(name + "[" + i + "]", "%s[%d] \"%s\" (%s) is or contains the home "
                        .formatted(name, i, entry, r) + "directory " + rootHome + "; the agent could write the files "
                        + "your shell, desktop and tools run from there. Name a directory inside it instead."));
                continue;
            }
            Path toolHome = held(r, toolHomes(homeDirs));
            if (toolHome != null) {
                errors.add(new ConfigError(name + "[" + i + "]", "%s[%d] \"%s\" (%s) is or contains "
                        .formatted(name, i, entry, r) + toolHome + ", where your tools keep settings they act on by "
                        + "themselves (git's global config, autostart entries, cargo's config, credentials); protected "
                        + "names inside a root cannot cover them. Name a directory inside it instead (a cache or "
                        + "project dir)."));
            }
        }
    }

    /** The tool homes below each home: refused as roots like home itself. */
    static final List<String> TOOL_HOMES = List.of(".config", ".local", ".cache", ".cargo", ".rustup", ".ssh",
            ".gnupg", ".aws", ".kube", ".docker", ".m2", ".gradle", ".npm");

    private static List<Path> toolHomes(List<Path> homeDirs) {
        List<Path> out = new java.util.ArrayList<>();
        for (Path h : homeDirs) {
            for (String t : TOOL_HOMES) {
                out.add(h.resolve(t));
            }
        }
        return out;
    }

    /** As {@link LoadedConfig#resolve}. */
    private static Path resolve(String entry, Path ws, Path home) {
        if (entry.equals("~")) {
            return home;
        }
        if (entry.startsWith("~/")) {
            return home.resolve(entry.substring(2)).normalize();
        }
        return ws.resolve(entry).normalize();
    }

    /**
     * The first of {@code homeDirs} that {@code root} is or holds, each compared as written and where links lead;
     * or null.
     */
    private static Path held(Path root, List<Path> homeDirs) {
        Set<Path> roots = forms(root);
        for (Path home : homeDirs) {
            for (Path h : forms(home)) {
                for (Path r : roots) {
                    if (h.startsWith(r)) {
                        return home;
                    }
                }
            }
        }
        return null;
    }

    /** The path as written (absolute, normalized) and, when it exists, its real path. */
    private static Set<Path> forms(Path p) {
        Set<Path> out = new LinkedHashSet<>();
        Path abs = p.toAbsolutePath().normalize();
        out.add(abs);
        try {
            if (Files.exists(abs)) {
                out.add(abs.toRealPath());
            }
        } catch (IOException | SecurityException e) {
            // unreadable: judged as written
        }
        return out;
    }
}
