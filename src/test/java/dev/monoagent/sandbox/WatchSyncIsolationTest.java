package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watch trusts its index for a scan once it has seen its own sync name arrive in its sync dir (ProtectedWatch#sync):
 * a command that could put names there could answer a sync ahead of events it caused, or plant the next name so the
 * host's rename replaces it. The dir is the host's own (a 0700 dir in the host's /dev/shm, the sandbox has a private
 * one) and the names carry a random token; this tries to reach it from a warm command by its absolute path, by the
 * glob its prefix allows, and through /proc/self/root and a symlink, and checks that the index still catches a
 * protected file made in the same command.
 */
class WatchSyncIsolationTest {
    @TempDir
    Path tmp;

    @Test
    void aCommandCannotReachTheWatchsSyncDir() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            assertNotNull(sb.engine().watch(), "the engine has a watch (Linux)");
            Path sync = sb.engine().watch().syncDir();
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(sync)));
            List<String> hostBefore = names(sync);
            String d = sync.toString();
            String run = "run-" + UUID.randomUUID();
            var r = TestEngine.bash(sb, ws, "ls -d /dev/shm/mono-agent-w-* 2>/dev/null | grep -c . ; "
                    + "ls " + d + " 2>/dev/null | grep -c . ; "
                    + "mkdir -p " + d + "; for i in $(seq 0 64); do : > " + d + "/sync-$i; done; "
                    + ": > " + d + "/sync-forged; "
                    + "for x in /dev/shm/mono-agent-w-*; do : > $x/sync-glob 2>/dev/null; done; "
                    + ": > /proc/self/root" + d + "/sync-proc 2>/dev/null; "
                    + "ln -s " + d + " /tmp/syncln 2>/dev/null; : > /tmp/syncln/sync-link 2>/dev/null; "
                    + "echo SECRET=1 > .env.forged; echo done", run, "forge", Duration.ofSeconds(60));
            List<String> lines = r.stdout().lines().toList();
            assertEquals("0", lines.get(0), "the sandbox's /dev/shm shows none of the host's sync dirs: " + r.stdout());
            assertEquals("0", lines.get(1), "the host's sync dir is not listable by its path: " + r.stdout());
            assertEquals("done", lines.get(lines.size() - 1), r.stderr());
            List<String> hostAfter = names(sync);
            for (String forged : List.of("sync-forged", "sync-0", "sync-64", "sync-glob", "sync-proc", "sync-link")) {
                assertFalse(hostAfter.contains(forged), forged + " reached the host's sync dir: " + hostAfter);
            }
            // only the host's own marker is there (renamed once per sync; the names before and after are its own)
            assertTrue(hostAfter.size() <= 1 && hostAfter.stream().allMatch(n -> n.startsWith("sync-")),
                    "before " + hostBefore + ", after " + hostAfter);
            // and the scan that followed still saw the protected file the command made
            assertTrue(r.violations().stream().anyMatch(v -> v.target() != null
                    && v.target().endsWith(".env.forged")), "the new .env.forged was recorded: " + r.violations());
        }
    }

    private static List<String> names(Path dir) throws java.io.IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
