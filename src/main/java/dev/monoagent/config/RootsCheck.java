package dev.monoagent.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the sandbox roots against the workspace once they are resolved. A readable root is mounted read-only, and a
 * mount above the workspace (or above a writable root) covers it: {@code readableRoots: [".", ".."]} makes the
 * workspace itself read-only in the sandbox, so every command fails with bubblewrap's "Read-only file system". Such a
 * root is refused here, naming the entry, instead of failing every command later.
 */
public final class RootsCheck {
    private RootsCheck() {}

    /** Every problem, each naming {@code sandbox.readableRoots[i]} (or its env var). */
    public static List<ConfigError> problems(LoadedConfig lc) {
        String name = lc.sourceOf("sandbox.readableRoots") == Source.ENV
                || lc.sourceOf("sandbox.readableRoots") == Source.DOTENV
                ? "MONO_AGENT_SANDBOX_READABLE_ROOTS" : "sandbox.readableRoots";
        return problems(lc.config(), lc.workspace(), lc.readableRoots(), lc.writableRoots(), name);
    }

    /** As {@link #problems(LoadedConfig)} for a configuration being loaded, its roots resolved by the loader. */
    static List<ConfigError> problems(MonoConfig cfg, Path workspace, List<Path> readable, List<Path> writableRoots,
                                      String name) {
        Path ws = workspace.toAbsolutePath().normalize();
        List<String> raw = cfg.sandbox().readableRoots();
        List<Path> writable = new ArrayList<>(List.of(ws));
        writableRoots.forEach(w -> writable.add(w.toAbsolutePath().normalize()));
        List<ConfigError> out = new ArrayList<>();
        List<Path> configured = writableRoots.stream().map(w -> w.toAbsolutePath().normalize()).toList();
        for (int i = 0; i < readable.size() && i < raw.size(); i++) {
            Path r = readable.get(i).toAbsolutePath().normalize();
            if (configured.stream().anyMatch(r::startsWith)) {
                continue; // a root that is writable itself is not mounted read-only over what it holds
            }
            for (Path w : writable) {
                if (!w.equals(r) && w.startsWith(r)) {
                    String what = w.equals(ws) ? "the workspace " + ws : "the writable root " + w;
                    out.add(new ConfigError(name + "[" + i + "]", "%s[%d] \"%s\" (%s) contains %s: a readable root "
                            .formatted(name, i, raw.get(i), r, what) + "is mounted read-only, so it would make "
                            + "that folder read-only in the sandbox. List the folders beside it that the agent "
                            + "should read instead (e.g. \"../lib\")."));
                    break;
                }
            }
        }
        return List.copyOf(out);
    }

    /** Throws when {@link #problems} finds any. */
    public static LoadedConfig check(LoadedConfig lc) throws ConfigException {
        List<ConfigError> p = problems(lc);
        if (!p.isEmpty()) {
            throw new ConfigException(p);
        }
        return lc;
    }
}
