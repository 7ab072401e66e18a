package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repository without {@code .git/hooks} ({@code git init --template=}) must not make every command fail: the whole
 * {@code .git} is read-only inside, srt adds {@code .git/hooks} for a {@code .git} directory, and bubblewrap cannot
 * create that mount point inside the read-only {@code .git} ("Can't create file at .git/hooks"). The engine gives such
 * a repository an empty {@code hooks} directory when it initialises srt; writing a hook stays refused.
 */
class HooklessRepositoryTest {
    @TempDir
    Path tmp;

    @Test
    void aRepositoryWithoutHooksRunsCommandsAndItsHooksStayShut() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Process p = new ProcessBuilder("git", "init", "-q", "--template=", ws.toString()).inheritIO().start();
        assertEquals(0, p.waitFor());
        assertFalse(Files.exists(ws.resolve(".git/hooks")));
        try (Sandbox sb = TestEngine.openReady(ws)) {
            String run = "run-" + UUID.randomUUID();
            var r = TestEngine.bash(sb, ws, "echo hi; git status --short >/dev/null && echo git-ok", run, "c1",
                    Duration.ofSeconds(30));
            assertEquals(0, r.exitCode(), r.toString());
            assertEquals("hi\ngit-ok\n", r.stdout(), r.stderr());
            var hook = TestEngine.bash(sb, ws, "(echo pwn > .git/hooks/pre-commit) 2>/dev/null && echo WROTE; echo end",
                    run, "c2", Duration.ofSeconds(30));
            assertEquals("end\n", hook.stdout(), hook.stderr());
        }
        assertTrue(Files.isDirectory(ws.resolve(".git/hooks")));
        assertFalse(Files.exists(ws.resolve(".git/hooks/pre-commit")));
    }
}
