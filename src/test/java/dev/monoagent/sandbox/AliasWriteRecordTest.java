package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * srt's feed gives the path string a write was attempted on, not where it led. Through an alias — a link made in the
 * sandbox's own /tmp or /dev/shm, or /proc/self/cwd — a refused write to a protected file and a write that reached the
 * workspace both look like "allowed there … no host file was written". A record says only what the host knows: the
 * outcome is not known from the feed, the protected name is named, and what the command's own error or the host's files
 * show afterwards is added. Real srt sandbox, host state checked.
 */
class AliasWriteRecordTest {
    @TempDir
    Path tmp;

    private Path workspace() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        assertEquals(0, new ProcessBuilder("git", "init", "-q", ws.toString()).inheritIO().start().waitFor());
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        return ws;
    }

    private static List<Violation> about(ExecOutcome.Completed c, String target) {
        return c.violations().stream().filter(v -> target.equals(v.target())).toList();
    }

    private static void assertNoClaimOfNoHostFile(List<Violation> vs) {
        for (Violation v : vs) {
            assertFalse(v.reason().contains("no host file") || v.reason().contains("allowed there"), v.toString());
        }
    }

    @Test
    void refusedWritesToProtectedFilesThroughAnAliasAreAttemptsOnAProtectedName() throws Exception {
        Path ws = workspace();
        String config = Files.readString(ws.resolve(".git/config"));
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = TestEngine.bash(sb, ws, "ln -s " + ws + " /tmp/w; echo x >> /proc/self/cwd/.env; "
                    + "echo x >> /tmp/w/.git/config; echo x > /tmp/w/.git/hooks/pre-commit; echo end", "run-alias",
                    "c-alias1", Duration.ofSeconds(60));
            assertTrue(c.stdout().contains("end"), c.stdout() + c.stderr());
            assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")));
            assertEquals(config, Files.readString(ws.resolve(".git/config")));
            assertFalse(Files.exists(ws.resolve(".git/hooks/pre-commit")));
            assertNoClaimOfNoHostFile(c.violations());
            // the link itself was made (in the sandbox's /tmp): nothing may say that write did not happen
            assertTrue(about(c, "/tmp/w").stream().noneMatch(v -> v.reason().contains("did not happen")),
                    about(c, "/tmp/w").toString());
            for (String[] t : List.of(new String[] {"/proc/self/cwd/.env", ".env"},
                    new String[] {"/tmp/w/.git/config", ".git/config"},
                    new String[] {"/tmp/w/.git/hooks/pre-commit", ".git/hooks/pre-commit"})) {
                List<Violation> vs = about(c, t[0]);
                assertFalse(vs.isEmpty(), "no record of " + t[0] + ": " + c.violations());
                assertTrue(vs.stream().anyMatch(v -> v.tier() == Violation.Tier.OBSERVED
                        && v.reason().startsWith("write attempt on a protected name (" + t[1] + ":")
                        && v.reason().contains(WriteRecord.NOT_KNOWN)), vs.toString());
                // bash's own "Read-only file system" for that path: the host knows the write did not happen
                assertTrue(vs.stream().anyMatch(v -> v.tier() == Violation.Tier.INFERRED
                        && v.reason().contains("did not happen")), t[0] + ": " + vs + "\nstderr: " + c.stderr());
            }
        }
    }

    @Test
    void writesThatReachedTheWorkspaceThroughAnAliasAreNotRecordedAsStayingInTheSandbox() throws Exception {
        Path ws = workspace();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = TestEngine.bash(sb, ws, "echo A > /proc/self/cwd/rec-a.txt; ln -s " + ws
                    + " /tmp/wslink; echo B > /tmp/wslink/rec-b.txt; ln -s " + ws + " /dev/shm/wsl; "
                    + "echo C > /dev/shm/wsl/rec-c.txt; mkdir /proc/self/cwd/rec-dir; echo end", "run-alias",
                    "c-alias2", Duration.ofSeconds(60));
            assertTrue(c.stdout().contains("end"), c.stdout() + c.stderr());
            for (String f : List.of("rec-a.txt", "rec-b.txt", "rec-c.txt", "rec-dir")) {
                assertTrue(Files.exists(ws.resolve(f)), f + " did not reach the host: this test would prove nothing");
            }
            Set<String> aliases = Set.of("/proc/self/cwd/rec-a.txt", "/tmp/wslink/rec-b.txt", "/dev/shm/wsl/rec-c.txt",
                    "/proc/self/cwd/rec-dir");
            List<Violation> vs = c.violations().stream().filter(v -> aliases.contains(v.target())).toList();
            assertFalse(vs.isEmpty(), "no record of a write through an alias: " + c.violations());
            assertNoClaimOfNoHostFile(vs);
            for (Violation v : vs) {
                assertFalse(v.reason().contains("refused") || v.reason().contains("did not happen"), v.toString());
            }
            assertTrue(vs.stream().filter(v -> v.tier() == Violation.Tier.OBSERVED)
                    .allMatch(v -> v.reason().contains(WriteRecord.NOT_KNOWN)), vs.toString());
            // the host sees the workspace file modified since the attempt
            assertTrue(vs.stream().anyMatch(v -> v.tier() == Violation.Tier.INFERRED
                    && v.reason().contains("the host's " + ws + "/rec-") && v.reason().contains("may have reached it")),
                    vs.toString());
        }
    }
}
