package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.ChildProcesses;
import dev.monoagent.config.Enums;
import dev.monoagent.config.MonoConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repository the agent made is moved to the quarantine as evidence. There it must not be a repository any more: a
 * reviewer who looks with {@code cd …/dot-git} and {@code git status} (or a shell prompt that shows git state) would
 * otherwise run its {@code core.fsmonitor}. Judged by host git.
 */
class QuarantinedRepositoryTest {
    @TempDir
    Path tmp;

    @Test
    void aQuarantinedRepositoryIsNoRepositoryToHostGit() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-ran");
        Path git = Files.createDirectories(ws.resolve("q/.git"));
        Files.createDirectories(git.resolve("objects"));
        Files.createDirectories(git.resolve("refs/heads"));
        Files.writeString(git.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(git.resolve("config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
                + "\tworktree = .\n\tfsmonitor = \"touch " + marker + "; false\"\n");
        Policy policy = new Policy(ws, Enums.SandboxMode.NATIVE, Enums.Fallback.FAIL_CLOSED, false, List.of(ws),
                List.of(ws), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, List.of(ws.resolve(".mono-agent")), List.of(),
                Enums.NetworkMode.NONE, List.of());
        Path dest = HostControl.neutralise(policy, git, Files.createDirectories(ws.resolve(".mono-agent/quarantine/t")));
        assertNotNull(dest, "moved");
        assertFalse(Files.exists(git), "out of the workspace");
        for (Path dir : List.of(dest, dest.getParent())) {
            Process p = ChildProcesses.builder("git", "status").directory(dir.toFile()).redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
        assertFalse(Files.exists(marker), "host git obeyed the quarantined repository");
        assertTrue(Files.exists(dest.resolve("config")) && Files.exists(dest.resolve("HEAD.quarantined")),
                "kept as evidence");
    }
}
