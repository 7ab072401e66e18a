package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host's own check after a warm command (WarmShell.verifySwept), which does not trust the server's sweep: the
 * sandbox's processes must be the very ones present when the shell became ready, each known by its
 * {@code /proc/<pid>/stat} held open since then.
 */
class WarmHostCheckTest {
    @TempDir
    Path tmp;

    /** What the check rests on: a held stat reads while its process exists, and not once it was reaped. */
    @Test
    void aHeldStatReadsOnlyWhileItsProcessExists() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        try (RandomAccessFile held = WarmShell.heldStat(p.pid())) {
            byte[] buf = new byte[64];
            assertTrue(WarmShell.lives(held, buf), "a live process's stat reads");
            assertTrue(WarmShell.lives(held, buf), "and reads again from the start");
            p.destroyForcibly();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
            assertFalse(WarmShell.lives(held, buf), "a reaped process's held stat does not read (ESRCH)");
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * A process in the shell's control group that the server cannot see (a host process here; a server that lied
     * about its sweep would look the same): the host's check finds it, kills it, and the shell is not used again.
     * Fails when the check passes every process of the group.
     */
    @Test
    void aProcessTheServersSweepDidNotEndIsFoundKilledAndTheShellReplaced() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            NativeEngine ne = sb.engine();
            assumeTrue(ne.limits().kind() != Limits.Kind.RLIMITS,
                    "needs a control group (with rlimits the sandbox is the server's process tree)");
            String run = "run-" + UUID.randomUUID();
            var first = TestEngine.bash(sb, ws, "readlink /proc/self/ns/pid", run, "a", Duration.ofSeconds(60));
            assertEquals(0, first.exitCode(), first.stderr());
            WarmShell shell = ne.warmShell(run);
            assertNotNull(shell, "the run's warm shell");
            CompletableFuture<ExecOutcome.Completed> second = CompletableFuture.supplyAsync(() ->
                    TestEngine.bash(sb, ws, "sleep 2", run, "b", Duration.ofSeconds(60)));
            Thread.sleep(500);
            Process intruder = new ProcessBuilder(shell.slot().wrap(Path.of("/bin/bash"), List.of("sleep", "60")))
                    .start();
            try {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!shell.slot().members().contains(intruder.pid()) && System.nanoTime() < until) {
                    Thread.sleep(20);
                }
                assertTrue(shell.slot().members().contains(intruder.pid()), "the intruder entered the group");
                var r = second.get(60, TimeUnit.SECONDS);
                assertTrue(r.violations().stream().anyMatch(v -> v.reason() != null
                                && v.reason().contains("1 process(es) were still in the sandbox after the warm shell's sweep")),
                        "the host's check names what it found: " + r.violations() + " / " + r.stderr());
                assertTrue(intruder.waitFor(10, TimeUnit.SECONDS), "the intruder was killed");
                var third = TestEngine.bash(sb, ws, "readlink /proc/self/ns/pid", run, "c", Duration.ofSeconds(60));
                assertEquals(0, third.exitCode(), third.stderr());
                assertNotNull(shell.broken(), "the shell was doubted");
                assertTrue(ne.warmShell(run) != shell, "the doubted shell is not used again");
            } finally {
                intruder.destroyForcibly();
            }
        }
    }
}
