package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A protected name that is a symlink ({@code .env -> config/prod.env}, how many projects keep
 * one env file per stage). srt realpaths it and binds the target read-only, but the link itself is an ordinary entry
 * of a writable directory: a command could remove it and put its own {@code .env} there — which the host's dev server
 * or test runner then loads ({@code NODE_OPTIONS=--require ./evil.js}). After the command the link is back as the
 * human made it, whatever took its place is in the quarantine, and the call is recorded.
 */
class ProtectedSymlinkReplaceTest {
    @TempDir
    Path tmp;

    static Stream<Arguments> replacements() {
        String evil = "printf 'NODE_OPTIONS=--require ./evil.js\\n'";
        return Stream.of(
                Arguments.of("file", "rm -f {E} && " + evil + " > {E}", true),
                Arguments.of("renamed-over", evil + " > x.tmp && mv -f x.tmp {E}", true),
                Arguments.of("repointed", evil + " > mine.txt && ln -sfn mine.txt {E}", true),
                Arguments.of("directory", "rm -f {E} && mkdir {E} && " + evil + " > {E}/x", true),
                Arguments.of("removed", "rm -f {E}", false));
    }

    @ParameterizedTest(name = "{0}, warm shell")
    @MethodSource("replacements")
    void aProtectedSymlinkTheCommandReplacesIsRestoredOnTheWarmShell(String name, String how, boolean occupied)
            throws Exception {
        replaced(name + "-warm", how, occupied, true);
    }

    @ParameterizedTest(name = "{0}, per-command sandbox")
    @MethodSource("replacements")
    void aProtectedSymlinkTheCommandReplacesIsRestoredOnAPerCommandSandbox(String name, String how, boolean occupied)
            throws Exception {
        replaced(name + "-cold", how, occupied, false);
    }

    /** The after-command restoration alone (the guard that acts while the command runs is off here). */
    private void replaced(String name, String how, boolean occupied, boolean warm) throws Exception {
        withoutGuard(() -> replacedNow(name, how, occupied, warm));
    }

