package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import dev.monoagent.sandbox.Swapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Glob and Grep walk the workspace on the host while a second call's sandboxed process keeps swapping a
 * workspace directory for a symlink to a host secret directory (outside every readable root). The swapper is a host
 * thread doing what a sandboxed command can do to its workspace (rename, symlink, rename back), only faster. Over the
 * whole race no search result names or quotes a file of the secret directory, while the decoy in the real directory
 * is found (so the walks really met the swapped tree). {@code -Dsearch.race.seconds=N} changes the 20 s default.
 */
class SearchRaceTest {
    @TempDir
    Path tmp;

    @Test
    void aSwapperRacingGlobAndGrepNeverGetsAHostSecretIntoAResult() throws Exception {
        Path secretDir = Files.createDirectories(tmp.resolve("home/.ssh"));
        Files.writeString(secretDir.resolve("id_rsa"), "HOST-SECRET-KEY\n");
        Files.writeString(secretDir.resolve("known_hosts"), "HOST-SECRET-HOSTS\n");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path dir = Files.createDirectories(ws.resolve("d"));
        Files.writeString(dir.resolve("decoy.txt"), "AGENT-DECOY SECRET\n");
        Files.writeString(ws.resolve("top.txt"), "AGENT-TOP SECRET\n");
        Path parked = ws.resolve("d-real");
        long seconds = Long.getLong("search.race.seconds", 20);
        Swapper swapper = Swapper.start(List.of(new Swapper.Swap(dir, parked, secretDir)), () -> { });
        long searches = 0;
        long decoysSeen = 0;
        String[] calls = {
            json("pattern", "SECRET", "output_mode", "content"),
            json("pattern", "SECRET"),
            json("pattern", "SECRET", "output_mode", "count"),
            json("pattern", "SECRET", "path", "d", "output_mode", "content"),
        };
        long begin = System.nanoTime();
        long end = begin + seconds * 1_000_000_000L;
        try (Fixture fx = new Fixture(ws, SandboxPort.UNAVAILABLE)) {
            while (System.nanoTime() < end) {
                for (int i = 0; i < calls.length + 1; i++) {
                    ToolResult r = i < calls.length ? fx.call("Grep", calls[i]) : fx.call("Glob", json("pattern", "*"));
                    String t = r.text();
                    if (t.contains("HOST-SECRET") || t.contains("id_rsa") || t.contains("known_hosts")) {
                        fail("search " + searches + " (after " + swapper.swaps() + " swaps) returned a host secret: "
                                + (i < calls.length ? calls[i] : "Glob *") + "\n" + t);
                    }
                    if (t.contains("decoy")) {
                        decoysSeen++;
                    }
                    searches++;
                }
            }
        } finally {
            swapper.close();
        }
        assertTrue(searches > 100, "too few searches to call it a race: " + searches);
        assertTrue(swapper.swaps() > 1000, "too few swaps to call it a race: " + swapper.swaps());
        assertTrue(decoysSeen > 0, "the decoy was never found: the searches never walked the real directory");
        System.out.printf("search race: %d s, %d searches, %d swaps, decoy found %d times%n",
                (System.nanoTime() - begin) / 1_000_000_000L, searches, swapper.swaps(), decoysSeen);
    }
}
