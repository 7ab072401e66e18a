package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The post-command scan's quarantine (and git-entry restore) raced by a process that keeps swapping a
 * workspace directory for a symlink to a host secret directory. The swapper is a host thread doing exactly what a
 * detached sandboxed process can do to the workspace (rename, symlink, recreate), only faster. Over the whole race
 * the host secrets never move and nothing is written into the secret directory, while the decoys do get quarantined
 * (so the scans really ran against the swapped tree). {@code -Dquarantine.race.seconds=N} changes the 20 s default. The
 * race also ends after 20,000 quarantined decoys: each is a file the temp-dir clean-up must delete again (90,000 of them took minutes
 * to delete on a loaded 2-core machine).
 */
class QuarantineRaceTest {
    @TempDir
    Path tmp;

    @Test
    void aSwapperRacingTheScansNeverGetsAHostFileMoved() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path ssh = Files.createDirectories(tmp.resolve("home/.ssh"));
        Path secret = Files.writeString(ssh.resolve(".env.key"), "HOST-SECRET\n");
        Files.writeString(ssh.resolve("id_rsa"), "PRIVATE-KEY\n");
        Policy p = PolicyCompiler.compile(TestEngine.config(ws, NetworkMode.NONE, List.of()), tmp.resolve("home"),
                tmp.resolve("cache"));
        Path dir = ws.resolve("d");
        Path parked = ws.resolve("d-real");
        Path decoy = dir.resolve(".env.key");
        Path gitDir = ws.resolve(".git");
        Path gitParked = ws.resolve(".git-real");
        Files.createDirectories(dir);
        Files.createDirectories(gitDir);
        long seconds = Long.getLong("quarantine.race.seconds", 20);
        Swapper swapper = Swapper.start(List.of(new Swapper.Swap(dir, parked, ssh),
                new Swapper.Swap(gitDir, gitParked, ssh)), () -> {
                    if (!Files.exists(decoy, LinkOption.NOFOLLOW_LINKS)) {
                        Files.writeString(decoy, "agent decoy\n");
                    }
                });
        long scans = 0;
        long quarantined = 0;
        ProtectedScan.GitEntry commondir = new ProtectedScan.GitEntry('F', null, "../other\n".getBytes());
        ProtectedScan.GitEntry absent = new ProtectedScan.GitEntry('A', null, null);
        long begin = System.nanoTime();
        long end = begin + seconds * 1_000_000_000L;
        try {
            while (System.nanoTime() < end && Files.exists(secret) && quarantined < 20_000) {
                List<ProtectedScan.Change> c = ProtectedScan.detect(p, Map.of(),
                        Map.of(decoy, new ProtectedScan.Key(12, 0, null)));
                if (c.get(0).quarantinedTo() != null) {
                    quarantined++;
                }
                // the restore of a removed .git/commondir must not land in the directory .git points to now
                ProtectedScan.detectGit(p, Map.of(gitDir.resolve("commondir"), commondir),
                        Map.of(gitDir.resolve("commondir"), absent));
                Files.deleteIfExists(gitDir.resolve("commondir"));
                scans++;
            }
        } finally {
            swapper.close();
        }
        assertTrue(Files.exists(secret), "the host secret was moved by the quarantine after " + scans + " scans");
        assertEquals("HOST-SECRET\n", Files.readString(secret));
        assertTrue(Files.exists(ssh.resolve("id_rsa")));
        assertFalse(Files.exists(ssh.resolve("commondir"), LinkOption.NOFOLLOW_LINKS),
                "the git-entry restore wrote into the symlinked directory");
        try (var s = Files.list(ssh)) {
            assertEquals(2, s.count(), "something was added to or removed from the secret directory");
        }
        assertTrue(scans > 1000, "too few scans to call it a race: " + scans);
        assertTrue(swapper.swaps() > 1000, "too few swaps to call it a race: " + swapper.swaps());
        assertTrue(quarantined > 0, "no decoy was ever quarantined: the scans never saw the real directory");
        System.out.printf("quarantine race: %d s, %d scans, %d swaps, %d decoys quarantined%n",
                (System.nanoTime() - begin) / 1_000_000_000L, scans,
                swapper.swaps(), quarantined);
    }
}
