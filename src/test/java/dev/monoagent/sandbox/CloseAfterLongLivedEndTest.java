package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the engine while a long-lived process's end is under way (NodeRepl's destroy right before the sandbox is
 * closed): the end — its wrap's cleanup, its end scan, what it quarantines into the state dir — finishes before close
 * returns. Such an end has already left the live set; were close not to wait for it, it would put the warm
 * placeholders' stash back into the state dir while the caller deletes the temp dir.
 */
class CloseAfterLongLivedEndTest {
    @TempDir
    Path tmp;

    /** An end that is slow (a large end scan): it says it began, then takes 800 ms. */
    private static Runnable slowEnd(CountDownLatch began) {
        return () -> {
            began.countDown();
            try {
                Thread.sleep(800);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    @Test
    void closeWaitsForAnEndThatAlreadyBegan() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        CountDownLatch began = new CountDownLatch(1);
        Sandbox sb = TestEngine.openReady(ws);
        SandboxProcess repl;
        try {
            // a warm command first: its placeholders are what the late end moved into the stash
            TestEngine.bash(sb, ws, "echo hi", "run-c", "call-1", Duration.ofSeconds(30));
            repl = TestEngine.longLived(sb, ws, "sleep 60", "run-c", "call-repl", Duration.ofSeconds(90));
            sb.engine().longLivedEnding = slowEnd(began);
            repl.destroy();
            assertTrue(began.await(10, TimeUnit.SECONDS), "the long-lived process's end did not begin");
            assertFalse(repl.violations().isDone(), "its end finished before close: nothing to wait for");
        } finally {
            sb.close();
        }
        assertTrue(repl.violations().isDone(), "the long-lived process's end still ran after close returned");
    }

    /**
     * The same before a re-initialisation (a new protected file, no long-lived process running): an end already
     * under way finishes first, so its wrap's cleanup does not run beside srt's re-initialise (the
     * wait is in the re-initialisation itself, so a warm shell's start that re-initialises waits as well).
     */
    @Test
    void aReinitialisationWaitsForAnEndThatAlreadyBegan() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        CountDownLatch began = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Boolean> doneAtReinit = new java.util.concurrent.atomic.AtomicReference<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess repl = TestEngine.longLived(sb, ws, "sleep 60", "run-r", "call-repl", Duration.ofSeconds(90));
            sb.engine().longLivedEnding = slowEnd(began);
            sb.engine().reiniting = () -> doneAtReinit.compareAndSet(null, repl.violations().isDone());
            repl.destroy();
            assertTrue(began.await(10, TimeUnit.SECONDS), "the long-lived process's end did not begin");
            assertFalse(repl.violations().isDone(), "its end finished before the command: nothing to wait for");
            // a protected file the engine was not initialised with: the next command re-initialises srt first
            Files.writeString(ws.resolve(".env.later"), "K=v\n");
            TestEngine.bash(sb, ws, "echo hi", "run-r", "call-1", Duration.ofSeconds(30));
            assertNotNull(doneAtReinit.get(), "no re-initialisation ran");
            assertTrue(doneAtReinit.get(), "the re-initialisation began while the ended process's end still ran");
        }
    }

    /**
     * A long-lived process whose start was under way when close ran, past the point where close takes its lists (the
     * hook runs close to its end right there): it is ended as its start finishes, not left running after close. With
     * no cgroup (rlimits) nothing else kills it: the check at the end of spawn is all there is.
     */
    @Test
    void aLongLivedProcessStartedWhileCloseRanIsEnded() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws3")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        NativeEngine.limitsFactory = Limits::rlimitsOnly;
        SandboxProcess p = null;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
            ne.spawnStarted = () -> {
                ne.spawnStarted = () -> { };
                new Thread(() -> {
                    ne.close();
                    closed.complete(null);
                }).start();
                try {
                    closed.get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("close did not return", e);
                }
            };
            p = ne.spawn(java.util.List.of("/bin/bash", "-c", "echo up > up.txt; sleep 60"),
                    new NativeEngine.Attribution("run-s", "call-s", "NodeRepl", "sleep 60"), java.util.Map.of(), ws);
            assertTrue(closed.isDone(), "the hook did not run close");
            assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the process started while close ran still runs after it");
            assertTrue("the sandbox was closed".equals(p.endedBecause()), String.valueOf(p.endedBecause()));
        } finally {
            NativeEngine.limitsFactory = Limits::detect;
            if (p != null) {
                p.destroy();
            }
        }
    }
}
