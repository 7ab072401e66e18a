package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outside home, the sandbox reads only its roots, the session temp dir, PATH dirs and the system
 * directories tools need. Another project's {@code .env} in {@code /tmp} or {@code /opt} is not readable (what the
 * agent reads goes to the model provider); tools still run.
 */
class ReadScopeTest {
    @TempDir
    Path tmp;

    @Test
    void otherProjectsOutsideHomeAreNotReadableButToolsRun() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path other = Files.createDirectories(tmp.resolve("other-project")).toRealPath();
        Files.writeString(other.resolve(".env"), "OTHER_SECRET=1\n");
        Path opt = Path.of("/opt/mono-agent-readscope-" + UUID.randomUUID().toString().substring(0, 8));
        Files.createDirectories(opt);
        try {
            Files.writeString(opt.resolve(".env"), "OPT_SECRET=1\n");
            try (Sandbox sb = TestEngine.openReady(ws)) {
                ExecOutcome.Completed c = TestEngine.bash(sb, ws, "cat " + other.resolve(".env") + " " + opt.resolve(
                        ".env") + " 2>&1; ls " + other + " 2>&1; true", "run-read", "c-read", Duration.ofSeconds(20));
                assertFalse(c.stdout().contains("SECRET"), c.stdout());
                assertFalse(c.stdout().contains(".env\n"), c.stdout());
                ExecOutcome.Completed tools = TestEngine.bash(sb, ws, "echo hi > f.txt && cat f.txt /etc/hostname "
                        + ">/dev/null && git --version >/dev/null && node -e 'console.log(1+1)' && ls /usr/bin "
                        + ">/dev/null && mktemp >/dev/null && echo tools-ok", "run-read", "c-tools",
                        Duration.ofSeconds(30));
                assertEquals(0, tools.exitCode(), tools.stderr());
                assertTrue(tools.stdout().contains("2\ntools-ok"), tools.stdout());
            }
        } finally {
            Files.deleteIfExists(opt.resolve(".env"));
            Files.deleteIfExists(opt);
        }
    }

    @Test
    void validateSaysWhatARootAtOrAroundHomeOpens() {
        Path home = Path.of("/home/rev");
        Path ws = home.resolve("project");
        String atHome = String.join("\n", ReadScope.describe(List.of(ws, home), List.of(ws), home, Platform.LINUX));
        assertTrue(atHome.contains("[WARN] root /home/rev is the home dir: everything in it is readable"), atHome);
        assertTrue(atHome.contains("except the roots at or inside them"), atHome);
        String slash = String.join("\n", ReadScope.describe(List.of(ws, Path.of("/")), List.of(ws), home,
                Platform.LINUX));
        assertTrue(slash.contains("root / holds the home dir and every top-level dir: it opens only the system dirs"),
                slash);
        String inside = String.join("\n", ReadScope.describe(List.of(ws, home.resolve(".cargo")), List.of(ws), home,
                Platform.LINUX));
        assertTrue(inside.contains("root /home/rev/.cargo is inside home: readable except the secrets"), inside);
        assertFalse(inside.contains("project is inside home"), inside);
    }
}
