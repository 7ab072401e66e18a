package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation.Tier;
import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No place in the workspace may hide a protected file or a dangerous path from the deny list and the post-command
 * scan: not depth, not build/node_modules dirs, not a huge tree, not an agent-written ignore file.
 */
class BlindSpotTest {
    private static final String SECRET = "SECRET=1\n";

    @TempDir
    Path tmp;

    private ExecOutcome.Completed exec(Sandbox sb, Path ws, String cmd) {
        ExecOutcome o = sb.exec(CommandSpec.bash(cmd, ws).withAttribution("run-blind", "call-blind", "Bash")
                .withTimeout(Duration.ofSeconds(30)));
        return assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
    }

    private Sandbox open(Path ws) {
        Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                TestEngine.env());
        assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
        return sb;
    }

    @Test
    void deepSkippedAndLateSecretsAreDeniedOrDetected() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        List<String> existing = List.of("a/b/c/d/.env", "build/.env", "node_modules/.env.production",
                "node_modules/pkg/.env.local2");
        for (String e : existing) {
            Files.createDirectories(ws.resolve(e).getParent());
            Files.writeString(ws.resolve(e), SECRET);
        }
        Path many = Files.createDirectories(ws.resolve("many"));
        for (int i = 0; i < 21_000; i++) {
            Files.createFile(many.resolve("f" + i));
        }
        try (Sandbox sb = open(ws)) {
            StringBuilder cmd = new StringBuilder();
            for (String e : existing) {
                cmd.append("echo X >> ").append(e).append("; ");
            }
            exec(sb, ws, cmd + "true");
            for (String e : existing) {
                assertEquals(SECRET, Files.readString(ws.resolve(e)), e + " was writable");
            }
            ExecOutcome.Completed c = exec(sb, ws, "mkdir -p zzz a/b/c/d/e build/x node_modules/q && echo X > "
                    + "zzz/.env.evil && echo X > a/b/c/d/e/.env.custom && echo X > build/x/.env.more && echo X > "
                    + "node_modules/q/.env.other");
            for (String n : List.of("zzz/.env.evil", "a/b/c/d/e/.env.custom", "build/x/.env.more",
                    "node_modules/q/.env.other")) {
                assertFalse(Files.exists(ws.resolve(n)), n + " not quarantined");
                assertTrue(c.violations().stream().anyMatch(v -> v.tier() == Tier.DETECTED
                        && v.target().equals(ws.resolve(n).toString())), n + " not reported: " + c.violations());
            }
        }
    }
}
