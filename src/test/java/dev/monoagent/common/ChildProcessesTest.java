package dev.monoagent.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host children never search the current directory for libraries: the loader variables keep only absolute entries,
 * whatever the JVM was started with (the jpackage launcher run in place exports {@code LD_LIBRARY_PATH=:<app>/lib/app}).
 */
class ChildProcessesTest {
    @TempDir
    Path tmp;

    @Test
    void loaderVariablesKeepOnlyAbsoluteEntries() {
        Map<String, String> env = new HashMap<>(Map.of("LD_LIBRARY_PATH", ":/opt/app/lib:lib;/x;;/opt/app/lib:",
                "LD_PRELOAD", "./evil.so /usr/lib/libjemalloc.so.2:libc.so.6", "LD_AUDIT", "a.so:",
                "DYLD_LIBRARY_PATH", ".", "DYLD_INSERT_LIBRARIES", "/usr/lib/x.dylib", "PATH", ":/usr/bin:."));
        ChildProcesses.clean(env);
        assertEquals(Map.of("LD_LIBRARY_PATH", "/opt/app/lib:/x", "LD_PRELOAD", "/usr/lib/libjemalloc.so.2",
                "DYLD_INSERT_LIBRARIES", "/usr/lib/x.dylib", "PATH", ":/usr/bin:."), env);
        assertEquals(Map.of("A", "b"), ChildProcesses.builder(List.of("true"), Map.of("A", "b", "LD_AUDIT", ""))
                .environment());
    }

    /**
     * A mono-agent started with {@code LD_LIBRARY_PATH=:/x} on a repository holding a fake {@code libc.so.6}: Grep's
     * host rg and bwrap run in the workspace, and used to load that file (they died with "file too short" and Grep
     * said "No matches found"). Judged by what Grep finds in a fresh JVM, the only way to give the JVM that variable.
     */
    @Test
    void aLibraryPlantedInTheWorkspaceIsNotLoadedByHostChildren() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("a.txt"), "needle\n");
        Files.writeString(ws.resolve("libc.so.6"), "not a library\n");
        Files.writeString(ws.resolve("libselinux.so.1"), "not a library\n");
        Path run = Files.createDirectories(tmp.resolve("run"));
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "dev.monoagent.cli.Main", "tools", "call", "Grep",
                "{\"pattern\":\"needle\"}");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(run.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", Files.createDirectories(tmp.resolve("home")).toString());
        env.put("MONO_AGENT_CONFIG_DIR", Files.createDirectories(tmp.resolve("conf")).toString());
        env.put("MONO_AGENT_CACHE_DIR", Files.createDirectories(tmp.resolve("cache")).toString());
        env.put("MONO_AGENT_WORKSPACE", ws.toString());
        env.put("LD_LIBRARY_PATH", ":/x");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("a.txt") && !out.contains("No matches"), out);
    }
}
