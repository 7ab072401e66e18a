package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The temp-cap clean-up ({@link Limits#enforceTmp}) empties the session temp dir after a command while a
 * second call's sandboxed process, still running, keeps swapping a directory in that temp dir for a symlink to a
 * host secret directory. The swapper is a host thread doing what the sandboxed process can do there (fill, rename,
 * symlink, rename back), only faster. Over the whole race no file of the secret directory is deleted, while the
 * temp dir really is emptied (so the clean-ups met the swapped tree). {@code -Dtmpcap.race.seconds=N} changes the
 * 20 s default.
 */
class TmpCapRaceTest {
    @TempDir
    Path tmp;

    @Test
    void aSwapperRacingTheTempCapCleanUpNeverGetsAHostFileDeleted() throws Exception {
        Path secretDir = Files.createDirectories(tmp.resolve("home/.ssh"));
        Path key = Files.writeString(secretDir.resolve("id_rsa"), "HOST-SECRET-KEY\n");
        Path hosts = Files.writeString(secretDir.resolve("known_hosts"), "HOST-SECRET-HOSTS\n");
        Path sessionTmp = Files.createDirectories(tmp.resolve("session-tmp"));
        Path dir = sessionTmp.resolve("d");
        Path parked = sessionTmp.resolve("d-real");
        Limits limits = Limits.detect(Limits.DEFAULT_PIDS, Limits.DEFAULT_MEMORY, Limits.DEFAULT_MAX_FILE, 16);
        long seconds = Long.getLong("tmpcap.race.seconds", 20);
        Swapper swapper = Swapper.start(List.of(new Swapper.Swap(dir, parked, secretDir)), () -> {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.exists(parked, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir);
            }
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                    && !Files.exists(dir.resolve("id_rsa"), LinkOption.NOFOLLOW_LINKS)) {
                // over the 16-byte cap, and named like the secrets so a delete through the link would hit them
                Files.writeString(dir.resolve("id_rsa"), "agent filler over the cap\n");
                Files.writeString(dir.resolve("known_hosts"), "agent filler over the cap\n");
            }
        });
        long cleanUps = 0;
        long emptied = 0;
        long begin = System.nanoTime();
        long end = begin + seconds * 1_000_000_000L;
        try {
            while (System.nanoTime() < end && Files.exists(key) && Files.exists(hosts)) {
                if (!Files.exists(parked, LinkOption.NOFOLLOW_LINKS) && !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                    Thread.onSpinWait(); // emptied: let the swapper fill it again
                    continue;
                }
                long found = limits.enforceTmp(sessionTmp);
                if (found >= 0) {
                    emptied++;
                }
                cleanUps++;
            }
        } finally {
            swapper.close();
        }
        assertTrue(Files.exists(key), "the temp-cap clean-up deleted ~/.ssh/id_rsa after " + cleanUps
                + " clean-ups and " + swapper.swaps() + " swaps");
        assertTrue(Files.exists(hosts), "the temp-cap clean-up deleted ~/.ssh/known_hosts after " + cleanUps
                + " clean-ups and " + swapper.swaps() + " swaps");
        assertEquals("HOST-SECRET-KEY\n", Files.readString(key));
        try (var s = Files.list(secretDir)) {
            assertEquals(2, s.count(), "something was added to or removed from the secret directory");
        }
        assertTrue(cleanUps > 1000, "too few clean-ups to call it a race: " + cleanUps);
        assertTrue(swapper.swaps() > 1000, "too few swaps to call it a race: " + swapper.swaps());
        assertTrue(emptied > 100, "the temp dir was hardly ever over the cap and emptied: " + emptied);
        System.out.printf("temp-cap race: %d s, %d clean-ups (%d emptied), %d swaps%n",
                (System.nanoTime() - begin) / 1_000_000_000L, cleanUps, emptied, swapper.swaps());
    }
}
