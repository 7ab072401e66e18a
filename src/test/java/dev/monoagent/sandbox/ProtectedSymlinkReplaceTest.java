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
 * Red team 7's open item: a protected name that is a symlink ({@code .env -> config/prod.env}, how many projects keep
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

    private void replaced(String name, String how, boolean occupied, boolean warm) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(name)).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        Path cfg = Files.createDirectories(ws.resolve("config"));
        Files.writeString(cfg.resolve("prod.env"), "API=orig\n");
        Path sub = Files.createDirectories(ws.resolve("app"));
        // the human's links, made before the run: one at the top, one below (relative targets, as `ln -s` makes them)
        Files.createSymbolicLink(ws.resolve(".env"), Path.of("config/prod.env"));
        Files.createSymbolicLink(sub.resolve(".env.local"), Path.of("../config/prod.env"));
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
}
