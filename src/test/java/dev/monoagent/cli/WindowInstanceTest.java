package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.InstanceLauncher;
import dev.monoagent.sandbox.TestEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window instance serves the control endpoint exactly like the headless one, because both build the same
 * {@code AgentService}: {@code start --window} spawns the workbench (under the headless Monocle toolkit the build
 * configures) and lists the workspace first among the start page's recent workspaces (in the reviewer's config dir),
 * two {@code tools call NodeRepl … --run-id r1} invocations from separate processes share that run's REPL in the
 * window's process, and {@code stop} ends it.
 */
class WindowInstanceTest {
    @TempDir
    Path ws;

    String previousCache;

    @AfterEach
    void cleanup() {
        CliHarness.run(ws, Map.of(), "stop");
        if (previousCache == null) {
            System.clearProperty("monoagent.cacheDir");
        } else {
            System.setProperty("monoagent.cacheDir", previousCache);
        }
    }

    private CliHarness.Result run(String... args) {
        return CliHarness.run(ws, Map.of(), args);
    }

    /** A {@code mono-agent} invocation in its own JVM (what a second terminal does). */
    private String separateProcess(String... args) throws Exception {
        List<String> argv = new ArrayList<>(InstanceLauncher.relaunchCommand("dev.monoagent.cli.Main", List.of(args)));
        Path err = java.nio.file.Files.createTempFile("cli-err", ".txt");
        Process p = new ProcessBuilder(argv).directory(ws.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the CLI process hung");
        String errText = java.nio.file.Files.readString(err);
        java.nio.file.Files.delete(err);
        assertEquals(0, p.exitValue(), out + errText);
        assertTrue(!errText.contains("fresh run here"), "the call must reach the instance: " + errText);
        return out;
    }

    @Test
    void windowInstanceServesToolCallsAndStops() throws Exception {
        previousCache = System.getProperty("monoagent.cacheDir");
        System.setProperty("monoagent.cacheDir", TestEngine.env().cacheRoot().toString());
        assertEquals(0, run("init", "--model", "openai:gpt-5", "--preset", "code-sandbox").exit());

        CliHarness.Result started = run("start", "--window");
        assertEquals(0, started.exit(), started.out() + started.err());
        assertTrue(started.out().contains("Started mono-agent for " + ws), started.out() + "\nERR:" + started.err());
        assertTrue(run("status").out().contains(", window, since "), "the instance must be the window");
        // opened from the terminal, listed on the start page all the same: in the reviewer's config dir only
        Path userConfig = dev.monoagent.agent.UserDirs.configDir(Map.of("MONO_AGENT_CONFIG_DIR",
                System.getenv("MONO_AGENT_CONFIG_DIR")));
        assertEquals(ws.toRealPath(), new dev.monoagent.agent.RecentWorkspaces(userConfig).list().get(0).toRealPath(),
                "the window's workspace leads the recent list in " + userConfig);
        try (var files = java.nio.file.Files.walk(ws)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("recent-workspaces")),
                    "nothing of the recent list in the workspace");
        }

        separateProcess("tools", "call", "NodeRepl", "{\"code\":\"const n = 40\"}", "--run-id", "r1");
        String use = separateProcess("tools", "call", "NodeRepl", "{\"code\":\"n + 2\"}", "--run-id", "r1");
        assertEquals("42", use.strip(), use);
        // the window reports the engine's own state in the contract's words (the same block as a headless instance)
        String status = run("status").out();
        assertTrue(status.contains("sandbox\n  effective: native\n  engine: srt (present)\n  fallback: fail-closed\n"
                + "  fallback active: no"), status);

        CliHarness.Result stopped = run("stop");
        assertEquals(0, stopped.exit(), stopped.err());
        assertTrue(stopped.out().startsWith("Stopped instance pid "), stopped.out());
        assertTrue(run("status").out().contains("state: stopped"));
    }
}
