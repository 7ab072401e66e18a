package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm shell against the real srt + bubblewrap: a run's Bash/Exec commands go to one warm shell (proved by the
 * commands sharing the shell's pid namespace), nothing a command starts survives into the next command, violations
 * stay with the call that caused them, and a command cannot forge the shell's replies or reach its channel.
 */
class WarmShellTest {
    @TempDir
    static Path tmp;
    static Sandbox sb;
    static Path ws;
    static TestEngine.Events events;

    static TestEngine.Warm warm;

    @BeforeAll
    static void open() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        events = new TestEngine.Events();
        warm = TestEngine.openWarm(ws, events);
        sb = warm.sandbox();
    }

    @AfterAll
    static void close() {
        if (warm != null) {
            warm.close();
        }
    }

    private static ExecOutcome.Completed bash(String run, String call, String cmd) {
        return TestEngine.bash(sb, ws, cmd, run, call, Duration.ofSeconds(60));
    }

    @Test
    void aRunsCommandsShareOneWarmShell() {
        String run = "run-" + UUID.randomUUID();
        var a = bash(run, "a", "readlink /proc/self/ns/pid");
        var b = bash(run, "b", "readlink /proc/self/ns/pid");
        assertEquals(0, a.exitCode(), a.stderr());
        assertEquals(a.stdout(), b.stdout(), "two commands of one run in one sandbox (the warm shell's); "
                + "b: exit " + b.exitCode() + ", stderr [" + b.stderr() + "]");
        var other = bash("run-" + UUID.randomUUID(), "c", "readlink /proc/self/ns/pid");
        assertNotEquals(a.stdout(), other.stdout(), "another run gets its own shell");
        assertTrue(sb.status().lines().stream().anyMatch(l -> l.startsWith("Warm shell: on")),
                sb.status().lines().toString());
    }

    /**
     * The helper that forks each command keeps to one CPU (warm-shell.js: its forks are cheaper so); the command itself
     * runs on every CPU the host process may use. Fails with the affinity left as the helper's (one CPU of two here).
     */
    @Test
    void aCommandRunsOnEveryCpuTheHostMayUse() throws Exception {
        String host = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow();
        String run = "run-" + UUID.randomUUID();
        var first = bash(run, "a", "grep '^Cpus_allowed_list:' /proc/self/status; readlink /proc/self/ns/pid");
        var second = bash(run, "b", "grep '^Cpus_allowed_list:' /proc/self/status; readlink /proc/self/ns/pid");
        assertEquals(0, first.exitCode(), first.stderr());
        assertEquals(first.stdout().lines().skip(1).toList(), second.stdout().lines().skip(1).toList(),
                "both on the run's warm shell");
        assertEquals(host, first.stdout().lines().findFirst().orElse(""), "the first command's CPUs");
        assertEquals(host, second.stdout().lines().findFirst().orElse(""), "a forked-ahead command's CPUs");
    }

    /**
     * A command is the same user as the warm shell's helper, so it can lower the helper's priority and limits (it holds
     * no capability to raise them back), which every later command forked from it would inherit. The
     * helper compares its own before each fork and ends on a change: the next command runs with what the first had.
     */
    @Test
    void aCommandThatLowersTheHelpersPriorityOrLimitsDoesNotPassThemOn() {
        String run = "run-" + UUID.randomUUID();
        String own = "echo nice=$(cut -d' ' -f19 /proc/self/stat) files=$(ulimit -n) fsize=$(ulimit -f) "
                + "sched=$(chrt -p $$ | head -1 | sed 's/.*: //') io=$(ionice -p $$) oom=$(cat /proc/self/oom_score_adj)";
        var before = bash(run, "a", own);
        assertEquals(0, before.exitCode(), before.stderr());
        // the helper is the sandbox's one perl process; renice and friends take its pid in this pid namespace
        var tamper = bash(run, "b", "h=; for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = perl ] && "
                + "h=$(awk '/^NSpid/{print $NF}' $p/status); done; [ -n \"$h\" ] || exit 3; "
                + "renice -n 7 -p $h >/dev/null && prlimit --pid $h --nofile=200:200 --fsize=1000:1000 && "
                + "chrt -i -p 0 $h && ionice -c 3 -p $h && echo 900 > /proc/$h/oom_score_adj && echo changed");
        assertEquals("changed\n", tamper.stdout(), tamper.stderr());
        var after = bash(run, "c", own);
        assertEquals(0, after.exitCode(), after.stderr());
        assertEquals(before.stdout(), after.stdout(), "the next command's priority and limits");
        var later = bash(run, "d", own);
        assertEquals(before.stdout(), later.stdout(), "a later command's, on the run's new shell");
    }

    @Test
    void eachCommandGetsItsOwnCwdEnvStdinAndExitCode() throws Exception {
        String run = "run-" + UUID.randomUUID();
        Path sub = Files.createDirectories(ws.resolve("sub"));
        ExecOutcome o = sb.exec(new CommandSpec(List.of("/bin/bash", "-c", "pwd; echo \"$FOO\"; cat; echo err >&2; "
                + "exit 7"), sub, Duration.ofSeconds(30), "from-stdin\n", Map.of("FOO", "bar"), run, "x", "Bash",
                1 << 20));
        var c = (ExecOutcome.Completed) o;
        assertEquals(sub + "\nbar\nfrom-stdin\n", c.stdout());
        assertEquals("err\n", c.stderr());
        assertEquals(7, c.exitCode());
        var next = bash(run, "y", "pwd; echo \"[$FOO]\"; echo $HTTP_PROXY | cut -c1-7");
        assertEquals(ws + "\n[]\nhttp://\n", next.stdout(), "no cwd or env carried over; srt's proxy env is there");
    }

    @Test
    void everyCommandReadsAllOfItsStdin() {
        // the helper once read its requests through Perl's buffered STDIN: Perl flushes it before exec by seeking the
        // descriptor back, which by then was the command's stdin file — 1 command in 7 read nothing
        String run = "run-" + UUID.randomUUID();
        for (int i = 0; i < 40; i++) {
            var c = (ExecOutcome.Completed) sb.exec(new CommandSpec(List.of("/bin/bash", "-c", "cat"), ws,
                    Duration.ofSeconds(30), "line " + i + "\n", Map.of(), run, "s" + i, "Bash", 1 << 20));
            assertEquals("line " + i + "\n", c.stdout(), "command " + i + " (stderr: " + c.stderr() + ")");
        }
    }

    @Test
    void eachCommandHasASessionAndUserNamespaceOfItsOwnAndBlockingPipes() {
        String run = "run-" + UUID.randomUUID();
        // the helper forks each command, then setsid + unshare(CLONE_NEWUSER) before the exec: a session led by the
        // command itself, a user namespace of its own holding no capability over the helper (the server's namespace),
        // and stdout/stderr in blocking mode (a FIFO end opened non-blocking, then switched back)
        String probe = "read -r l < /proc/self/stat; set -- ${l##*) }; echo \"sid=$4\"; echo \"pgid=$3\"; echo \"pid=${l%% *}\"; "
                + "echo \"ns=$(readlink /proc/self/ns/user)\"; echo \"parent=$(readlink /proc/$2/ns/user)\"; perl -MFcntl -e 'print((fcntl(STDOUT, F_GETFL, 0) & "
                + "O_NONBLOCK) ? \"out=nonblock\\n\" : \"out=block\\n\"); print STDERR ((fcntl(STDERR, F_GETFL, 0) & "
                + "O_NONBLOCK) ? \"err=nonblock\\n\" : \"err=block\\n\")'";
        var a = bash(run, "a", probe);
        var b = bash(run, "b", probe);
        assertEquals(0, a.exitCode(), a.stderr());
        assertEquals("err=block\n", a.stderr());
        Map<String, String> x = fields(a.stdout());
        Map<String, String> y = fields(b.stdout());
        assertEquals(x.get("pid"), x.get("sid"), "the command leads a session of its own: " + a.stdout());
        assertEquals(x.get("pid"), x.get("pgid"), a.stdout());
        assertEquals("block", x.get("out"), a.stdout());
        assertTrue(x.get("ns").startsWith("user:["), a.stdout());
        // with a capability in the helper's user namespace (as root of it) the command could read this link
        assertEquals("", x.get("parent"), "no ptrace access to the helper that started it: " + a.stdout());
        // (that the next command's namespace is another one cannot be told from its number: a freed namespace's inode
        // number is given out again at once)
        assertEquals(y.get("sid"), y.get("pid"), b.stdout());
    }

    @Test
    void theNextCommandsProcessIsForkedOnlyOnceThisOneWasSwept() {
        String run = "run-" + UUID.randomUUID();
        // the helper forks a command's process ahead, but only between commands (after the sweep): while a command
        // runs, the helper's only child is that command, so nothing of it can reach the process the next one gets.
        // Builtins only (no child of this shell): every child of our parent, as /proc numbers them
        String probe = "read -r s < /proc/self/stat; set -- ${s##*) }; parent=$2; n=0; "
                + "for d in /proc/[0-9]*; do read -r l < $d/stat 2>/dev/null || continue; set -- ${l##*) }; "
                + "[ \"$2\" = \"$parent\" ] && n=$((n+1)); done; echo \"children=$n\"";
        for (int i = 0; i < 4; i++) {
            var c = bash(run, "c" + i, probe);
            assertEquals(0, c.exitCode(), c.stderr());
            assertEquals("children=1\n", c.stdout(), "command " + i + ": the helper had another child while it ran");
        }
    }

    private static Map<String, String> fields(String out) {
        Map<String, String> m = new java.util.HashMap<>();
        for (String l : out.split("\n")) {
            int eq = l.indexOf('=');
            if (eq > 0) {
                m.put(l.substring(0, eq), l.substring(eq + 1));
            }
        }
        return m;
    }

    @Test
    void aCommandThatCannotStartSaysWhyAndTheShellGoesOn() throws Exception {
        String run = "run-" + UUID.randomUUID();
        var warm = bash(run, "w", "readlink /proc/self/ns/pid");
        var missing = (ExecOutcome.Completed) sb.exec(new CommandSpec(List.of("/no/such/tool", "x"), ws,
                Duration.ofSeconds(30), null, Map.of(), run, "m", "Exec", 1 << 20));
        assertEquals(127, missing.exitCode(), missing.stderr());
        assertTrue(missing.stderr().contains("/no/such/tool: No such file or directory"), missing.stderr());
        Path gone = Files.createDirectories(ws.resolve("gone-" + UUID.randomUUID()));
        Files.delete(gone);
        var noCwd = (ExecOutcome.Completed) sb.exec(new CommandSpec(List.of("/bin/true"), gone,
                Duration.ofSeconds(30), null, Map.of(), run, "c", "Exec", 1 << 20));
        assertEquals(127, noCwd.exitCode(), noCwd.stderr());
        assertTrue(noCwd.stderr().contains(gone + ": No such file or directory"), noCwd.stderr());
        var after = bash(run, "after", "readlink /proc/self/ns/pid");
        assertEquals(warm.stdout(), after.stdout(), "the same warm shell runs on: " + after.stderr());
    }

    @Test
    void stdoutAndStderrArePipesThatCanBeReopened() {
        var r = bash("run-" + UUID.randomUUID(), "p", "echo out > /dev/stdout; echo err > /proc/self/fd/2; "
                + "stat -L -c %F /dev/stdout");
        assertEquals("out\nfifo\n", r.stdout(), r.stderr());
        assertEquals("err\n", r.stderr());
    }

    @Test
    void nothingACommandStartedIsAliveWhenTheNextOneStarts() throws Exception {
        String run = "run-" + UUID.randomUUID();
        String tag = "10" + (System.nanoTime() % 90000 + 10000);
        var first = bash(run, "bg", "sleep " + tag + "1 & "
                + "setsid sleep " + tag + "2 </dev/null >/dev/null 2>&1 & "
                + "nohup sleep " + tag + "3 >/dev/null 2>&1 & "
                + "( ( sleep " + tag + "4 </dev/null >/dev/null 2>&1 & ) & ) ; "
                + "bash -c 'trap \"\" TERM HUP INT; exec sleep " + tag + "5' </dev/null >/dev/null 2>&1 & "
                + "perl -e '$SIG{TERM}=\"IGNORE\"; fork and exit; sleep " + tag + "6' </dev/null >/dev/null 2>&1; "
                + "sleep 0.2; echo started");
        assertTrue(first.stdout().contains("started"), first.stdout() + first.stderr());
        // the server's own sweep ended them: the command kept its exit code and the shell was not replaced (its kill()
        // takes the pid numbers of apply-seccomp's inner pid namespace, not /proc's outer ones; with those it would
        // fail, and the shell would be killed from outside with the call reported as 137)
        assertEquals(0, first.exitCode(), first.stderr());
        // not the host's check after it (WarmShell.verifySwept, which would kill them too and then replace the shell)
        assertTrue(first.violations().stream().noneMatch(v -> v.reason() != null
                && v.reason().contains("warm shell was stopped")), first.violations().toString());
        // inside: the next command of the same run sees none of them
        var next = bash(run, "look", "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done");
        assertFalse(next.stdout().contains(tag), "a process of the previous command is alive:\n" + next.stdout());
        // outside: nor does the host
        List<String> left = ProcessHandle.allProcesses().map(h -> h.info().commandLine().orElse(""))
                .filter(c -> c.contains(tag)).toList();
        assertEquals(List.of(), left, "still alive on the host");
        assertEquals(0, next.exitCode());
    }

    @Test
    void violationsStayWithTheCallThatCausedThem() throws Exception {
        String run = "run-" + UUID.randomUUID();
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        var clean = bash(run, "call-clean", "echo ok > allowed.txt; cat allowed.txt");
        var blocked = bash(run, "call-blocked", "echo pwned >> .env; echo rc=$?");
        assertEquals("ok\n", clean.stdout());
        assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")));
        assertEquals(List.of(), clean.violations(), "the first call did nothing blocked");
        assertTrue(blocked.violations().stream().anyMatch(v -> v.tier() == Violation.Tier.OBSERVED
                && v.target() != null && v.target().endsWith("/.env") && "call-blocked".equals(v.callId())),
                blocked.violations().toString());
        Thread.sleep(300);
        List<Violation> logged = events.all.stream().filter(e -> e instanceof Event.ViolationObserved)
                .map(e -> ((Event.ViolationObserved) e).violation()).filter(v -> run.equals(v.runId())).toList();
        assertFalse(logged.isEmpty());
        assertTrue(logged.stream().allMatch(v -> "call-blocked".equals(v.callId())), logged.toString());
        assertTrue(logged.stream().noneMatch(v -> v.target() != null && v.target().contains("uid_map")), logged.toString());
    }

    @Test
    void aCommandCannotForgeTheShellsRepliesOrReachItsChannel() {
        String run = "run-" + UUID.randomUUID();
        // fake frames on its own stdout are only output; the server's descriptors and memory are out of reach
        String fake = "printf '\\001W d 1 2 " + "0".repeat(64) + "\\n{}\\001W d 2 2 " + "f".repeat(64) + "\\n{}'; "
                + "n=monoAgentWarm; n=${n}Shell; "
                + "for p in /proc/[0-9]*; do if grep -q \"$n\" $p/cmdline 2>/dev/null; then "
                + "echo; echo server ${p#/proc/}; "
                + "for fd in 0 1 2; do (printf 'x' > $p/fd/$fd) 2>/dev/null && echo WROTE-$fd; done; "
                + "(head -c1 $p/mem >/dev/null) 2>/dev/null && echo READ-MEM; "
                + "(cat $p/environ >/dev/null) 2>/dev/null && echo READ-ENV; "
                + "fi; done; exit 3";
        var r = bash(run, "forge", fake);
        assertEquals(3, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("server "), "the server is visible in the sandbox: " + r.stdout());
        assertTrue(r.stdout().startsWith("\u0001W d 1 2 "), "fake frames came back as plain output: " + r.stdout());
        for (String bad : List.of("WROTE-0", "WROTE-1", "WROTE-2", "READ-MEM", "READ-ENV")) {
            assertFalse(r.stdout().contains(bad), bad + ": " + r.stdout());
        }
        var after = bash(run, "after", "echo real");
        assertEquals("real\n", after.stdout(), "the next command's result is its own");
        assertEquals(0, after.exitCode());
    }

    @Test
    void theTimeoutEndsTheCommandAndTheShellGoesOn() {
        String run = "run-" + UUID.randomUUID();
        ExecOutcome o = sb.exec(CommandSpec.bash("echo before; sleep 30", ws).withAttribution(run, "t", "Bash")
                .withTimeout(Duration.ofMillis(700)));
        var c = (ExecOutcome.Completed) o;
        assertTrue(c.timedOut());
        assertEquals("before\n", c.stdout());
        assertTrue(c.elapsedMillis() < 5000, "took " + c.elapsedMillis());
        assertEquals("ok\n", bash(run, "t2", "echo ok").stdout());
    }

    @Test
    void outputIsBoundedPerStream() {
        String run = "run-" + UUID.randomUUID();
        ExecOutcome o = sb.exec(new CommandSpec(List.of("/bin/bash", "-c", "head -c 3000000 /dev/zero; echo tail >&2"),
                ws, Duration.ofSeconds(30), null, Map.of(), run, "big", "Bash", 1 << 20));
        var c = (ExecOutcome.Completed) o;
        assertTrue(c.truncated());
        assertEquals(1 << 20, c.stdout().length());
        assertEquals("tail\n", c.stderr());
    }

    @Test
    void aKilledShellIsReplacedAndNothingRunsOnTheHost() throws Exception {
        String run = "run-" + UUID.randomUUID();
        bash(run, "warm-up", "true");
        var killer = bash(run, "kill", "n=monoAgentWarm; n=${n}Shell; for p in /proc/[0-9]*; do "
                + "grep -q \"$n\" $p/cmdline 2>/dev/null && kill -9 ${p#/proc/}; done; sleep 5; echo survived");
        assertFalse(killer.stdout().contains("survived"), killer.stdout());
        var next = bash(run, "next", "readlink /proc/self/ns/net; echo still-sandboxed");
        assertEquals(0, next.exitCode(), next.stderr());
        assertTrue(next.stdout().contains("still-sandboxed"));
        assertNotEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString(),
                next.stdout().lines().findFirst().orElse(""), "ran in its own network namespace, not the host's");
    }
}
