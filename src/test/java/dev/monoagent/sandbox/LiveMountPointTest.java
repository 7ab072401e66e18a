package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * srt's mount points for absent denied paths ({@code .claude/commands}, {@code .claude/agents}, an empty {@code .git}
 * ...) are on the host while the sandbox that asked for them lives. Every scan of the engine —
 * another call's after-command scan, a long-lived process's checkpoint — must leave them where they are: moving one
 * detaches that sandbox's read-only bind, and the path becomes writable inside it. Nor are they anybody's write, the
 * quarantine is never scanned as new protected files, and a mount point left once nothing sandboxed lives is removed
 * (left, it would make every later wrap fail on it). All with the real srt; the two calls run concurrently
 * through the engine, ordered by marker files (no timing assumptions).
 */
class LiveMountPointTest {
    @TempDir
    Path tmp;

    @Test
    void oneCallsScanLeavesTheMountPointsOfAnotherRunsLiveSandboxInPlace() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // A is wrapped first (no .claude yet: its mount point is the directory .claude), B second (its mount
            // points are the files .claude/commands and .claude/agents inside it); A ends while B still runs
            Future<ExecOutcome.Completed> a = startWaiting(pool, sb, ws);
            Future<ExecOutcome.Completed> b = pool.submit(() -> TestEngine.bash(sb, ws, "touch b-up; "
                    + waitFor("b-go") + "mkdir -p .claude/commands 2>/dev/null; echo PWN-CMD > .claude/commands/x.md "
                    + "2>/dev/null; echo rc=$?; touch b-wrote; " + waitFor("b-end"), "run-b", "call-b",
                    Duration.ofSeconds(60)));
            awaitFile(ws.resolve("b-up"));
            Files.writeString(ws.resolve("a-go"), "");
            ExecOutcome.Completed ra = a.get(60, TimeUnit.SECONDS);
            Files.writeString(ws.resolve("b-go"), "");
            awaitFile(ws.resolve("b-wrote"));
            boolean leaked = Files.exists(ws.resolve(".claude/commands/x.md"));
            Files.writeString(ws.resolve("b-end"), "");
            ExecOutcome.Completed rb = b.get(60, TimeUnit.SECONDS);

