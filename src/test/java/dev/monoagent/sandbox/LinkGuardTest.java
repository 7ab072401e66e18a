package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attacks on the guard that puts a protected symlink (and the symlinks on its way) back while a command runs
 * ({@code ProtectedSymlinkReplaceTest.aReplacedLinkIsPutBackWhileTheCommandStillRuns} is the plain case). Each test
 * watches what the host reads at the protected path from a thread of its own, as a host dev server would, and
 * bounds the longest stretch it read the command's content.
 */
class LinkGuardTest {
    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    /**
     * Commands of another run that start while the replacement stands took the agent's file into their own start
     * snapshot, and the guard judged from the newest start alone: the agent's {@code .env} then stood 7.7–11.9 s of
     * 14 (4 of 5 runs). The links every running command started with are guarded now.
     */
    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void commandsStartingBesideALoopThatReplacesTheLinkDoNotEndItsGuard(boolean warm) throws Exception {
        Path ws = linked("beside-" + warm);
        Path env = ws.resolve(".env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws);
             Poller seen = new Poller(env)) {
            CompletableFuture<ExecOutcome.Completed> loop = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb,
                    ws, "end=$((SECONDS+8)); n=0; while [ $SECONDS -lt $end ]; do n=$((n+1)); "
                            + "printf 'EVIL\\n' > x.$n; mv -f x.$n .env 2>/dev/null; rm -f x.$n; done; echo done",
                    "run-a", "call-loop", Duration.ofSeconds(60)));
            Thread.sleep(1000);
            for (int i = 0; i < 8 && !loop.isDone(); i++) {
                TestEngine.bash(sb, ws, "sleep 0.5; cat .env", "run-b", "call-b" + i, Duration.ofSeconds(30));
            }
            ExecOutcome.Completed lr = loop.get(60, TimeUnit.SECONDS);
            seen.stop();
            // put back each time, recorded on the loop's call at most four times (three, then one saying so)
            long records = lr.violations().stream().filter(v -> env.toString().equals(v.target())
                    && v.reason().contains("while the command ran (put back at once")).count();
            assertTrue(records >= 1 && records <= 4, records + " guard records on the loop's call");
            assertTrue(seen.longestMs() < 1500, "the host read the command's .env for " + seen.longestMs()
                    + " ms in a row (" + seen.totalMs() + " ms in all)");
            assertEquals("API=orig\n", Files.readString(env), () -> state(ws, env) + "; loop: " + lr.violations());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /** What stands at the link and its target now (for a failure's message). */
    static String state(Path ws, Path env) {
        try {
            Path target = ws.resolve("config/prod.env");
            return ".env " + (Files.isSymbolicLink(env) ? "-> " + Files.readSymbolicLink(env)
                    : Files.exists(env, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "a file of "
                    + Files.size(env) + " bytes, " + java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(env, java.nio.file.LinkOption.NOFOLLOW_LINKS)) : "missing")
                    + "; config/prod.env " + (Files.exists(target) ? "'" + Files.readString(target) + "'" : "missing");
        } catch (java.io.IOException e) {
            return "unreadable: " + e;
        }
    }

    /**
     * The directory that holds the link ({@code app/.env}), or a symlink on its way ({@code sub/conf}), renamed away
     * and another renamed in its place: no event names the guarded path itself, so the agent's content stood for the
     * whole command (6 of 6). A directory above a guarded path is guarded too.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"app-warm", "app-cold", "hop-warm", "hop-cold"})
    void aDirectoryAboveTheLinkSwappedWhileTheCommandRunsIsPutRight(String how) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(how)).toRealPath();
        Files.writeString(Files.createDirectories(ws.resolve("config")).resolve("prod.env"), "API=orig\n");
        Path env;
        String swap;
        if (how.startsWith("app")) {
            env = Files.createDirectories(ws.resolve("app")).resolve(".env");
            Files.createSymbolicLink(env, Path.of("../config/prod.env"));
            swap = "mkdir x && printf 'EVIL\\n' > x/.env && mv app app.old && mv x app";
        } else {
            Files.createSymbolicLink(Files.createDirectories(ws.resolve("sub")).resolve("conf"), Path.of("../config"));
            env = ws.resolve(".env");
            Files.createSymbolicLink(env, Path.of("sub/conf/prod.env"));
            swap = "mkdir -p x mine && printf 'EVIL\\n' > mine/prod.env && ln -s ../mine x/conf && mv sub sub.old "
                    + "&& mv x sub";
        }
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = how.endsWith("warm");
        try (Sandbox sb = TestEngine.openReady(ws);
             Poller seen = new Poller(env)) {
            CompletableFuture<ExecOutcome.Completed> run = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb,
                    ws, swap + "; sleep 4; echo ran", "run-swap", "call-swap", Duration.ofSeconds(60)));
            ExecOutcome.Completed r = run.get(60, TimeUnit.SECONDS);
            seen.stop();
            assertTrue(Files.isDirectory(ws.resolve(how.startsWith("app") ? "app.old" : "sub.old")),
                    "the command did not swap the directory: " + r.stderr());
            assertTrue(seen.longestMs() < 1500, "the host read the command's content for " + seen.longestMs()
                    + " ms in a row; recorded: " + r.violations());
            assertEquals("API=orig\n", Files.readString(env));
            assertTrue(r.violations().stream().anyMatch(v -> v.reason().contains("while the command ran (put back")),
                    "not put back while it ran: " + r.violations());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    private Path linked(String name) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(name)).toRealPath();
        Files.writeString(Files.createDirectories(ws.resolve("config")).resolve("prod.env"), "API=orig\n");
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("config/prod.env"));
        return ws;
    }

    /** Reads {@code f} in a loop and keeps the longest run of reads that saw "EVIL". */
    private static final class Poller implements AutoCloseable {
        private final AtomicBoolean on = new AtomicBoolean(true);
        private final AtomicLong longest = new AtomicLong();
        private final AtomicLong total = new AtomicLong();
        private final Thread thread;

        Poller(Path f) {
            thread = new Thread(() -> {
                long since = -1;
                long last = System.nanoTime();
                while (on.get()) {
                    String s;
                    try {
                        s = Files.readString(f);
                    } catch (java.io.IOException e) {
                        s = "";
                    }
                    long now = System.nanoTime();
                    if (s.contains("EVIL")) {
                        if (since < 0) {
                            since = now;
                        }
                        total.addAndGet(now - last);
                        longest.accumulateAndGet((now - since) / 1_000_000, Math::max);
                    } else {
                        since = -1;
                    }
                    last = now;
                    Thread.onSpinWait();
                }
            }, "link-poller");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            on.set(false);
            thread.join(5000);
        }

        long longestMs() {
            return longest.get();
        }

        long totalMs() {
            return total.get() / 1_000_000;
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
