package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host tools (setsid, bwrap, node, ...) run outside the sandbox: one the agent planted in a PATH entry inside its own
 * workspace must never be picked up by the next session.
 */
class HostPathTrustTest {
    @TempDir
    Path tmp;

    private Path plant(Path bin, String name, Path marker) throws Exception {
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/bin/sh\necho planted >> '" + marker + "'\nexec /usr/bin/" + name + " \"$@\"\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
        return f;
    }

    @Test
    void toolsPlantedInsideTheWorkspaceAreNeverRun() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path bin = Files.createDirectories(ws.resolve("bin"));
        Path marker = tmp.resolve("host-marker");
        for (String t : List.of("setsid", "bwrap", "socat", "rg", "bash", "node")) {
            plant(bin, t, marker);
        }
        HostEnv base = TestEngine.env();
        HostEnv env = base.withPath(bin + ":" + base.path());
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class,
                    sb.exec(CommandSpec.bash("echo hi", ws)));
            assertEquals("hi\n", c.stdout(), c.stderr());
        }
        assertFalse(Files.exists(marker), "a planted host tool ran on the host");
    }

    @Test
    void relativeAndCacheEntriesAreSkipped() throws Exception {
        Path cwd = Path.of("").toAbsolutePath();
        Path rel = Files.createDirectories(cwd.resolve("target/rel-bin-" + System.nanoTime()));
        try {
            Path marker = tmp.resolve("m");
            plant(rel, "setsid", marker);
            HostEnv base = TestEngine.env();
            Path cacheBin = Files.createDirectories(base.cacheRoot().resolve("bin-" + System.nanoTime()));
            plant(cacheBin, "setsid", marker);
            HostEnv env = base.withPath(cwd.relativize(rel) + ":" + cacheBin + ":/usr/bin:/bin");
            Path found = env.which("setsid");
            assertNotEquals(null, found);
            assertTrue(found.startsWith("/usr/bin") || found.startsWith("/bin"), String.valueOf(found));
            SrtRuntime.deleteTree(cacheBin);
        } finally {
            SrtRuntime.deleteTree(rel);
        }
    }
}
