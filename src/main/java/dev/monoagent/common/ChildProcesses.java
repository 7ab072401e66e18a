package dev.monoagent.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one way mono-agent starts a process on the host (bwrap, node, socat, rg, git, tar, kill, a browser, a relaunch of
 * itself): every {@link ProcessBuilder} comes from here, so every child's environment has the dynamic loader's search
 * variables cleaned. An ArchUnit rule keeps it the only caller of the {@code ProcessBuilder} constructor.
 *
 * <p>Why: an empty or relative entry in {@code LD_LIBRARY_PATH} means "the current directory" to the loader, and many
 * children run in the workspace (rg and its bwrap, the srt bridge) or inherit the JVM's working directory, usually the
 * repository under review. The jpackage launcher run in place exports {@code LD_LIBRARY_PATH=:<app>/lib/app}; a
 * repository holding {@code libc.so.6} or {@code libselinux.so.1} at its top would then be loaded by a host process.
 * So only absolute entries are kept in the search paths ({@code LD_LIBRARY_PATH}, glibc also splits on {@code ;}; the
 * {@code DYLD_*} paths on macOS) and in the preload and audit lists; a variable left with none is removed.
 */
public final class ChildProcesses {
    /** Colon-separated library search paths. */
    static final List<String> SEARCH_PATHS = List.of("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
            "DYLD_FALLBACK_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH", "DYLD_FALLBACK_FRAMEWORK_PATH");
    /** Lists of libraries loaded into every process (LD_PRELOAD also splits on spaces). */
    static final List<String> LOADED = List.of("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES");

    private ChildProcesses() {}

    /** A builder for {@code cmd} with the JVM's own environment, cleaned. */
    public static ProcessBuilder builder(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        clean(pb.environment());
        return pb;
    }

    /** As {@link #builder(List)}. */
    public static ProcessBuilder builder(String... cmd) {
        return builder(List.of(cmd));
    }

    /** A builder for {@code cmd} whose environment is exactly {@code env}, cleaned. */
    public static ProcessBuilder builder(List<String> cmd, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> e = pb.environment();
        e.clear();
        e.putAll(env);
        clean(e);
        return pb;
    }

    /** Keeps only absolute entries of the loader variables in {@code env}, removing a variable left empty. */
    public static void clean(Map<String, String> env) {
        for (String k : SEARCH_PATHS) {
            keepAbsolute(env, k, "[:;]");
        }
        for (String k : LOADED) {
            keepAbsolute(env, k, k.equals("LD_PRELOAD") ? "[:\\s]" : ":");
        }
    }

    private static void keepAbsolute(Map<String, String> env, String key, String separators) {
        String v = env.get(key);
        if (v == null) {
            return;
        }
        List<String> kept = new ArrayList<>();
        for (String entry : v.split(separators, -1)) {
            if (entry.startsWith("/") && !kept.contains(entry)) {
                kept.add(entry);
            }
        }
        if (kept.isEmpty()) {
            env.remove(key);
        } else {
            env.put(key, String.join(":", kept));
        }
    }
}
