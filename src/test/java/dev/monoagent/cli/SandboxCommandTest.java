package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.sandbox.HostEnv;
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
     * Issue 9, item 1 (defence in depth): after the agent (or anyone) weakens the config, sandbox run refuses,
     * naming each widening and the flag; nothing runs; the refusal and the later acceptance are logged events.
     */
    @Test
    void weakerPolicyThanAcceptedIsRefusedUntilAccepted() throws Exception {
        CliHarness.Result first = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertEquals(0, first.exit(), first.err());
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"mode\":\"off\",\"network\":{\"mode\":\"all\"},\"writableRoots\":[\".\",\"/tmp\"],"
                + "\"denyWrite\":[\"x\"]}}");
        Path marker = tmp.resolve("ran-on-host");
        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "run", "--", "touch", marker.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertFalse(Files.exists(marker), "a weaker policy was applied without confirmation");
        for (String s : List.of("[sandbox_policy_weaker]", "sandbox.mode: native -> off",
                "sandbox.network.mode: localhost -> all", "sandbox.writableRoots: adds /tmp",
                "sandbox.denyWrite: no longer protects .env.*", "--accept-policy-change")) {
            assertTrue(r.err().contains(s), s + " in: " + r.err());
        }
        CliHarness.Result again = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertEquals(1, again.exit(), "still refused on the next call: " + again.err());
        try {
            CliHarness.Result start = CliHarness.run(ws, env, "start", "--headless");
            assertEquals(1, start.exit(), "start must refuse the weaker policy: " + start.out() + start.err());
            assertTrue(start.err().contains("[sandbox_policy_weaker]") && start.err().contains("--accept-policy-change"),
                    start.err());
        } finally {
            CliHarness.run(ws, env, "stop");
        }
        CliHarness.Result ok = CliHarness.run(ws, env, "sandbox", "run", "--accept-policy-change", "--", "true");
        assertEquals(0, ok.exit(), ok.err());
        CliHarness.Result after = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertEquals(0, after.exit(), "accepted once, then the new baseline: " + after.err());
        String log = Files.readString(ws.resolve(".mono-agent/policy-changes.jsonl"));
        assertTrue(log.contains("\"type\":\"PolicyChanged\"") && log.contains("\"applied\":false")
                && log.contains("\"by\":\"--accept-policy-change\""), log);
    }

    /**
     * Issue 9 (after the attack): dropping {@code sandbox.network.localhostPorts} grants every host loopback listener,
     * and adding a port grants that one: both are refused like any other widening, with the difference and the flag.
     */
    @Test
    void removingOrWideningLocalhostPortsIsAWeakerPolicy() throws Exception {
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"network\":{\"mode\":\"localhost\",\"localhostPorts\":[5432]}}}");
        CliHarness.Result first = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertEquals(0, first.exit(), first.err());
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"network\":{\"mode\":\"localhost\",\"localhostPorts\":[5432,9229]}}}");
        CliHarness.Result more = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertEquals(1, more.exit(), "a new granted port was applied without confirmation: " + more.err());
        assertTrue(more.err().contains("sandbox.network.localhostPorts: adds 9229")
                && more.err().contains("--accept-policy-change"), more.err());
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"network\":{\"mode\":\"localhost\"}}}");
        CliHarness.Result all = CliHarness.run(ws, env, "sandbox", "run", "--", "true");
        assertEquals(1, all.exit(), "dropping localhostPorts was applied without confirmation: " + all.err());
        assertTrue(all.err().contains("[sandbox_policy_weaker]") && all.err().contains(
                "sandbox.network.localhostPorts: no longer narrowed (every host loopback listener is granted)"),
                all.err());
        String log = Files.readString(ws.resolve(".mono-agent/policy-changes.jsonl"));
        assertTrue(log.contains("localhostPorts: no longer narrowed") && log.contains("\"applied\":false"), log);
    }
}
