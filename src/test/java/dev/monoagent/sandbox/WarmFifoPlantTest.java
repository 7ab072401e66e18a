package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Red team 3 (attack on 22700bf): a command may write in the directory where the warm shell makes its commands' output
 * FIFOs (it is the same user). With sequential names it planted regular files at the next 3000 of them, and every later
 * command of the run failed to start ("cannot start command: not a FIFO", then "no output FIFOs") on the same shell,
 * which was never replaced. Names are random now, and pipes that cannot be set up are a doubt: that command runs on a
 * fresh per-command sandbox and the run gets a new shell.
 */
class WarmFifoPlantTest {
    @TempDir
    Path tmp;

    @Test
    void tamperingWithThePipeDirectoryCostsTheShellNotTheCommands() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            // which shell ran a command: a file in the sandbox's private /tmp lasts as long as its shell (a pid
            // namespace's inode number does not tell: a freed one is given out again at once, and this flaked)
            var plant = TestEngine.bash(sb, ws, "echo plant > /tmp/mono-agent-shell-mark; echo marked; "
                    + "d=$(ls -d /dev/shm/.mono-agent-warm-* "
                    + "| grep -v tpl); for i in $(seq 1 100); do rm -f $d/o$i $d/e$i; : > $d/o$i; : > $d/e$i; done; "
                    + "for f in $d/*; do rm -f $f; : > $f; done; echo planted", run, "plant", Duration.ofSeconds(60));
            assertEquals(0, plant.exitCode(), plant.stderr());
            assertEquals("marked\nplanted\n", plant.stdout());
            String mark = "cat /tmp/mono-agent-shell-mark 2>/dev/null || echo none; ";
            String last = null;
            for (int i = 0; i < 6; i++) {
                var r = TestEngine.bash(sb, ws, mark + "echo $$ > /tmp/mono-agent-shell-mark; echo hello", run,
                        "c" + i, Duration.ofSeconds(30));
                assertEquals(0, r.exitCode(), "command " + i + " after the plant: " + r.stderr());
                assertEquals("hello", r.stdout().lines().skip(1).findFirst().orElse(""), r.stdout());
                last = r.stdout().lines().findFirst().orElseThrow();
                assertNotEquals("plant", last, "command " + i + " ran in the tampered shell: it was not replaced");
            }
            assertNotEquals("none", last, "the new shell is warm again (its commands share one sandbox)");
        }
    }

    /**
     * Red team 4: the names are random but listable, and a pair shares its random part: a command hard-linked each
     * later stderr FIFO over its stdout path; both names then were one FIFO, which passed the per-path check, and the
     * next commands ran with stdout and stderr on one pipe. A pool entry must be one FIFO under one name, and a pair
     * two FIFOs.
     */
    @Test
    void laterCommandsKeepTheirOwnStdoutAndStderr() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            var plant = TestEngine.bash(sb, ws, "d=$(ls -d /dev/shm/.mono-agent-warm-* | grep -v tpl); n=0; "
                    + "for f in $d/o*; do b=${f##*/o}; [ -p $d/e$b ] && ln -f $d/e$b $f && n=$((n+1)); done; "
                    + "echo linked $n", run, "plant", Duration.ofSeconds(60));
            assertTrue(plant.stdout().matches("linked [1-9][0-9]*\n"), plant.stdout() + plant.stderr());
            for (int i = 0; i < 4; i++) {
                var r = TestEngine.bash(sb, ws, "for j in $(seq 1 200); do echo OUT$j; echo ERR$j >&2; done", run,
                        "c" + i, Duration.ofSeconds(30));
                assertEquals(0, r.exitCode(), r.stderr());
                assertEquals(200, r.stdout().lines().filter(l -> l.startsWith("OUT")).count(), "command " + i);
                assertEquals(200, r.stderr().lines().filter(l -> l.startsWith("ERR")).count(), "command " + i);
                assertEquals(0, r.stdout().lines().filter(l -> l.startsWith("ERR")).count(), "command " + i);
                assertEquals(0, r.stderr().lines().filter(l -> l.startsWith("OUT")).count(), "command " + i);
            }
        }
    }
}
