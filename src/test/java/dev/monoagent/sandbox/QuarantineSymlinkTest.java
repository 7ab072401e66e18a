package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Quarantine must never move a host file reached through a parent the agent swapped for a symlink. */
class QuarantineSymlinkTest {
    @TempDir
    Path tmp;

    @Test
    void quarantineDoesNotFollowASymlinkedParent() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve(".env.host"), "HOST-FILE\n");
        // what a still-running sandboxed process could do between the scan and the move
        Files.createSymbolicLink(ws.resolve("sub"), outside);
        Policy p = PolicyCompiler.compile(TestEngine.config(ws, NetworkMode.NONE, List.of()), tmp.resolve("home"),
                tmp.resolve("cache"));
        Path seen = ws.resolve("sub/.env.host");
        List<ProtectedScan.Change> changes = ProtectedScan.detect(p, Map.of(),
                Map.of(seen, new ProtectedScan.Key(10, 0, null)));
        assertEquals(1, changes.size(), "still reported");
        assertNull(changes.get(0).quarantinedTo());
        assertTrue(Files.isRegularFile(outside.resolve(".env.host")), "host file moved through a symlink");
    }
}
