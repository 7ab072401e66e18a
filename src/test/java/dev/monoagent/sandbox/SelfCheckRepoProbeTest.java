package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Effective;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On Linux the repository probes ride in the first probe command, under their own names ({@code repo-hooks}, …):
 * run where nothing stops them (a plain host bash — what a no-op sandbox would give) they must fail, and the first
 * batch's own {@code hooks} line must not pass for them.
 */
class SelfCheckRepoProbeTest {
    @TempDir
    Path tmp;

    @Test
    void theRepositoryProbesFailWhenTheirWritesGetThroughAndReadOnlyTheirOwnNames() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo")).toRealPath();
        SelfCheck.plantRepo(repo);
        ExecOutcome.Completed host = onHost(repo, SelfCheck.repoScript("repo-"));
        assertTrue(host.stdout().contains("P repo-hooks 0"), host.stdout());
        SelfCheck.RepoVerdict v = SelfCheck.judgeRepo(repo, host, "repo-");
        assertFalse(v.hooksAndConfig(), "hooks and config written, probe passed");
        assertFalse(v.gitDir(), "HEAD written, probe passed");
        assertTrue(v.why().contains("repo-hooks 0"), v.why());

        Path clean = Files.createDirectories(tmp.resolve("clean")).toRealPath();
        SelfCheck.plantRepo(clean);
        // an untouched repository and only the unprefixed (first batch) names saying 1: not a pass either
        ExecOutcome.Completed other = new ExecOutcome.Completed(0, 0, "P hooks 1\nP config 1\nP gitdir 1\n", "",
                false, false, List.of(), 1, Effective.NATIVE);
        SelfCheck.RepoVerdict w = SelfCheck.judgeRepo(clean, other, "repo-");
        assertFalse(w.hooksAndConfig() || w.gitDir(), "passed on another probe's lines");
        ExecOutcome.Completed own = new ExecOutcome.Completed(0, 0,
                "P repo-hooks 1\nP repo-config 1\nP repo-gitdir 1\n", "", false, false, List.of(), 1,
                Effective.NATIVE);
        SelfCheck.RepoVerdict x = SelfCheck.judgeRepo(clean, own, "repo-");
        assertTrue(x.hooksAndConfig() && x.gitDir(), x.why());
    }

    private static ExecOutcome.Completed onHost(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("/bin/bash", "--noprofile", "--norc", "-c", script).directory(dir.toFile())
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        return new ExecOutcome.Completed(rc, 0, out, err, false, false, List.of(), 1, Effective.NATIVE);
    }
}
