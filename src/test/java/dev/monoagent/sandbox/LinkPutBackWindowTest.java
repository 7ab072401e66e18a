package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * Putting a protected symlink back is two steps — what a command put in its place moved to the quarantine, then the
 * link made again — and a command that starts between them sees no {@code .env}. srt denies a symlinked path's target
 * only when the link stands at wrap time, so that command gets a placeholder at {@code .env} and no deny on
 * {@code config/prod.env}; once the link is back it could write the human's file through it, and its end scan could
 * take the link for a new protected file of its own and quarantine it (the test hook holds the window open; warm and
 * cold). So such a command gets the human links' targets as per-command denies, and a link the engine put back is not
 * a new file.
 */
class LinkPutBackWindowTest {
    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    @ParameterizedTest(name = "warm={0}")
    @ValueSource(booleans = {true, false})
    void aCommandStartingWhileTheLinkIsPutBackCannotWriteItsTargetNorTakeTheLink(boolean warm) throws Exception {
        Path ws = linkedWorkspace(tmp.resolve("w-" + warm));
        Path target = ws.resolve("config/prod.env");
        Path env = ws.resolve(".env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        CompletableFuture<ExecOutcome.Completed> b = new CompletableFuture<>();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // the guard (a command replaced the link while it runs) holds the window between its two steps open while
            // command B starts
            AtomicBoolean once = startInWindow(sb, ws,
                    "sleep 1.5; (echo PWNED > .env) 2>/dev/null || echo refused; cat config/prod.env", b);
            var a = TestEngine.bash(sb, ws, "printf 'EVIL\\n' > x; mv -f x .env; sleep 1; echo a", "run-a", "call-a",
                    Duration.ofSeconds(30));
            assertEquals("a\n", a.stdout(), a.stderr());
            var rb = b.get(30, TimeUnit.SECONDS);
            assertTrue(once.get(), "the guard put the link back while A ran");
            assertEquals("refused\nAPI=orig\n", rb.stdout(), "B wrote the human's file through the link: "
                    + rb.stderr());
            assertEquals("API=orig\n", Files.readString(target));
            assertTrue(Files.isSymbolicLink(env), "the human's link was taken for B's new file: " + rb.violations());
            assertEquals("API=orig\n", Files.readString(env));
            assertFalse(rb.violations().stream().anyMatch(v -> env.toString().equals(v.target())
                    && v.reason().startsWith("new protected file")), rb.violations().toString());
        } finally {
            ProtectedScan.betweenMoveAndRestore = () -> { };
            NativeEngine.warmDefault = was;
        }
    }

    /** A workspace at {@code dir} with the human's {@code .env -> config/prod.env} ("API=orig"). */
    static Path linkedWorkspace(Path dir) throws java.io.IOException {
        Path ws = Files.createDirectories(dir).toRealPath();
        Files.writeString(Files.createDirectories(ws.resolve("config")).resolve("prod.env"), "API=orig\n");
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("config/prod.env"));
        return ws;
    }

    /**
     * Sets the put-back window's test hook ({@link ProtectedScan#betweenMoveAndRestore}): the first time the window
     * opens, Bash command B ({@code script}, run-b / call-b) starts on another thread, completing {@code b}, and the
     * window is held open 800 ms meanwhile. The flag tells whether that happened. The caller resets the hook.
     */
    static AtomicBoolean startInWindow(Sandbox sb, Path ws, String script, CompletableFuture<ExecOutcome.Completed> b) {
        return inWindowOnce(() -> b.complete(TestEngine.bash(sb, ws, script, "run-b", "call-b",
                Duration.ofSeconds(30))));
    }

    /** As {@link #startInWindow}, running {@code start} in the window. */
    static AtomicBoolean inWindowOnce(Runnable start) {
        AtomicBoolean once = new AtomicBoolean();
        ProtectedScan.betweenMoveAndRestore = () -> {
            if (once.compareAndSet(false, true)) {
                CompletableFuture.runAsync(start);
                try {
                    Thread.sleep(800);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        return once;
    }
}
