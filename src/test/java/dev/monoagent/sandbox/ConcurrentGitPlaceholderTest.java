package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * While one command's placeholder for an absent {@code .git} is on the host — an empty directory, read-only only
 * inside that command's sandbox — a second sandbox wrapped meanwhile (a NodeRepl's kind, or a per-command one) sees
 * {@code .git} as an existing directory and gets srt's denies for the entries it was given only ({@code config},
 * {@code hooks}); it could write {@code HEAD}, {@code objects}, {@code refs} and {@code commondir} into it, host git
 * would then see a repository, and every later command would fail ("bwrap: Can't create file at .git/hooks"). A wrap
 * made while a {@code .git} placeholder is out denies the entries that make a repository too.
 */
class ConcurrentGitPlaceholderTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "warm shell {0}")
    @ValueSource(booleans = {true, false})
    void aSecondSandboxCannotMakeARepositoryOfAPlaceholder(boolean warmShell) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warmShell;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            String run = "run-" + UUID.randomUUID();
            TestEngine.bash(sb, ws, "true", run, "w0", Duration.ofSeconds(30));
            var first = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb, ws, "sleep 3; echo done", run, "w1",
                    Duration.ofSeconds(30)));
            // the first command's placeholders (an empty .git among them) are on the host while it sleeps
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.isDirectory(ws.resolve(".git"), LinkOption.NOFOLLOW_LINKS) && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertTrue(Files.isDirectory(ws.resolve(".git"), LinkOption.NOFOLLOW_LINKS), "the placeholder is out");
            StartOutcome so = sb.start(new CommandSpec(List.of("/bin/bash", "-c", "mkdir .git/objects .git/refs "
                    + "2>/dev/null && echo MKDIR-OK; (echo 'ref: refs/heads/main' > .git/HEAD) 2>/dev/null && echo "
                    + "HEAD-OK; (echo /tmp > .git/commondir) 2>/dev/null && echo COMMONDIR-OK; (echo x > .git/config) "
                    + "2>/dev/null && echo CONFIG-OK; echo end"), ws, Duration.ofSeconds(60), null, Map.of(),
                    "run-other", "poke", "NodeRepl", CommandSpec.DEFAULT_MAX_OUTPUT));
            SandboxProcess poke = assertInstanceOf(StartOutcome.Started.class, so).process();
            String out = new String(poke.stdout().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(poke.waitFor(30, TimeUnit.SECONDS));
            assertEquals("end\n", out, "inside the second sandbox the placeholder's repository entries are refused");
            assertEquals(0, first.get(60, TimeUnit.SECONDS).exitCode());
            var next = TestEngine.bash(sb, ws, "git rev-parse --git-dir 2>&1; echo next", run, "w2",
                    Duration.ofSeconds(30));
            assertEquals(0, next.exitCode(), next.stderr());
            assertTrue(next.stdout().endsWith("next\n"), next.stdout() + next.stderr());
            assertFalse(Files.exists(ws.resolve(".git/HEAD"), LinkOption.NOFOLLOW_LINKS), "no repository on the "
                    + "host: " + names(ws));
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    private static List<String> names(Path ws) throws Exception {
        try (Stream<Path> s = Files.walk(ws)) {
            return s.map(p -> ws.relativize(p).toString()).filter(n -> !n.startsWith(".mono-agent")).sorted()
                    .toList();
        }
    }
}