            assertFalse(leaked, "B wrote .claude/commands/x.md on the host: A's scan moved B's mount point; B said "
                    + rb.stdout() + ", A recorded " + ra.violations());
            assertTrue(ra.violations().stream().noneMatch(v -> v.target() != null && v.target().contains(".claude")),
                    "A only waited, yet was recorded writing srt's mount points: " + ra.violations());
            assertTrue(rb.stdout().contains("rc=1"), "the write inside B must fail: " + rb.stdout());
            assertNoNestedQuarantine(ws);
            assertFalse(Files.exists(ws.resolve(".claude")), "mount points left after both sandboxes ended");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLongLivedProcessAndCommandsBesideItRecordOnlyWhatWasWrittenAndNeverTheQuarantine() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // a REPL as the engine sees NodeRepl: one long-lived sandboxed process, stopped between evaluations
            StartOutcome.Started so = assertInstanceOf(StartOutcome.Started.class, sb.start(new CommandSpec(
                    List.of("/bin/bash", "-c", "while IFS= read -r l; do eval \"$l\"; echo \"<done>\"; done"), ws,
                    Duration.ofSeconds(120), null, Map.of(), "run-seq", "call-repl", "NodeRepl",
                    CommandSpec.DEFAULT_MAX_OUTPUT)));
            SandboxProcess p = so.process();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.stdout(), StandardCharsets.UTF_8));
            try {
                List<Violation> e1 = eval(p, out, "true", "call-e1");
                ExecOutcome.Completed bash = TestEngine.bash(sb, ws, "echo q > .env.seq", "run-seq", "call-bash",
                        Duration.ofSeconds(60));
                List<Violation> e2 = eval(p, out, "true", "call-e2");
                ExecOutcome.Completed bash2 = TestEngine.bash(sb, ws, "true", "run-seq", "call-bash2",
                        Duration.ofSeconds(60));
                // the REPL tries srt's denied directory itself, after all the scans above
                p.resume();
                send(p, "mkdir -p .claude/commands 2>/dev/null; echo PWN-REPL > .claude/commands/y.md 2>/dev/null "
                        + "&& echo wrote");
                String said = readUntilDone(out);
                boolean leaked = Files.exists(ws.resolve(".claude/commands/y.md"));
                List<Violation> e3 = p.checkpoint("call-e3");

                assertTrue(e1.isEmpty(), "an evaluation that wrote nothing was recorded: " + e1);
                assertEquals(List.of(ws.resolve(".env.seq").toString()), targets(bash.violations(), "call-bash"),
                        "the Bash call wrote .env.seq and nothing else: " + bash.violations());
                assertTrue(e2.isEmpty(), "an evaluation that wrote nothing was recorded (the quarantine?): " + e2);
                assertTrue(bash2.violations().isEmpty(), "a call that wrote nothing was recorded: "
                        + bash2.violations());
                assertFalse(leaked || said.contains("wrote"), "the REPL wrote into .claude/commands on the host: "
                        + said + " " + e3);
                assertNoNestedQuarantine(ws);
            } finally {
                p.destroy();
                p.violations().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void noMountPointOutlivesTheLastSandboxAndTheNextCommandRuns() throws Exception {
        // no .git: srt's mount point for the literal .git/config (and friends) is an empty directory .git, which the
        // prepared wrap's count in srt's counter used to keep on the host after everything ended; every later wrap
        // then failed with bwrap "Can't create file at <ws>/.git/hooks: Read-only file system"
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            for (int round = 0; round < 2; round++) {
                StartOutcome.Started so = assertInstanceOf(StartOutcome.Started.class, sb.start(new CommandSpec(
                        List.of("/bin/bash", "-c", "sleep 60"), ws, Duration.ofSeconds(90), null, Map.of(),
                        "run-mp", "call-repl" + round, "NodeRepl", CommandSpec.DEFAULT_MAX_OUTPUT)));
                ExecOutcome.Completed beside = TestEngine.bash(sb, ws, "echo beside", "run-mp", "call-b" + round,
                        Duration.ofSeconds(60));
                assertEquals("beside\n", beside.stdout(), beside.stderr());
                so.process().destroy();
                List<Violation> atExit = so.process().violations().get(30, TimeUnit.SECONDS);
                assertTrue(atExit.isEmpty(), "a process that wrote nothing was recorded: " + atExit);
                List<String> left = leftovers(ws);
                assertTrue(left.isEmpty(), "round " + round + ": srt mount points left with nothing sandboxed alive: "
                        + left);
                ExecOutcome.Completed next = TestEngine.bash(sb, ws, "echo next", "run-mp", "call-n" + round,
                        Duration.ofSeconds(60));
                assertEquals("next\n", next.stdout(), "the next command did not run: " + next.stderr());
                assertTrue(next.violations().isEmpty(), next.violations().toString());
            }
        }
    }

    @Test
    void aWriteFoundByAnotherCallsScanSaysWhoElseRanAndIsRecordedOnce() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Sandbox sb = TestEngine.openReady(ws)) {
            Future<ExecOutcome.Completed> a = startWaiting(pool, sb, ws);
            // B writes a new .env.* while A runs; A ends first, so A's scan is the one that finds it
            Future<ExecOutcome.Completed> b = pool.submit(() -> TestEngine.bash(sb, ws, "echo B > .env.fromb; "
                    + "touch b-up; " + waitFor("b-end"), "run-b", "call-b", Duration.ofSeconds(60)));
            awaitFile(ws.resolve("b-up"));
            Files.writeString(ws.resolve("a-go"), "");
            ExecOutcome.Completed ra = a.get(60, TimeUnit.SECONDS);
            Files.writeString(ws.resolve("b-end"), "");
            ExecOutcome.Completed rb = b.get(60, TimeUnit.SECONDS);
            String env = ws.resolve(".env.fromb").toString();
            List<Violation> all = new ArrayList<>(ra.violations());
            all.addAll(rb.violations());
            List<Violation> onIt = all.stream().filter(v -> env.equals(v.target())).toList();
            assertEquals(1, onIt.size(), "recorded once: " + all);
            Violation v = onIt.get(0);
            assertTrue("call-b".equals(v.callId()) || v.reason().contains("call-b"),
                    "A only waited: a record on A must name B as who else ran: " + v);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWriteThatLandedIsNeverRecordedAsRefused() throws Exception {
        // the read-only bind over .claude taken away from the host while the command runs (the human's rm -r .claude,
        // what another call's scan used to do): srt's feed still calls the command's write "refused", but it landed
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            Future<ExecOutcome.Completed> c = pool.submit(() -> TestEngine.bash(sb, ws, "touch up; " + waitFor("go")
                    + "mkdir -p .claude/commands; echo PWN > .claude/commands/x.md; echo rc=$?", "run-r", "call-r",
                    Duration.ofSeconds(60)));
            awaitFile(ws.resolve("up"));
            assertTrue(Files.isDirectory(ws.resolve(".claude")), "srt's placeholder for .claude/commands");
            Files.delete(ws.resolve(".claude"));
            Files.writeString(ws.resolve("go"), "");
            ExecOutcome.Completed r = c.get(60, TimeUnit.SECONDS);
            assertTrue(r.stdout().contains("rc=0"), "the write must land for this test to mean anything: "
                    + r.stdout() + r.stderr());
            Path x = ws.resolve(".claude/commands/x.md");
            assertTrue(r.violations().stream().anyMatch(v -> v.tier() == Violation.Tier.DETECTED
                    && x.toString().equals(v.target())), "the written file is recorded: " + r.violations());
            List<Violation> refused = r.violations().stream().filter(v -> v.reason() != null
                    && v.reason().contains("refused") && !v.reason().contains("not refused")).toList();
            assertTrue(refused.isEmpty(), "recorded as refused, but the write happened: " + refused);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Starts call A of run-a, which only waits (until a-go exists); returns once it runs. */
    private static Future<ExecOutcome.Completed> startWaiting(ExecutorService pool, Sandbox sb, Path ws)
            throws InterruptedException {
        Future<ExecOutcome.Completed> a = pool.submit(() -> TestEngine.bash(sb, ws, "touch a-up; " + waitFor("a-go"),
                "run-a", "call-a", Duration.ofSeconds(60)));
        awaitFile(ws.resolve("a-up"));
        return a;
    }

    private static List<String> leftovers(Path ws) throws Exception {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(ws)) {
            s.filter(f -> !List.of("README.md", ".mono-agent").contains(f.getFileName().toString()))
                    .forEach(f -> out.add(f.getFileName().toString()));
        }
        return out;
    }

    private static List<String> targets(List<Violation> vs, String callId) {
        List<String> out = new ArrayList<>();
        for (Violation v : vs) {
            if (v.tier() == Violation.Tier.DETECTED && callId.equals(v.callId())) {
                out.add(v.target());
            }
        }
        return out;
    }

    private static void assertNoNestedQuarantine(Path ws) throws Exception {
        Path q = ws.resolve(".mono-agent/quarantine");
        if (!Files.isDirectory(q)) {
            return;
        }
        try (Stream<Path> s = Files.walk(q)) {
            List<Path> nested = s.filter(f -> q.relativize(f).toString().contains(".mono-agent")).toList();
            assertTrue(nested.isEmpty(), "the quarantine was quarantined: " + nested);
        }
    }

    private static List<Violation> eval(SandboxProcess p, BufferedReader out, String code, String callId)
            throws Exception {
        p.refresh();
        p.resume();
        send(p, code);
        readUntilDone(out);
        return p.checkpoint(callId);
    }

    private static void send(SandboxProcess p, String line) throws Exception {
        p.stdin().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        p.stdin().flush();
    }

    private static String readUntilDone(BufferedReader out) throws Exception {
        StringBuilder said = new StringBuilder();
        for (String l; (l = out.readLine()) != null && !l.equals("<done>"); ) {
            said.append(l).append('\n');
        }
        return said.toString();
    }

    private static String waitFor(String marker) {
        return "while [ ! -e " + marker + " ]; do sleep 0.05; done; ";
    }

    private static void awaitFile(Path f) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(f) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(f), "never appeared: " + f);
    }
}
