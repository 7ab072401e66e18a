package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxCommandTest {
    @TempDir
    Path tmp;
    Path ws;
    Map<String, String> env;

    @BeforeEach
    void workspace() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"network\":{\"mode\":\"localhost\"}}}");
        HostEnv shared = TestEngine.env();
        env = new HashMap<>();
        env.put("PATH", shared.path());
        env.put("MONO_AGENT_CACHE_DIR", shared.cacheRoot().toString());
    }

    @Test
    void statusIsCheapAndNamesTheManagedInstall() {
        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "status");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Source: managed"), r.out());
        assertTrue(r.out().contains("Install root: " + TestEngine.env().cacheRoot()), r.out());
        assertTrue(r.out().contains("engine: srt (present)"), r.out());
    }

    @Test
    void checkPrintsOneLinePerProbeAndReportsReady() {
        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "check");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("[ok]   engine: SRT initialized."), r.out());
        assertTrue(r.out().contains("[ok]   outside-write-denied: Outside write denied."), r.out());
        assertTrue(r.out().contains("State: ready"), r.out());
        assertTrue(r.out().contains("Managed SRT 0.0.78 is integrity-verified."), r.out());
        CliHarness.Result s = CliHarness.run(ws, env, "sandbox", "status");
        assertTrue(s.out().contains("State: ready"), s.out());
    }

    @Test
    void runKeepsTheCommandsExitCodeAndOutput() {
        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "run", "--", "bash", "-c", "echo hi; exit 7");
        assertEquals(7, r.exit(), r.err());
        assertEquals("hi\n", r.out());
    }

    @Test
    void runWithoutCommandIsUsage() {
        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "run");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("[sandbox_usage]"), r.err());
    }

    @Test
    void runFailsClosedWithoutAnEngine() throws Exception {
        Map<String, String> bare = new HashMap<>(env);
        bare.put("MONO_AGENT_CACHE_DIR", tmp.resolve("empty-cache").toString());
        Path marker = tmp.resolve("marker");
        CliHarness.Result r = CliHarness.run(ws, bare, "sandbox", "run", "--", "touch", marker.toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("Error: Sandbox engine is unavailable and policy is fail-closed."), r.err());
        assertTrue(r.err().contains("[sandbox_check_failed]"), r.err());
        assertTrue(!Files.exists(marker));
    }

    /**
     * A workspace config that switches the sandbox off and widens it is not applied on its own: the command runs
     * sandboxed (judged by the host: the marker outside the workspace is not created) and stderr says what was
     * ignored and how to accept it; accepted with the flag, it applies and every run says the sandbox is off.
     */
    @Test
    void aWorkspaceConfigCannotSwitchTheSandboxOffUntilTheReviewerAccepts() throws Exception {
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"mode\":\"off\",\"network\":{\"mode\":\"all\"},\"writableRoots\":[\".\",\"/tmp\"],"
                + "\"denyWrite\":[\"x\"]}}");
        Path marker = tmp.resolve("ran-on-host");
        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "run", "--", "touch", marker.toString());
        assertFalse(Files.exists(marker), "the workspace's sandbox.mode off was applied: " + r.err());
        for (String s : List.of("Ignored from the workspace until you accept it", "sandbox.mode=off",
                "mono-agent trust")) {
            assertTrue(r.err().contains(s), s + " in: " + r.err());
        }
        CliHarness.Result ok = CliHarness.run(ws, env, "sandbox", "run", "--accept-policy-change", "--", "touch",
                marker.toString());
        assertEquals(0, ok.exit(), ok.err());
        assertTrue(Files.exists(marker), "accepted: the reviewer's choice applies");
        assertTrue(ok.err().contains("sandbox.mode = off (from mono-agent.config.json")
                && ok.err().contains("WARNING: sandbox weaker than the playbook's: the sandbox is OFF"), ok.err());
        CliHarness.Result after = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertTrue(after.err().contains("the sandbox is OFF") && !after.err().contains("Ignored from"), after.err());
    }
}
