package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two commands of one run at a time: one gets the run's warm shell, the other a per-command sandbox (the shell is
 * busy), so per-command sandboxes are wrapped and started while warm commands end and move their placeholders into
 * the stash — a race that shows as "bwrap: Can't find source path .git". Every command must run and be refused
 * the protected file, and once both are done no placeholder is left in the workspace.
 */
class WarmColdInterleaveTest {
    @TempDir
    Path tmp;

    private static final int EACH = 20;

    @Test
    void perCommandSandboxesStartedWhileWarmCommandsEndAllRunAndLeaveNothing() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            String run = "run-" + UUID.randomUUID();
            TestEngine.bash(sb, ws, "true", run, "warm-up", Duration.ofSeconds(30));
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<List<String>>> sides = new ArrayList<>();
            for (String side : List.of("a", "b")) {
                sides.add(CompletableFuture.supplyAsync(() -> {
                    List<String> problems = new ArrayList<>();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    for (int i = 0; i < EACH; i++) {
                        String id = side + i;
                        // a command that lasts a few ms, so the two sides' starts and ends interleave
                        ExecOutcome.Completed r = TestEngine.bash(sb, ws, "echo pwned >> .env 2>/dev/null; "
                                + "mkdir -p .git/hooks 2>/dev/null; : > .bashrc 2>/dev/null; sleep 0.0" + (i % 5)
                                + "; echo " + id, run, "call-" + id, Duration.ofSeconds(60));
                        if (r.exitCode() != 0 || !r.stdout().equals(id + "\n")) {
                            problems.add(id + ": exit " + r.exitCode() + ", out '" + r.stdout() + "', err '"
                                    + r.stderr().strip() + "'");
                        }
                    }
                    return problems;
                }));
            }
            go.countDown();
            List<String> problems = new ArrayList<>();
            for (var s : sides) {
                problems.addAll(s.get(300, TimeUnit.SECONDS));
            }
            assertTrue(problems.isEmpty(), "commands that did not run as written: " + problems);
            assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")), "the protected file was written");
            // nothing is left of either kind's placeholders (an empty .git, .bashrc, .vscode, .env.local, ...)
            assertEquals(List.of(".env", "README.md"), names(ws), "left in the workspace");
        }
    }

    /**
     * The first two commands of a run at once: both found no shell for the run and each started one; the second to
     * be ready replaced the first in the run's slot and closed it while it ran the other command, which was killed
     * (exit 137, "closed"). A run has one shell start at a time now; the other command goes to a per-command sandbox.
     */
    @Test
    void twoFirstCommandsOfARunAtOnceBothRunToTheirEnd() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String run = "run-" + i + "-" + UUID.randomUUID();
                List<CompletableFuture<ExecOutcome.Completed>> both = new ArrayList<>();
                for (String side : List.of("a", "b")) {
                    both.add(CompletableFuture.supplyAsync(() -> TestEngine.bash(sb, ws, "sleep 0.6; echo " + side,
                            run, "call-" + side, Duration.ofSeconds(60))));
                }
                for (int k = 0; k < 2; k++) {
                    ExecOutcome.Completed r = both.get(k).get(120, TimeUnit.SECONDS);
                    String want = (k == 0 ? "a" : "b") + "\n";
                    if (r.exitCode() != 0 || !r.stdout().equals(want)) {
                        problems.add(i + "/" + k + ": exit " + r.exitCode() + ", out '" + r.stdout() + "', err '"
                                + r.stderr().strip() + "'");
                    }
                }
            }
            assertTrue(problems.isEmpty(), "commands that did not run to their end: " + problems);
        }
    }

    private static List<String> names(Path ws) throws Exception {
        try (Stream<Path> s = Files.list(ws)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".mono-agent")).sorted().toList();
        }
    }
}
