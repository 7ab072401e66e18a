package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * The warm server opens a command's pipes (pipe(2), ADR 0021) before the start frame: opened through
 * /proc/<helper>/fd only after the helper reported the command exec'ed, a failure there would kill a command already
 * running ("the command was killed and its output may be
 * incomplete", exit 137) instead of the pre-start doubt that sends it to a fresh per-command sandbox, once.
 *
 * <p>A command could cause that failure for the NEXT command: it is the same kuid as the server, so it may lower the
 * server's RLIMIT_NOFILE (prlimit needs no capability for a process of the same uid/gid). With the soft limit at the
 * server's highest descriptor, the command's own sweep still works (one descriptor at a time), but opening the next
 * command's two pipes fails. The next command — an innocent call — would be exec'ed, then SIGKILLed, reported 137 with
 * the doubt on it, and not re-run; a fast command's side effect could already have happened (touch ran in 1 of 5
 * tries). The pipes are opened when the helper forks the next command's process, while no command exists: the server's
 * failure then ends the shell between commands, and the next command runs on a new one, once and whole.
 */
class WarmPipeOpenAfterStartTest {
    @TempDir
    Path tmp;

    /** Lowers the warm server's soft RLIMIT_NOFILE to its highest descriptor number, as measured while this runs. */
    static final String LOWER = "n=monoAgentWarm; n=${n}Shell; "
            + "for p in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $p/cmdline 2>/dev/null); "
            + "case \"$c\" in *node*\"$n\"*) srv=$p;; esac; done; "
            + "q=$(awk '/^NSpid/{print $NF}' $srv/status); max=$(ls $srv/fd | sort -n | tail -1); "
            + "prlimit --pid $q --nofile=$max: && echo lowered";

    @Test
    void aCommandCannotMakeTheNextOneStartAndBeKilled() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            var up = TestEngine.bash(sb, ws, "echo up", run, "up", Duration.ofSeconds(30));
            assertEquals("up\n", up.stdout(), up.stderr());
            var lower = TestEngine.bash(sb, ws, LOWER, run, "lower", Duration.ofSeconds(30));
            assertEquals("lowered\n", lower.stdout(), lower.stderr());
            assertEquals(0, lower.exitCode(), "the lowering command itself completes normally: " + lower.stderr());
            // an innocent next call of the run
            ExecOutcome o = sb.exec(new CommandSpec(List.of("/bin/bash", "-c", "echo ran >> ran.txt; echo hello"), ws,
                    Duration.ofSeconds(30), null, Map.of(), run, "next", "Bash", 1 << 20));
            var next = assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
            String ran = Files.exists(ws.resolve("ran.txt")) ? Files.readString(ws.resolve("ran.txt")) : "";
            assertEquals(0, next.exitCode(), "the next command was started, then killed (ran.txt: [" + ran + "]): "
                    + next.stderr() + " violations " + next.violations());
            assertEquals("hello\n", next.stdout());
            assertEquals("ran\n", ran, "it ran exactly once");
            assertTrue(next.violations().stream().noneMatch(v -> String.valueOf(v.reason()).contains("warm shell")),
                    "a doubt caused by the previous command is attributed to this one: " + next.violations());
        }
    }
}
