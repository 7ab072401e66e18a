package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sandboxed process whose working directory is inside a repository it planted keeps that directory when the host
 * moves the repository to {@code .mono-agent/quarantine} (the state dir is read-only inside every sandbox by path
 * only), and could go on writing there: re-arm the quarantined repository with a {@code core.fsmonitor} config, which
 * a user's host {@code git status} in the quarantine would run. A process working inside what is moved to the
 * quarantine (cwd, root, an open file or mapping) is ended instead of thawed; the rest of its command runs on.
 */
class QuarantineReachTest {
    @TempDir
    Path tmp;

    private static String script(Path marker) {
        return "mkdir -p evil/.git/objects evil/.git/refs/heads && echo 'ref: refs/heads/main' > evil/.git/HEAD && "
                + "{ cd evil/.git 2>/dev/null || { echo missed; exit 0; }; } && for i in $(seq 1 100); do case $(pwd -P 2>/dev/null) in *mono-agent*) break;; "
                + "esac; sleep 0.1; done; echo cwd=$(pwd -P); (echo SECRET=1 > ../.env.local) 2>/dev/null && "
                + "echo ENV-OK; cd .. 2>/dev/null && mv dot-git .git 2>/dev/null; printf '[core]\\n\\tfsmonitor = "
                + "\"touch " + marker + "; false\"\\n' > .git/config 2>/dev/null && echo REARMED; echo end";
    }

    @ParameterizedTest(name = "long-lived process {0}")
    @ValueSource(booleans = {true, false})
    void aProcessInsideAQuarantinedRepositoryIsEndedBeforeItWritesThere(boolean longLived) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.resolve("pwn");
        String out;
        List<Violation> vs;
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            TestEngine.bash(sb, ws, "true", "run-a", "w0", Duration.ofSeconds(30));
            if (longLived) {
                StartOutcome so = sb.start(new CommandSpec(List.of("/bin/bash", "-c", script(marker)), ws,
                        Duration.ofSeconds(60), null, Map.of(), "run-b", "poke", "NodeRepl",
                        CommandSpec.DEFAULT_MAX_OUTPUT));
                SandboxProcess p = assertInstanceOf(StartOutcome.Started.class, so, so.toString()).process();
                out = new String(p.stdout().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                vs = p.violations().get(30, TimeUnit.SECONDS);
            } else {
                var r = TestEngine.bash(sb, ws, script(marker), "run-b", "poke", Duration.ofSeconds(60));
                out = r.stdout();
                vs = r.violations();
            }
            TestEngine.bash(sb, ws, "true", "run-a", "w1", Duration.ofSeconds(30));
        }
        assertFalse(out.contains("ENV-OK") || out.contains("REARMED"), out);
        try (Stream<Path> s = Files.walk(ws.resolve(".mono-agent"))) {
            assertTrue(s.noneMatch(x -> x.getFileName().toString().equals(".env.local")),
                    "a sandbox wrote into the state dir: " + out);
        }
        try (Stream<Path> s = Files.walk(ws.resolve(".mono-agent"))) {
            for (Path g : s.filter(x -> x.getFileName().toString().equals(".git")).toList()) {
                Process gs = new ProcessBuilder("git", "-C", g.getParent().toString(), "status", "--short")
                        .redirectErrorStream(true).start();
                gs.getInputStream().readAllBytes();
                gs.waitFor(20, TimeUnit.SECONDS);
            }
        }
        assertFalse(Files.exists(marker), "host git ran a config the sandbox wrote into the quarantine: " + out);
        // (the repository may be moved out before the process gets into it: then there is nothing to end)
        assertTrue(out.startsWith("missed") || vs.stream().anyMatch(v -> v.reason() != null
                && v.reason().contains("moved to the quarantine")), "the ending is on the record: " + out + vs);
    }
}
