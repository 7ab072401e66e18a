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
 * srt's configuration and the warm server's requests carry paths as text, so a protected path whose name is not valid
 * UTF-8 ({@code sub\xff/.vscode}) would reach them as another path ({@code sub\uFFFD/.vscode}), and a command could
 * append to the human's {@code sub\xff/.vscode/settings.json}. Such a path stops every command (nothing
 * runs) until it is renamed; one the agent makes is quarantined like any new protected file.
 */
class UnnameableProtectedPathTest {
    @TempDir
    Path tmp;

    @Test
    void aProtectedPathWhoseNameIsNotUtf8StopsCommandsUntilItIsRenamed() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        TestEngine.host(ws, "mkdir -p $'sub\\xff/.vscode' && echo '{}' > $'sub\\xff/.vscode/settings.json'");
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            var r = TestEngine.bash(sb, ws, "echo x >> $'sub\\xff/.vscode/settings.json'; echo ran", run, "a",
                    Duration.ofSeconds(60));
            assertFalse(r.stdout().contains("ran"), "nothing runs: " + r.stdout());
            assertEquals(127, r.exitCode(), r.stderr());
            assertTrue(r.stderr().contains("not valid UTF-8") && r.stderr().contains("rename it"), r.stderr());
            assertEquals("{}\n", TestEngine.host(ws, "cat $'sub\\xff/.vscode/settings.json'"),
                    "the human's file is untouched");
            // the human renames it: commands run again, and the file is protected under its new name
            TestEngine.host(ws, "mv $'sub\\xff' sub-ff");
            var after = TestEngine.bash(sb, ws, "echo x >> sub-ff/.vscode/settings.json; echo ran", run, "b",
                    Duration.ofSeconds(60));
            assertTrue(after.stdout().contains("ran"), after.stdout() + after.stderr());
            assertEquals("{}\n", Files.readString(ws.resolve("sub-ff/.vscode/settings.json")), "written: "
                    + after.stderr() + after.violations());
        }
    }

    /** A protected link whose target's name is not valid UTF-8: its target is protected by name, so the same holds. */
    @Test
    void aProtectedLinkToSuchANameStopsCommandsToo() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws3")).toRealPath();
        TestEngine.host(ws, "mkdir conf && echo 'S=1' > $'conf/prod\\xff.env' && ln -s $'conf/prod\\xff.env' .env");
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            var r = TestEngine.bash(sb, ws, "echo pwn >> .env; echo pwn >> $'conf/prod\\xff.env'; echo ran",
                    "run-" + UUID.randomUUID(), "a", Duration.ofSeconds(60));
            assertEquals("S=1\n", TestEngine.host(ws, "cat $'conf/prod\\xff.env'"), "the target was written: "
                    + r.stdout() + r.stderr() + r.violations());
            assertFalse(r.stdout().contains("ran"), "nothing runs: " + r.stdout());
            assertTrue(r.stderr().contains("not valid UTF-8"), r.stderr());
        }
    }

    @Test
    void aProtectedFileTheAgentMakesBelowSuchANameIsQuarantined() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        try (TestEngine.Warm warm = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = warm.sandbox();
            String run = "run-" + UUID.randomUUID();
            var r = TestEngine.bash(sb, ws, "mkdir -p $'x\\xfe/.vscode' && echo pwn > $'x\\xfe/.vscode/tasks.json'; "
                    + "echo made", run, "a", Duration.ofSeconds(60));
            assertTrue(r.stdout().contains("made"), r.stdout() + r.stderr());
            assertEquals("absent\n",
                    TestEngine.host(ws, "test -e $'x\\xfe/.vscode/tasks.json' && echo present || echo absent"),
                    "left on the host: " + r.violations());
            assertTrue(r.violations().stream().anyMatch(v -> v.reason() != null && v.reason().contains("moved to")),
                    r.violations().toString());
            var next = TestEngine.bash(sb, ws, "echo ran", run, "b", Duration.ofSeconds(60));
            assertEquals(0, next.exitCode(), next.stderr());
        }
    }
}
