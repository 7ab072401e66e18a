package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation.Tier;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
        return TestEngine.bash(sb, ws, cmd, "run-blind", "call-blind", Duration.ofSeconds(30));
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
        try (Sandbox sb = TestEngine.openReady(ws)) {
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

    private static void git(Path dir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
    }

    @Test
    void ignoreFilesAndDepthDoNotUnprotectNestedDangerousPaths() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        Path nested = Files.createDirectories(ws.resolve("nested"));
        git(nested, "init", "-q", ".");
        Path deepRepo = Files.createDirectories(ws.resolve("p/q/r/s"));
        git(deepRepo, "init", "-q", ".");
        Files.createDirectories(ws.resolve("deep/x/y/.vscode"));
        Files.writeString(ws.resolve("deep/x/y/.vscode/settings.json"), "{}\n");
        Files.createDirectories(ws.resolve("node_modules/m/.vscode"));
        Files.writeString(ws.resolve("node_modules/m/.vscode/tasks.json"), "{}\n");
        // what the agent would have written in an earlier command to hide everything from srt's rg scan
        Files.writeString(ws.resolve(".rgignore"), "*\n");
        Files.writeString(ws.resolve(".gitignore"), "nested\ndeep\np\n");
        String nestedConfig = Files.readString(nested.resolve(".git/config"));
        try (Sandbox sb = TestEngine.openReady(ws)) {
            exec(sb, ws, "echo evil > nested/.git/hooks/pre-commit; echo '[core]' >> nested/.git/config; "
                    + "echo evil > p/q/r/s/.git/hooks/post-checkout; echo '{\"x\":1}' > deep/x/y/.vscode/settings.json;"
                    + " echo '{\"x\":1}' > node_modules/m/.vscode/tasks.json; true");
            assertFalse(Files.exists(nested.resolve(".git/hooks/pre-commit")), "nested hook planted");
            assertEquals(nestedConfig, Files.readString(nested.resolve(".git/config")));
            assertFalse(Files.exists(deepRepo.resolve(".git/hooks/post-checkout")), "deep nested hook planted");
            assertEquals("{}\n", Files.readString(ws.resolve("deep/x/y/.vscode/settings.json")));
            assertEquals("{}\n", Files.readString(ws.resolve("node_modules/m/.vscode/tasks.json")));
            ExecOutcome.Completed c = exec(sb, ws, "git init -q fresh && echo evil > fresh/.git/hooks/pre-commit && "
                    + "chmod +x fresh/.git/hooks/pre-commit");
            assertFalse(Files.exists(ws.resolve("fresh/.git/hooks/pre-commit")), "new repo's hook not quarantined");
            assertTrue(c.violations().stream().anyMatch(v -> v.tier() == Tier.DETECTED), c.violations().toString());
            // a repo made by an earlier command is only known to srt's own rg scan at the next wrap: that scan must
            // see through the .rgignore / .gitignore above
            // a repository made by a command is taken out of host git's sight right after it,
            // whatever the ignore files above say
            // (it is moved out as soon as its HEAD appears, so git init itself may fail)
            ExecOutcome.Completed later = exec(sb, ws, "git init -q later");
            assertFalse(Files.exists(ws.resolve("later/.git"), LinkOption.NOFOLLOW_LINKS), "new nested repo kept");
            assertTrue(later.violations().stream().anyMatch(v -> v.tier() == Tier.DETECTED
                    && v.target() != null && v.target().endsWith("later/.git")), later.violations().toString());
        }
    }
}
