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
 */
final class HomeRoots {
    private HomeRoots() {}

    /** Adds an error naming the workspace or the {@code sandbox.writableRoots[i]} entry that holds the home dir. */
    static void check(MonoConfig cfg, Path workspace, Map<String, String> envNameOf, List<ConfigError> errors) {
        check(cfg, workspace, Path.of(System.getProperty("user.home")), envNameOf, errors);
    }

    static void check(MonoConfig cfg, Path workspace, Path home, Map<String, String> envNameOf,
                      List<ConfigError> errors) {
        Set<Path> homes = forms(home);
        Path ws = workspace.toAbsolutePath().normalize();
        if (holds(ws, homes)) {
            errors.add(new ConfigError("workspace", "The workspace " + ws + " is or contains the home directory "
                    + home + "; the agent could write the files your shell, desktop and tools run from there. "
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
            if (holds(r, homes)) {
                errors.add(new ConfigError(name + "[" + i + "]", "%s[%d] \"%s\" (%s) is or contains the home "
                        .formatted(name, i, entry, r) + "directory " + home + "; the agent could write the files "
                        + "your shell, desktop and tools run from there. Name a directory inside it instead."));
            }
        }
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

    /** Whether {@code root} (as written, or where its links lead) is one of {@code homes} or an ancestor of one. */
    private static boolean holds(Path root, Set<Path> homes) {
        for (Path r : forms(root)) {
            for (Path h : homes) {
                if (h.startsWith(r)) {
                    return true;
                }
            }
        }
        return false;
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
