package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation.Tier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent must not be able to point the user's host git at config or hooks it wrote (core.fsmonitor runs on the
 * next {@code git status}) without touching {@code .git/config} or {@code .git/hooks}: via {@code .git/commondir},
 * {@code config.worktree}, {@code modules/}, {@code worktrees/}, or by replacing {@code .git} itself.
 */
class GitRedirectionTest {
    @TempDir
    Path tmp;

    private static void run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    }

    private Path repo(String name) throws Exception {
        Path r = Files.createDirectories(tmp.resolve(name)).toRealPath();
        run(r, "git", "init", "-q", ".");
        run(r, "git", "-c", "user.email=a@b.c", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init");
        return r;
    }

    /** Writes {@code <dir>/evil/config} whose fsmonitor touches the returned marker when host git reads it. */
    private Path evilConfig(Path dir) throws Exception {
        Path marker = tmp.resolve("pwned-" + dir.getFileName());
        Path evil = Files.createDirectories(dir.resolve("evil"));
        Files.createDirectories(evil.resolve("objects"));
        Files.createDirectories(evil.resolve("refs"));
        Files.writeString(evil.resolve("HEAD"), "ref: refs/heads/master\n");
        Files.writeString(evil.resolve("config"), "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch "
                + marker + "; false\"\n");
        return marker;
    }

    /** The user's next `git status` on the host: must not run anything the agent wrote. */
    private static void hostGitStatus(Path dir) throws Exception {
        Process p = new ProcessBuilder("git", "status").directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    private ExecOutcome.Completed exec(Sandbox sb, Path dir, String cmd) {
        return TestEngine.bash(sb, dir, cmd, "run-git", "call-git", Duration.ofSeconds(20));
    }

    @Test
    void realGitDirCannotBeRedirected() throws Exception {
        Path r = repo("real");
        Path marker = evilConfig(r);
        try (Sandbox sb = TestEngine.openReady(r)) {
            ExecOutcome.Completed c = exec(sb, r, "echo ../evil > .git/commondir; echo '[core]' > .git/config.worktree;"
                    + " mkdir -p .git/modules/m .git/worktrees/w; echo x > .git/modules/m/config;"
                    + " echo x > .git/worktrees/w/config; ln -sfn evil .git; true");
            assertFalse(Files.exists(r.resolve(".git/commondir"), LinkOption.NOFOLLOW_LINKS),
                    "commondir removed after the command");
            // the whole .git is read-only: the engine refuses the write (OBSERVED) before any scan has to undo it
            assertTrue(c.violations().stream().anyMatch(v -> v.target() != null
                    && v.target().endsWith(".git/commondir")), c.violations().toString());
            assertFalse(Files.exists(r.resolve(".git/modules/m/config")));
            assertFalse(Files.exists(r.resolve(".git/worktrees/w/config")));
            assertFalse(Files.exists(r.resolve(".git/config.worktree")) && Files.size(r.resolve(".git/config.worktree")) > 0);
            assertTrue(Files.isDirectory(r.resolve(".git"), LinkOption.NOFOLLOW_LINKS));
            ExecOutcome.Completed commit = exec(sb, r,
                    "git -c user.email=a@b.c -c user.name=a commit -q --allow-empty -m in-sandbox; git log --oneline");
            assertTrue(commit.stderr().contains("Read-only file system"), "commit refused: " + commit.stderr());
            assertTrue(commit.stdout().contains("init") && !commit.stdout().contains("in-sandbox"), commit.stdout());
        }
        hostGitStatus(r);
        assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor");
    }

    @Test
    void symlinkedGitCannotBeRepointed() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("sym")).toRealPath();
        run(ws, "git", "init", "-q", "--separate-git-dir", ws.resolve("realgit").toString(), ".");
        Files.delete(ws.resolve(".git"));
        Files.createSymbolicLink(ws.resolve(".git"), Path.of("realgit"));
        Path marker = evilConfig(ws);
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed ok = exec(sb, ws, "git status --short >/dev/null && echo ran");
            assertEquals("ran\n", ok.stdout(), "commands still run with a symlinked .git: " + ok.stderr());
            ExecOutcome.Completed c = exec(sb, ws, "ln -sfn evil .git; true");
            assertTrue(c.violations().stream().anyMatch(v -> v.tier() == Tier.DETECTED), c.violations().toString());
            assertEquals(Path.of("realgit"), Files.readSymbolicLink(ws.resolve(".git")));
        }
        hostGitStatus(ws);
        assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor");
    }

    @Test
    void gitdirFileCannotBeRewritten() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("gitfile")).toRealPath();
        run(ws, "git", "init", "-q", "--separate-git-dir", ws.resolve("realgit").toString(), ".");
        String original = Files.readString(ws.resolve(".git"));
        Path marker = evilConfig(ws);
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed ok = exec(sb, ws, "git status --short >/dev/null && echo ran");
            assertEquals("ran\n", ok.stdout(), "commands still run with a gitdir file: " + ok.stderr());
            exec(sb, ws, "echo 'gitdir: evil' > .git; rm -f .git; echo 'gitdir: evil' > .git; true");
            assertTrue(Files.isRegularFile(ws.resolve(".git"), LinkOption.NOFOLLOW_LINKS));
            assertEquals(original, Files.readString(ws.resolve(".git")));
        }
        hostGitStatus(ws);
        assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor");
    }

    @Test
    void absentGitCannotBeCreatedAsRedirect() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("nogit")).toRealPath();
        Path marker = evilConfig(ws);
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "ln -s evil .git; true");
            assertFalse(Files.isSymbolicLink(ws.resolve(".git")), ".git symlink planted");
            exec(sb, ws, "echo 'gitdir: evil' > .git; true");
            assertFalse(Files.isRegularFile(ws.resolve(".git"), LinkOption.NOFOLLOW_LINKS), ".git file planted");
        }
        assertFalse(Files.isSymbolicLink(ws.resolve(".git")));
        assertFalse(Files.isRegularFile(ws.resolve(".git"), LinkOption.NOFOLLOW_LINKS));
        hostGitStatus(ws);
        assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor");
    }

    @Test
    void nestedRepositoryHooksPathIsReadOnly() throws Exception {
        Path ws = repo("nestedhooks");
        Path sub = repo("nestedhooks/sub2");
        run(sub, "git", "config", "core.hooksPath", "h2");
        Files.createDirectories(sub.resolve("h2"));
        Path marker = tmp.resolve("pwned-nested-hook");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "printf '#!/bin/sh\\ntouch " + marker + "\\n' > sub2/h2/pre-commit;"
                    + " chmod +x sub2/h2/pre-commit; true");
        }
        run(sub, "git", "-c", "user.email=a@b.c", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "host");
        assertFalse(Files.exists(marker), "host git ran the agent's hook in the nested repository");
    }

    @Test
    void nestedRepositoryAbsentHooksDirCannotBeMade() throws Exception {
        Path ws = repo("nestedabsent");
        Path sub = repo("nestedabsent/sub2");
        run(sub, "git", "config", "core.hooksPath", "hooks/git");
        Path marker = tmp.resolve("pwned-nested-absent-hook");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "mkdir -p sub2/hooks/git; printf '#!/bin/sh\\ntouch " + marker + "\\n'"
                    + " > sub2/hooks/git/pre-commit; chmod +x sub2/hooks/git/pre-commit; true");
        }
        run(sub, "git", "-c", "user.email=a@b.c", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "host");
        assertFalse(Files.exists(marker), "host git ran the agent's hook in the nested repository");
    }

    @Test
    void includedConfigFileIsReadOnly() throws Exception {
        Path ws = repo("include");
        run(ws, "git", "config", "include.path", "../.gitconfig.local");
        Path marker = tmp.resolve("pwned-include");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "printf '[core]\\n\\tfsmonitor = \"touch " + marker + "; false\"\\n' > .gitconfig.local;"
                    + " true");
            ExecOutcome.Completed ok = exec(sb, ws, "git status --short >/dev/null && echo ran");
            assertEquals("ran\n", ok.stdout(), "git still runs in the sandbox: " + ok.stderr());
        }
        hostGitStatus(ws);
        assertFalse(Files.exists(marker), "host git ran the fsmonitor of the agent's include.path file");
    }

    @Test
    void conditionallyIncludedConfigFileCannotBeMade() throws Exception {
        Path ws = repo("includeif");
        run(ws, "git", "config", "includeIf.gitdir:**.path", "../conf/extra.cfg");
        Path marker = tmp.resolve("pwned-include-if");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "mkdir -p conf; printf '[core]\\n\\tfsmonitor = \"touch " + marker + "; false\"\\n'"
                    + " > conf/extra.cfg; true");
        }
        hostGitStatus(ws);
        assertFalse(Files.exists(marker), "host git ran the fsmonitor of the agent's includeIf file");
    }

    @Test
    void nestedRepositoryIncludeIsReadOnly() throws Exception {
        Path ws = repo("nestedinclude");
        Path sub = repo("nestedinclude/sub3");
        run(sub, "git", "config", "include.path", "../../shared.gitconfig");
        Path marker = tmp.resolve("pwned-nested-include");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "printf '[core]\\n\\tfsmonitor = \"touch " + marker + "; false\"\\n' > shared.gitconfig;"
                    + " true");
        }
        hostGitStatus(sub);
        assertFalse(Files.exists(marker), "host git ran the fsmonitor of the agent's include.path file");
    }
}
