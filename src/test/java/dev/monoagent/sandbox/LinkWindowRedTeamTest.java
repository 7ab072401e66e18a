package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attacks on {@link LinkPutBackWindowTest}'s window beyond its plain case; each test asserts the safe outcome. A
 * replaced symlink on the link's way (a hop): the link's text is the same, so unless where it leads is checked no deny
 * is added, and the command writes the human's file once the hop is back (with the test hook and, with a long-lived
 * process, without one). The same window in a long-lived process's end scan, where the link cannot be made again over
 * the new command's placeholder and would be gone for good. The gap between a command's untracking and its end scan,
 * held open by keeping the scan lock busy. Also: a long-lived process started in the window, and the target's
 * directory renamed away.
 */
class LinkWindowRedTeamTest {
    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    private static final String B = "sleep 1.5; (echo PWNED > .env) 2>/dev/null || echo refused; cat %s";

    /**
     * The same two-step window, in the END scan of a long-lived process (the guard leaves those to their end scan).
     * The process is untracked before its scan, so humanLinks() no longer holds its start snapshot, and restoredLinks
     * has nothing yet: B gets no deny.
     */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void endScanWindowOfALongLivedProcess(boolean warm) throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("ll-" + warm));
        Path target = ws.resolve("config/prod.env");
        Path env = ws.resolve(".env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        CompletableFuture<ExecOutcome.Completed> b = new CompletableFuture<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            AtomicBoolean once = LinkPutBackWindowTest.startInWindow(sb, ws, B.formatted("config/prod.env"), b);
            SandboxProcess l = TestEngine.longLived(sb, ws, "sleep 0.5; printf 'EVIL\\n' > x; mv -f x .env; exit 0",
                    "run-a", "call-repl", Duration.ofSeconds(30));
            l.waitFor();
            var lv = l.violations().get(30, TimeUnit.SECONDS);
            assertTrue(once.get(), "hook not reached: " + lv + " env link=" + Files.isSymbolicLink(env));
            var rb = b.get(30, TimeUnit.SECONDS);
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file: " + rb.stdout());
            assertEquals("refused\nAPI=orig\n", rb.stdout(), rb.stderr());
            assertTrue(Files.isSymbolicLink(env), "the human's link is gone; B: " + rb.violations() + " L: " + lv
                    + " .env exists=" + Files.exists(env, java.nio.file.LinkOption.NOFOLLOW_LINKS));
            // the link is back, so no record may say it is lost: a put-back B's placeholder blocked is made by B's end
            // scan, and its record says so
            java.util.List<dev.monoagent.common.Violation> all = new java.util.ArrayList<>(lv);
            all.addAll(rb.violations());
            assertTrue(all.stream().noneMatch(v -> v.reason().contains("could not be restored")), all.toString());
            assertTrue(all.stream().anyMatch(v -> v.reason().contains("link restored")
                    || v.reason().contains("at the latest by the end of a later command")), all.toString());
        } finally {
            ProtectedScan.betweenMoveAndRestore = () -> { };
            NativeEngine.warmDefault = was;
        }
    }

    /** A Bash command's end scan (the guard missed it: linkGuard off stands for a lost or late event). */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void endScanWindowOfABashCommand(boolean warm) throws Exception {
        boolean g = NativeEngine.linkGuard;
        NativeEngine.linkGuard = false;
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("es-" + warm));
        Path target = ws.resolve("config/prod.env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        CompletableFuture<ExecOutcome.Completed> b = new CompletableFuture<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            AtomicBoolean once = LinkPutBackWindowTest.startInWindow(sb, ws, B.formatted("config/prod.env"), b);
            var a = TestEngine.bash(sb, ws, "printf 'EVIL\\n' > x; mv -f x .env; echo a", "run-a", "call-a",
                    Duration.ofSeconds(30));
            var rb = b.get(30, TimeUnit.SECONDS);
            assertTrue(once.get());
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file: " + rb.stdout());
            Path env = ws.resolve(".env");
            assertTrue(Files.isSymbolicLink(env), "the human's link is gone; A: " + a.violations() + " B: "
                    + rb.violations());
        } finally {
            ProtectedScan.betweenMoveAndRestore = () -> { };
            NativeEngine.warmDefault = was;
            NativeEngine.linkGuard = g;
        }
    }

    /**
     * A hop put back. .env -> conf/prod.env, conf -> envs. A replaces the hop conf; the guard moves A's conf away
     * and, before making the hop again, B starts: .env stands with the same text, so linkTargets skips it (it compares
     * the link's text only), yet srt cannot resolve it to envs/prod.env.
     */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void hopPutBackWindow(boolean warm) throws Exception {
        Path ws = hopWorkspace(tmp.resolve("hop-" + warm));
        Path target = ws.resolve("envs/prod.env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        CompletableFuture<ExecOutcome.Completed> b = new CompletableFuture<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            AtomicBoolean once = LinkPutBackWindowTest.startInWindow(sb, ws, B.formatted("envs/prod.env"), b);
            var a = TestEngine.bash(sb, ws, "rm conf; mkdir conf; printf 'EVIL\\n' > conf/prod.env; sleep 1; echo a",
                    "run-a", "call-a", Duration.ofSeconds(30));
            var rb = b.get(30, TimeUnit.SECONDS);
            assertTrue(once.get(), "hook not reached: " + a.violations());
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file: " + rb.stdout() + " / "
                    + rb.stderr() + " / " + rb.violations());
        } finally {
            ProtectedScan.betweenMoveAndRestore = () -> { };
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * No hook: a long-lived process (not guarded while it runs) replaces the hop conf with its own directory; B
     * starts while that stands (srt binds the agent's conf/prod.env), and writes the human's file once the process's end
     * scan made the hop again.
     */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void hopReplacedByALongLivedProcess(boolean warm) throws Exception {
        Path ws = hopWorkspace(tmp.resolve("hopll-" + warm));
        Path target = ws.resolve("envs/prod.env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess l = TestEngine.longLived(sb, ws, "rm conf; mkdir conf; printf 'EVIL\\n' > conf/prod.env; "
                    + "touch l-done; sleep 2; exit 0", "run-a", "call-repl", Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!Files.exists(ws.resolve("l-done")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            var rb = TestEngine.bash(sb, ws, "sleep 4; (echo PWNED > .env) 2>/dev/null || echo refused; "
                    + "cat envs/prod.env", "run-b", "call-b", Duration.ofSeconds(30));
            l.waitFor();
            l.violations().get(30, TimeUnit.SECONDS);
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file: " + rb.stdout() + " / "
                    + rb.violations());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * Between a long-lived process's untrack and its end scan (here held by keeping scanLock busy, as any other
     * scan, guard or intervention holding it does), its replacement file still stands at .env. B is wrapped then: srt
     * binds the agent's file, no deny on config/prod.env (A is no longer in humanLinks, restoredLinks empty). The end
     * scan then moves the file away and makes the link again, and B writes the human's file through it.
     */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void replacementStandsBetweenUntrackAndEndScan(boolean warm) throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("gap-" + warm));
        Path target = ws.resolve("config/prod.env");
        Path env = ws.resolve(".env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        CompletableFuture<ExecOutcome.Completed> b = new CompletableFuture<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // a warm shell up beforehand (made while the link stood)
            TestEngine.bash(sb, ws, "true", "run-b", "call-0", Duration.ofSeconds(30));
            NativeEngine ne = sb.engine();
            java.lang.reflect.Field lf = NativeEngine.class.getDeclaredField("live");
            lf.setAccessible(true);
            java.lang.reflect.Field sf = NativeEngine.class.getDeclaredField("scanLock");
            sf.setAccessible(true);
            Object scanLock = sf.get(ne);
            java.util.Map<?, ?> live = (java.util.Map<?, ?>) lf.get(ne);
            ne.longLivedEnding = () -> new Thread(() -> {
                long until = System.nanoTime() + 5_000_000_000L;
                while (!live.isEmpty() && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                synchronized (scanLock) {
                    CompletableFuture.runAsync(() -> b.complete(TestEngine.bash(sb, ws,
                            "sleep 2; (echo PWNED > .env) 2>/dev/null || echo refused; cat config/prod.env",
                            "run-b", "call-b", Duration.ofSeconds(30))));
                    try {
                        Thread.sleep(1200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }).start();
            SandboxProcess l = TestEngine.longLived(sb, ws, "sleep 0.5; printf 'EVIL\\n' > x; mv -f x .env; exit 0",
                    "run-a", "call-repl", Duration.ofSeconds(30));
            l.waitFor();
            var lv = l.violations().get(30, TimeUnit.SECONDS);
            var rb = b.get(30, TimeUnit.SECONDS);
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file: " + rb.stdout() + " B: "
                    + rb.violations() + " L: " + lv);
            assertTrue(Files.isSymbolicLink(env));
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * The target's parent is a real directory, not a hop. A command renames it away and makes its
     * own config/prod.env: .env is the same link with the same text and leads to the same path string.
     */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void targetParentDirectoryRenamed(boolean warm) throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("par-" + warm));
        Path target = ws.resolve("config/prod.env");
        Path env = ws.resolve(".env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            var a = TestEngine.bash(sb, ws, "mv config config.old 2>&1; mkdir -p config; printf 'EVIL\\n' > "
                    + "config/prod.env; cat .env", "run-a", "call-a", Duration.ofSeconds(30));
            var c = TestEngine.bash(sb, ws, "true", "run-a", "call-c", Duration.ofSeconds(30));
            assertEquals("API=orig\n", Files.readString(env), "host reads the agent's .env: " + a.stdout() + " / "
                    + a.violations());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /** F2c: the link's target is itself a symlink (config/prod.env -> ../secrets/prod.env); that hop is replaced. */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void targetSymlinkReplacedByALongLivedProcess(boolean warm) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("tsl-" + warm)).toRealPath();
        Path target = Files.createDirectories(ws.resolve("secrets")).resolve("prod.env");
        Files.writeString(target, "API=orig\n");
        Files.createSymbolicLink(Files.createDirectories(ws.resolve("config")).resolve("prod.env"),
                Path.of("../secrets/prod.env"));
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("config/prod.env"));
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess l = TestEngine.longLived(sb, ws, "rm config/prod.env; printf 'EVIL\\n' > config/prod.env; "
                    + "touch l-done; sleep 2; exit 0", "run-a", "call-repl", Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!Files.exists(ws.resolve("l-done")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            var rb = TestEngine.bash(sb, ws, "sleep 4; (echo PWNED > .env) 2>/dev/null || echo refused; "
                    + "cat secrets/prod.env", "run-b", "call-b", Duration.ofSeconds(30));
            l.waitFor();
            l.violations().get(30, TimeUnit.SECONDS);
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file: " + rb.stdout());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /** Held? a long-lived process (NodeRepl kind) started in the guard's put-back window. */
    @org.junit.jupiter.api.Test
    void longLivedStartedInTheGuardWindow() throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("llwin"));
        Path target = ws.resolve("config/prod.env");
        Path env = ws.resolve(".env");
        CompletableFuture<SandboxProcess> b = new CompletableFuture<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            LinkPutBackWindowTest.inWindowOnce(() -> b.complete(TestEngine.longLived(sb, ws,
                    "sleep 2.5; (echo PWNED > .env) 2>/dev/null || echo refused > out", "run-b", "call-b",
                    Duration.ofSeconds(30))));
            TestEngine.bash(sb, ws, "printf 'EVIL\\n' > x; mv -f x .env; sleep 1; echo a", "run-a", "call-a",
                    Duration.ofSeconds(30));
            SandboxProcess l = b.get(30, TimeUnit.SECONDS);
            l.waitFor();
            var lv = l.violations().get(30, TimeUnit.SECONDS);
            assertEquals("API=orig\n", Files.readString(target), "written: " + lv);
            assertTrue(Files.isSymbolicLink(env), "link lost: " + lv);
        } finally {
            ProtectedScan.betweenMoveAndRestore = () -> { };
        }
    }

    /** A workspace whose {@code .env -> conf/prod.env} runs through a hop, {@code conf -> envs}, to {@code API=orig}. */
    private static Path hopWorkspace(Path dir) throws java.io.IOException {
        Path ws = Files.createDirectories(dir).toRealPath();
        Files.writeString(Files.createDirectories(ws.resolve("envs")).resolve("prod.env"), "API=orig\n");
        Files.createSymbolicLink(ws.resolve("conf"), Path.of("envs"));
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("conf/prod.env"));
        return ws;
    }
}
