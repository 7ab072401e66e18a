package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The window between a per-command sandbox's start snapshot and srt's wrap: the human's {@code .env -> config/prod.env}
 * stands when the snapshot is judged, another sandboxed process of the agent's replaces it before srt wraps, and srt —
 * which denies a symlinked path's target only when it finds the link there — binds the agent's file instead. The guard
 * then puts the link back while the command runs, and the command could write the human's file through it. So every
 * protected symlink's target is denied by name: at
 * initialise for the links there then, per command (and by a re-initialise once nothing long-lived runs) for one made
 * or repointed later. Cases: the link there at start, made after start, made after start beside a running long-lived
 * process (no re-initialise then).
 */
class LinkWrapWindowTest {
    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"at-start", "made-later", "made-later-beside-repl"})
    void aLinkReplacedBetweenTheSnapshotAndTheWrapIsNotWrittenThrough(String how) throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve(how));
        Path target = ws.resolve("config/prod.env");
        Path env = ws.resolve(".env");
        if (!how.equals("at-start")) {
            Files.delete(env);
        }
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = false;
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean once = new AtomicBoolean();
        SandboxProcess repl = null;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            if (how.equals("made-later-beside-repl")) {
                repl = TestEngine.longLived(sb, ws, "sleep 60", "run-r", "call-repl", Duration.ofSeconds(90));
            }
            if (!how.equals("at-start")) {
                Files.createSymbolicLink(env, Path.of("config/prod.env"));
            }
            // a finding at the end of a command leaves no wrap prepared ahead: B's is made after the hook, from the
            // workspace as it is then (a wrap prepared while the link stood would deny its target already)
            var a = TestEngine.bash(sb, ws, "echo x > .env.extra", "run-a", "call-a", Duration.ofSeconds(30));
            assertTrue(a.violations().stream().anyMatch(v -> v.target() != null && v.target().endsWith(".env.extra")),
                    a.violations().toString());
            armed.set(true);
            ne.wrapping = () -> {
                if (!armed.get() || !once.compareAndSet(false, true)) {
                    return;
                }
                try {
                    // what another sandboxed process of the agent's does (a REPL, or a loop beside this command)
                    replace(ws, env, "x1");
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
                // and once more while this command runs: the guard then puts the link back
                new Thread(() -> {
                    try {
                        Thread.sleep(900);
                        replace(ws, env, "x2");
                    } catch (Exception e) {
                        // the assertions tell
                    }
                }).start();
            };
            var b = TestEngine.bash(sb, ws, "sleep 2; (echo PWNED > .env) 2>/dev/null || echo refused; cat "
                    + "config/prod.env", "run-b", "call-b", Duration.ofSeconds(30));
            assertTrue(once.get(), "the hook did not run");
            assertEquals("API=orig\n", Files.readString(target), "B wrote the human's file through the link: "
                    + b.stdout() + b.stderr() + b.violations());
            assertEquals("refused\nAPI=orig\n", b.stdout(), b.stderr());
        } finally {
            NativeEngine.warmDefault = was;
            if (repl != null) {
                repl.destroy();
            }
        }
    }

    private static void replace(Path ws, Path env, String name) throws java.io.IOException {
        Path x = ws.resolve(name);
        Files.writeString(x, "EVIL\n");
        Files.move(x, env, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * The human saves the link's target as an editor does (a new file renamed over it) while the run's warm shell
     * lives. The rename takes the bind over the old file out of the shell's mount namespace while the link itself is
     * unchanged, so a shell kept for it would let its next command write the target. The target is a literal, and a
     * literal's identity is part of the layout: the shell is made again.
     */
    @org.junit.jupiter.api.Test
    void anEditorSaveOfTheTargetWhileTheWarmShellLivesLeavesItReadOnly() throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("save"));
        Path target = ws.resolve("config/prod.env");
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = true;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            var a = TestEngine.bash(sb, ws, "(echo PWNED > config/prod.env) 2>/dev/null || echo refused",
                    "run-a", "call-a", Duration.ofSeconds(30));
            assertEquals("refused\n", a.stdout(), a.stderr());
            assertEquals(1, sb.engine().warmShellsAlive(), "the path under test: the run's warm shell");
            Path t = ws.resolve("config/.prod.env.swp");
            Files.writeString(t, "API=v2\n");
            Files.move(t, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            var b = TestEngine.bash(sb, ws, "(echo PWNED > config/prod.env) 2>/dev/null || echo refused; "
                    + "(echo PWNED2 > .env) 2>/dev/null || echo refused2", "run-a", "call-b", Duration.ofSeconds(30));
            assertEquals("API=v2\n", Files.readString(target), "written after the human's save: " + b.stdout());
            assertEquals("refused\nrefused2\n", b.stdout(), b.stderr());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * A warm shell gone stale (here the human makes {@code .env.local}, already a literal: only the layout changes)
     * must compare srt's literals and the engine's alike, both with the link targets; else with a protected link in
     * the workspace every stale shell re-initialises srt and ends a long-lived process stopped between evaluations.
     * Neither may happen when the protected set is the same.
     */
    @org.junit.jupiter.api.Test
    void aStaleWarmShellWithALinkInTheWorkspaceNeitherReinitialisesNorEndsTheRepl() throws Exception {
        Path ws = LinkPutBackWindowTest.linkedWorkspace(tmp.resolve("stale"));
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = true;
        SandboxProcess repl = null;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            TestEngine.bash(sb, ws, "true", "run-a", "call-0", Duration.ofSeconds(30));
            repl = TestEngine.longLived(sb, ws, "sleep 60", "run-r", "call-repl", Duration.ofSeconds(90));
            repl.checkpoint("cp1");
            java.lang.reflect.Field gen = NativeEngine.class.getDeclaredField("generation");
            gen.setAccessible(true);
            long g0 = gen.getLong(ne);
            Files.writeString(ws.resolve(".env.local"), "L=1\n");
            TestEngine.bash(sb, ws, "true", "run-a", "call-1", Duration.ofSeconds(30));
            assertEquals(null, repl.endedBecause(), "the REPL was ended");
            assertEquals(g0, gen.getLong(ne), "srt was re-initialised");
        } finally {
            NativeEngine.warmDefault = was;
            if (repl != null) {
                repl.resume();
                repl.destroy();
            }
        }
    }
}