    /** Runs {@code body} with {@link NativeEngine#linkGuard} off: what the after-command scan does by itself. */
    private static void withoutGuard(Body body) throws Exception {
        boolean was = NativeEngine.linkGuard;
        NativeEngine.linkGuard = false;
        try {
            body.run();
        } finally {
            NativeEngine.linkGuard = was;
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private void replacedNow(String name, String how, boolean occupied, boolean warm) throws Exception {
        // the human's links, made before the run: one at the top, one below (relative targets, as `ln -s` makes them)
        Path ws = linked(name);
        Path cfg = ws.resolve("config");
        Files.createSymbolicLink(Files.createDirectories(ws.resolve("app")).resolve(".env.local"),
                Path.of("../config/prod.env"));
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            for (String e : List.of(".env", "app/.env.local")) {
                ExecOutcome.Completed r = TestEngine.bash(sb, ws.resolve(e).getParent(),
                        how.replace("{E}", ws.resolve(e).getFileName().toString()) + "; echo ran", "run-" + name,
                        "call-" + e, Duration.ofSeconds(30));
                assertEquals("ran\n", r.stdout(), r.stderr());
                Path link = ws.resolve(e);
                assertTrue(Files.isSymbolicLink(link), e + " is no longer the human's link (" + name + "); recorded: "
                        + r.violations());
                assertEquals(e.contains("/") ? Path.of("../config/prod.env") : Path.of("config/prod.env"),
                        Files.readSymbolicLink(link), e + " points elsewhere");
                assertEquals("API=orig\n", Files.readString(link), e + " reads other content");
                List<Violation> onIt = r.violations().stream().filter(v -> link.toString().equals(v.target())
                        && v.tier() == Violation.Tier.DETECTED && v.reason().startsWith("protected symlink"))
                        .toList();
                assertFalse(onIt.isEmpty(), "nothing recorded on " + e + ": " + r.violations());
                assertTrue(onIt.get(0).reason().contains("link restored"), onIt.get(0).reason());
                if (occupied) {
                    assertTrue(onIt.get(0).reason().contains("moved to "), onIt.get(0).reason());
                    Path q = Path.of(onIt.get(0).reason().replaceAll(".*moved to (\\S+?)[,;].*", "$1"));
                    assertTrue(Files.exists(q, LinkOption.NOFOLLOW_LINKS), "what replaced it is not kept: " + q);
                }
            }
            assertEquals("API=orig\n", Files.readString(cfg.resolve("prod.env")));
            // and the next command still runs (the restored links are what the engine was set up for)
            ExecOutcome.Completed next = TestEngine.bash(sb, ws, "cat .env; echo pwned >> .env 2>/dev/null; echo ran",
                    "run-" + name, "call-next", Duration.ofSeconds(30));
            assertEquals("API=orig\nran\n", next.stdout(), next.stderr());
            assertEquals("API=orig\n", Files.readString(cfg.resolve("prod.env")));
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    static Stream<Arguments> hopChanges() {
        String mine = "mkdir -p mine && printf 'NODE_OPTIONS=--require ./evil.js\\n' > mine/prod.env && ";
        List<Arguments> cases = List.of(
                Arguments.of("repointed", mine + "ln -sfn mine {H}", true),
                Arguments.of("renamed-over", mine + "ln -s mine {H}.new && mv -T {H}.new {H}", true),
                Arguments.of("directory", "rm -f {H} && mkdir {H} && printf 'EVIL\\n' > {H}/prod.env", true),
                Arguments.of("removed", "rm -f {H}", false),
                // the link replaced too: put back, and the hop behind it must be checked as well
                Arguments.of("with-the-link", mine + "ln -sfn mine {H} && rm -f {L} && printf 'EVIL\\n' > {L}",
                        true));
        return Stream.of(true, false).flatMap(warm -> cases.stream().map(a -> Arguments.of(a.get()[0], a.get()[1],
                a.get()[2], warm)));
    }

    /**
     * {@code .env -> conf/prod.env} with {@code conf -> envs}, an ordinary symlinked directory. srt
     * binds only {@code envs/prod.env}; a command that repoints {@code conf} leaves {@code .env} untouched but makes
     * it read the command's file. Each symlink on the way is put back after the command (one hop at the top, and the
     * second of two hops for {@code app/.env.local -> ../a/prod.env}, {@code a -> b}, {@code b -> envs}); on the warm
     * shell and on per-command sandboxes.
     */
    @ParameterizedTest(name = "{0}, warm shell {3}")
    @MethodSource("hopChanges")
    void aSymlinkOnTheWayToAProtectedSymlinkIsRestored(String name, String how, boolean occupied, boolean warm)
            throws Exception {
        hopChanged(name + (warm ? "-warm" : "-cold"), how, occupied, warm);
    }

    private void hopChanged(String name, String how, boolean occupied, boolean warm) throws Exception {
        withoutGuard(() -> hopChangedNow(name, how, occupied, warm));
    }

    private void hopChangedNow(String name, String how, boolean occupied, boolean warm) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(name)).toRealPath();
        Files.writeString(Files.createDirectories(ws.resolve("envs")).resolve("prod.env"), "API=orig\n");
        Files.createSymbolicLink(ws.resolve("conf"), Path.of("envs"));
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("conf/prod.env"));
        Files.createSymbolicLink(ws.resolve("b"), Path.of("envs"));
        Files.createSymbolicLink(ws.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(Files.createDirectories(ws.resolve("app")).resolve(".env.local"),
                Path.of("../a/prod.env"));
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            for (List<String> c : List.of(List.of(".env", "conf"), List.of("app/.env.local", "b"))) {
                Path env = ws.resolve(c.get(0));
                Path hop = ws.resolve(c.get(1));
                String text = Files.readSymbolicLink(hop).toString();
                ExecOutcome.Completed r = TestEngine.bash(sb, ws, how.replace("{H}", c.get(1)).replace("{L}", c.get(0)) + "; echo ran",
                        "run-" + name, "call-" + c.get(1), Duration.ofSeconds(30));
                assertEquals("ran\n", r.stdout(), r.stderr());
                assertTrue(Files.isSymbolicLink(hop), c.get(1) + " is no longer the human's link (" + name
                        + "); recorded: " + r.violations());
                assertEquals(text, Files.readSymbolicLink(hop).toString(), c.get(1) + " points elsewhere");
                assertEquals("API=orig\n", Files.readString(env), c.get(0) + " reads the command's content");
                List<Violation> onIt = r.violations().stream().filter(v -> hop.toString().equals(v.target())
                        && v.tier() == Violation.Tier.DETECTED).toList();
                assertFalse(onIt.isEmpty(), "nothing recorded on " + c.get(1) + ": " + r.violations());
                String why = onIt.get(0).reason();
                assertTrue(why.startsWith("symlink on the way to protected " + env) && why.contains("link restored"),
                        why);
                if (occupied) {
                    Path q = Path.of(why.replaceAll(".*moved to (\\S+?)[,;].*", "$1"));
                    assertTrue(Files.exists(q, LinkOption.NOFOLLOW_LINKS), "what replaced it is not kept: " + q);
                }
            }
            ExecOutcome.Completed next = TestEngine.bash(sb, ws, "cat .env app/.env.local; echo ran", "run-" + name,
                    "call-next", Duration.ofSeconds(30));
            assertEquals("API=orig\nAPI=orig\nran\n", next.stdout(), next.stderr());
            assertTrue(next.violations().isEmpty(), "recorded again: " + next.violations());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * The same with a link that leads nowhere yet ({@code .env -> conf/prod.env}, {@code conf -> envs}, and no
     * {@code envs} or no {@code envs/prod.env}): its hops are checked too, or a command repointing {@code conf} to its
     * own directory makes the host's {@code .env} read the command's file, with nothing recorded.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"dir-warm", "dir-cold", "file-warm", "file-cold"})
    void aHopOfALinkThatLeadsNowhereYetIsRestored(String how) throws Exception {
        withoutGuard(() -> linkedDangling(how, false));
        // and with the guard on: put back while the command runs
        linkedDangling(how, true);
    }

