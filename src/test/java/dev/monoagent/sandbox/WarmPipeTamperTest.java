package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm command's stdout and stderr are pipes the Perl helper makes with pipe(2) when it forks the command's process:
 * they have no name (ADR 0021). As FIFOs in a directory of the sandbox's /dev/shm, a command (the same user) could
 * reach later commands' pipes: plant regular files at the next names (every later command fails to start), or
 * hard-link a later stderr FIFO over its stdout name (later commands run with both streams on one pipe). Both attacks
 * are repeated here and change nothing; a command also tries the one
 * way left to a pipe without a name, the helper's and the server's descriptors under /proc.
 */
class WarmPipeTamperTest {
    @TempDir
    Path tmp;

    @Test
    void tamperingWithTheShellsDirectoryChangesNothingForLaterCommands() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            // which shell ran a command: a file in the sandbox's private /tmp lasts as long as its shell
            var plant = TestEngine.bash(sb, ws, "echo plant > /tmp/mono-agent-shell-mark; "
                    + "n=0; for d in /dev/shm/.mono-agent-warm-*; do case $d in *tpl*) continue;; esac; "
                    + "for f in $d/*; do rm -f $f; : > $f; done; "
                    + "for i in $(seq 1 100); do : > $d/o$i; mkfifo $d/e$i; ln -sf /dev/null $d/i$i; "
                    + "ln -f $d/o$i $d/x$i; n=$((n+1)); done; done; echo planted $n", run, "plant",
                    Duration.ofSeconds(60));
            assertEquals(0, plant.exitCode(), plant.stderr());
            assertEquals("planted 100\n", plant.stdout(), "the shell's directory was found and filled");
            for (int i = 0; i < 6; i++) {
                var r = TestEngine.bash(sb, ws, "cat /tmp/mono-agent-shell-mark; echo hello; echo oops >&2", run,
                        "c" + i, Duration.ofSeconds(30));
                assertEquals(0, r.exitCode(), "command " + i + " after the plant: " + r.stderr());
                assertEquals("plant\nhello\n", r.stdout(), "command " + i + " ran on the same shell, its stdout its own");
                assertEquals("oops\n", r.stderr(), "command " + i);
            }
            // a command's stdin is a file in that directory, under a random name made then
            ExecOutcome o = sb.exec(new CommandSpec(List.of("/bin/bash", "-c", "cat /tmp/mono-agent-shell-mark; cat"),
                    ws, Duration.ofSeconds(30), "from stdin\n", Map.of(), run, "stdin", "Bash", 1 << 20));
            var c = assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
            assertEquals(0, c.exitCode(), c.stderr());
            assertEquals("plant\nfrom stdin\n", c.stdout());
        }
    }

    @Test
    void aCommandCannotOpenTheHelpersOrTheServersPipesAndLaterStreamsStayApart() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            // the helper (perl, its script names O_NOFOLLOW) and the server (node, monoAgentWarmShell): every
            // descriptor number, opened for reading and for writing through /proc/<pid>/fd
            // (the names are put together at run time: this script's own cmdline must not match; the server's holds the
            // helper's script, so it is told apart first)
            String attack = "n=monoAgentWarm; n=${n}Shell; h=O_NO; h=${h}FOLLOW; "
                    + "for p in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $p/cmdline 2>/dev/null); "
                    + "case \"$c\" in *node*\"$n\"*) w=server;; *perl*\"$h\"*) w=helper;; *) continue;; esac; "
                    + "echo found $w; for fd in $(seq 0 40); do "
                    + "(exec 3<$p/fd/$fd) 2>/dev/null && echo READ $w $fd; "
                    + "(exec 3>$p/fd/$fd) 2>/dev/null && echo WROTE $w $fd; done; done; echo done";
            var r = TestEngine.bash(sb, ws, attack, run, "attack", Duration.ofSeconds(60));
            assertEquals(0, r.exitCode(), r.stderr());
            assertTrue(r.stdout().contains("found helper\n") && r.stdout().contains("found server\n"), r.stdout());
            assertTrue(r.stdout().endsWith("done\n"), r.stdout());
            assertFalse(r.stdout().contains("READ") || r.stdout().contains("WROTE"), r.stdout());
            for (int i = 0; i < 4; i++) {
                var c = TestEngine.bash(sb, ws, "for j in $(seq 1 200); do echo OUT$j; echo ERR$j >&2; done", run,
                        "c" + i, Duration.ofSeconds(30));
                assertEquals(0, c.exitCode(), c.stderr());
                assertEquals(200, c.stdout().lines().filter(l -> l.startsWith("OUT")).count(), "command " + i);
                assertEquals(200, c.stderr().lines().filter(l -> l.startsWith("ERR")).count(), "command " + i);
                assertEquals(0, c.stdout().lines().filter(l -> l.startsWith("ERR")).count(), "command " + i);
                assertEquals(0, c.stderr().lines().filter(l -> l.startsWith("OUT")).count(), "command " + i);
            }
        }
    }
}
