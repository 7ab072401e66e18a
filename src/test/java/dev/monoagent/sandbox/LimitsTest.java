package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against the real engine: a fork tree, a memory hog and a huge file are stopped by the per-command
 * limits, and nothing a command started (detached or not) is alive after it returns. Small limits are swapped in so
 * each cap trips in about a second; the mechanism is the one {@link Limits#detect()} picks on this host.
 */
class LimitsTest {
    static final int PIDS = 64;
    static final long MEMORY = 256L << 20;
    static final long MAX_FILE = 16L << 20;
    static final long TMP = 24L << 20;

    @TempDir
    static Path tmp;
    static Sandbox sb;
    static Path ws;

    @BeforeAll
    static void open() throws Exception {
        NativeEngine.limitsFactory = () -> Limits.detect(PIDS, MEMORY, MAX_FILE, TMP);
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        sb = TestEngine.openReady(ws);
    }

    @AfterAll
    static void close() {
        NativeEngine.limitsFactory = Limits::detect;
        if (sb != null) {
            sb.close();
        }
    }

    private static ExecOutcome.Completed bash(String cmd) {
        return TestEngine.bash(sb, ws, cmd, "run-limits", "c-" + System.nanoTime(), Duration.ofSeconds(90));
    }

    @Test
    void aForkTreeIsStoppedAtTheProcessLimit() {
        // perl's fork reports EAGAIN at once (bash retries for ~15 s and then aborts the script)
        var r = bash("perl -e 'for my $i (1..400) { my $p = fork(); if (!defined $p) { print \"fork failed at $i\\n\"; "
                + "exit 0 } if (!$p) { sleep 30; exit 0 } } print \"forked all 400\\n\"'");
        Matcher m = Pattern.compile("fork failed at (\\d+)").matcher(r.stdout());
        assertTrue(m.find(), "no fork was refused: " + r.stdout() + r.stderr());
        assertTrue(Integer.parseInt(m.group(1)) <= PIDS, r.stdout());
    }

    @Test
    void aMemoryHogIsKilled() {
        var r = bash("perl -e '$x = \"a\" x (1024 * 1024 * 1024); print \"held \", length($x), \"\\n\"'; echo exit=$?");
        assertTrue(r.stdout().contains("exit="), r.stdout() + r.stderr());
        assertTrue(!r.stdout().contains("held"), "a 1 GiB string was held under a 256 MiB limit: " + r.stdout());
    }

    @Test
    void aFileLargerThanTheCapIsCut() throws Exception {
        var r = bash("head -c 64M /dev/zero > big.bin; echo exit=$?");
        assertNotEquals("exit=0", r.stdout().strip(), r.stdout() + r.stderr());
        assertTrue(Files.size(ws.resolve("big.bin")) <= MAX_FILE, "file size " + Files.size(ws.resolve("big.bin")));
        Files.delete(ws.resolve("big.bin"));
    }

    @Test
    void theTempDirIsCappedAndWhatHappenedIsRecorded() {
        var r = bash("for i in 1 2 3; do head -c 12M /dev/zero > \"$TMPDIR/f$i\"; done; ls \"$TMPDIR\" | wc -l");
        assertEquals("3", r.stdout().strip(), r.stderr());
        assertTrue(r.violations().stream().anyMatch(v -> v.reason().contains("over its " + TMP + "-byte cap")),
                r.violations().toString());
        assertEquals("0", bash("ls \"$TMPDIR\" | wc -l").stdout().strip(), "emptied after the command");
    }

    @Test
    void nothingTheCommandStartedOutlivesIt() throws Exception {
        String tag = "7" + (System.nanoTime() % 100000);
        bash("(setsid sleep " + tag + " </dev/null >/dev/null 2>&1 &); nohup sleep " + tag + ".5 >/dev/null 2>&1 & "
                + "echo started");
        Thread.sleep(300);
        long left = ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains("sleep " + tag)).count();
        assertEquals(0, left, "processes of the command still alive on the host");
    }

    @Test
    void statusSaysWhichMechanismIsInForce() {
        Limits l = Limits.detect(PIDS, MEMORY, MAX_FILE, TMP);
        String d = l.describe();
        l.close();
        assertTrue(d.startsWith("cgroup v2") || d.startsWith("cgroup v1") || d.startsWith("rlimits"), d);
        assertTrue(d.contains(PIDS + " processes") || d.contains("NOT enforced"), d);
        assertTrue(sb.status().lines().contains("Limits: " + Limits.hostSummary()), sb.status().lines().toString());
    }
}