    private void linkedDangling(String how, boolean guard) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("dangling-" + how + "-" + guard)).toRealPath();
        if (how.startsWith("file")) {
            Files.createDirectories(ws.resolve("envs"));
        }
        Files.createSymbolicLink(ws.resolve("conf"), Path.of("envs"));
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("conf/prod.env"));
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = how.endsWith("warm");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed r = TestEngine.bash(sb, ws, "mkdir -p mine && printf 'EVIL\\n' > mine/prod.env && "
                    + "ln -sfn mine conf; echo ran", "run-" + how, "call-1", Duration.ofSeconds(30));
            assertEquals("ran\n", r.stdout(), r.stderr());
            assertEquals(Path.of("envs"), Files.readSymbolicLink(ws.resolve("conf")), "conf stayed repointed; recorded: "
                    + r.violations());
            // nowhere, or (warm shell, target file missing) srt's empty placeholder for it, which the shell's wrap
            // made at envs/prod.env when it started and which stays while the shell lives (README, known gaps)
            Path env = ws.resolve(".env");
            assertTrue(!Files.exists(env) || Files.readString(env).isEmpty() && how.equals("file-warm")
                    && env.toRealPath().equals(ws.resolve("envs/prod.env")), ".env leads somewhere now: "
                    + (Files.exists(env) ? env.toRealPath() + " '" + Files.readString(env) + "'" : ""));
            assertTrue(r.violations().stream().anyMatch(v -> ws.resolve("conf").toString().equals(v.target())
                    && v.reason().startsWith("symlink on the way to protected")), "not recorded: " + r.violations());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * While the command still runs: the watch sees the link (or the directory link on its way) replaced and it is put
     * back at once — before, the agent's {@code .env} stood on the host until the command ended, for a host dev server
     * watching {@code .env} to load. Each case: the command replaces it, then sleeps; the host must see the human's
     * link again well before the command ends, and the command sees it too.
     */
    @ParameterizedTest(name = "{0}, warm={1}")
    @org.junit.jupiter.params.provider.CsvSource({".env,true", ".env,false", "conf,true", "conf,false"})
    void aReplacedLinkIsPutBackWhileTheCommandStillRuns(String what, boolean warm) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("live-" + what.replace('.', '_') + "-" + warm)).toRealPath();
        Files.writeString(Files.createDirectories(ws.resolve("envs")).resolve("prod.env"), "API=orig\n");
        Files.createSymbolicLink(ws.resolve("conf"), Path.of("envs"));
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("conf/prod.env"));
        String replace = what.equals(".env") ? "printf 'EVIL\\n' > x.tmp && mv -f x.tmp .env"
                : "mkdir -p mine && printf 'EVIL\\n' > mine/prod.env && ln -sfn mine conf";
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            java.util.concurrent.CompletableFuture<ExecOutcome.Completed> run = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> TestEngine.bash(sb, ws, replace + " && touch replaced && sleep 4; cat .env; "
                            + "echo ran", "run-live", "call-live", Duration.ofSeconds(60)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!Files.exists(ws.resolve("replaced")) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(Files.exists(ws.resolve("replaced")), "the command did not get to replace it");
            long t = System.nanoTime();
            while (!restored(ws) && System.nanoTime() - t < Duration.ofSeconds(2).toNanos()) {
                Thread.sleep(5);
            }
            boolean back = restored(ws);
            boolean running = !run.isDone();
            ExecOutcome.Completed r = run.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(back && running, what + " not put back within 2 s while the command ran (back=" + back
                    + ", still running=" + running + "); recorded: " + r.violations());
            assertEquals("API=orig\nran\n", r.stdout(), "the command read the agent's file after the restore");
            Path target = ws.resolve(what);
            List<Violation> onIt = r.violations().stream().filter(v -> target.toString().equals(v.target())
                    && v.tier() == Violation.Tier.DETECTED).toList();
            assertEquals(1, onIt.size(), "detected once on the call: " + r.violations());
            assertTrue(onIt.get(0).reason().contains("while the command ran (put back at once)")
                    && onIt.get(0).reason().contains("link restored"), onIt.get(0).reason());
            assertRestored(ws);
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    private static boolean restored(Path ws) throws java.io.IOException {
        Path env = ws.resolve(".env");
        Path conf = ws.resolve("conf");
        return Files.isSymbolicLink(env) && Files.isSymbolicLink(conf)
                && Files.readSymbolicLink(conf).equals(Path.of("envs")) && Files.exists(env)
                && Files.readString(env).equals("API=orig\n");
    }

    /**
     * A long-lived process replaces {@code .env}; a Bash command beside it ends first, and its scan must not settle
     * the process's baseline onto the agent's file, or the process's end scan has no link left to put back.
     */
    @org.junit.jupiter.api.Test
    void aLinkALongLivedProcessReplacedIsRestoredWhenItEndsThoughACommandEndedBeside() throws Exception {
        withoutGuard(this::longLivedThenBeside);
    }

    private void longLivedThenBeside() throws Exception {
        Path ws = linked("ll");
        try (TestEngine.Warm w = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = w.sandbox();
            SandboxProcess l = TestEngine.longLived(sb, ws, "rm -f .env; while :; do printf 'EVIL\\n' > .env; "
                    + "sleep 0.3; done", "run-ll", "call-repl", Duration.ofSeconds(60));
            Thread.sleep(1500);
            TestEngine.bash(sb, ws, "sleep 2; echo ran", "run-ll", "call-beside", Duration.ofSeconds(30));
            l.destroy();
            l.waitFor();
            l.violations().get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertRestored(ws);
        }
    }

    /** The same with two Bash calls on per-command sandboxes; the one that replaced it ends last. */
    @org.junit.jupiter.api.Test
    void aLinkACommandReplacedIsRestoredWhenItEndsThoughAnotherEndedBeforeIt() throws Exception {
        withoutGuard(this::twoCommands);
    }

    private void twoCommands() throws Exception {
        Path ws = linked("two");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = false;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            java.util.concurrent.CompletableFuture<ExecOutcome.Completed> a = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> TestEngine.bash(sb, ws, "rm -f .env; touch a-started; end=$((SECONDS+5)); "
                            + "while [ $SECONDS -lt $end ]; do printf 'EVIL\\n' > .env; sleep 0.3; done; echo a-done",
                            "run-two", "call-a", Duration.ofSeconds(60)));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!Files.exists(ws.resolve("a-started")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(300);
            TestEngine.bash(sb, ws, "sleep 2; echo b-done", "run-two", "call-b", Duration.ofSeconds(30));
            ExecOutcome.Completed ar = a.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(ar.violations().stream().anyMatch(v -> v.reason().startsWith("protected symlink replaced")),
                    "not recorded on the call that replaced it: " + ar.violations());
            assertRestored(ws);
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    private Path linked(String name) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(name)).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        Files.writeString(Files.createDirectories(ws.resolve("config")).resolve("prod.env"), "API=orig\n");
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("config/prod.env"));
        return ws;
    }

    private static void assertRestored(Path ws) throws Exception {
        Path env = ws.resolve(".env");
        assertTrue(Files.isSymbolicLink(env), "the agent's .env stayed: " + (Files.isRegularFile(env)
                ? Files.readString(env) : "absent"));
        assertEquals("API=orig\n", Files.readString(env));
    }
}
