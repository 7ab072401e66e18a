package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.ControlEndpoint;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The playbook's step 6 through the real commands: {@code start} spawns a separate instance process that proves the
 * real engine; {@code status} (another invocation, talking to it over the control socket) shows the sandbox block;
 * a second {@code start} finds it; {@code stop} ends it.
 */
class InstanceCommandsTest {
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

    CliHarness.Result run(String... args) {
        return CliHarness.run(ws, Map.of(), args);
    }

    @Test
    void startStatusStopAgainstTheRealEngine() throws Exception {
        previousCache = System.getProperty("monoagent.cacheDir");
        System.setProperty("monoagent.cacheDir", TestEngine.env().cacheRoot().toString());
        assertEquals(0, run("init", "--model", "openai:gpt-5", "--preset", "code-sandbox").exit());

        CliHarness.Result started = run("start", "--headless");
        assertEquals(0, started.exit(), started.out() + started.err());
        assertTrue(started.out().contains("Started mono-agent for " + ws), started.out() + "\nERR:" + started.err());

        // right after start, while the instance is still proving the engine: the call waits for it (no deadlock);
        // separate `tools call` invocations with one run id share that run's NodeRepl through the instance
        CliHarness.Result def = run("tools", "call", "NodeRepl", "{\"code\":\"const n = 40\"}", "--run-id", "r1",
                "--json");
        assertEquals(0, def.exit(), def.out() + def.err());
        assertTrue(def.out().contains("\"type\":\"ToolCallFinished\""), def.out());
        assertFalse(def.err().contains("running this call in a fresh run here"), def.err());
        String status = "";
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            status = run("status").out();
            if (status.contains("effective: native")) {
                break;
            }
            Thread.sleep(250);
        }
        assertTrue(status.contains("instance\n  config: " + ws.resolve(ConfigLoader.CONFIG_FILE)), status);
        assertTrue(status.contains("state: running (pid "), status);
        assertTrue(status.contains("sandbox\n  effective: native\n  engine: srt (present)\n  fallback: fail-closed\n"
                + "  fallback active: no"), status);
        assertTrue(status.contains("process jobs\n  disabled"), status);
        assertTrue(status.contains("runs health\n"), status);

        CliHarness.Result use = run("tools", "call", "NodeRepl", "--args", "{\"code\":\"n + 2\"}", "--run-id", "r1");
        assertEquals("42", use.out().strip(), use.out() + use.err());
        CliHarness.Result fresh = run("tools", "call", "NodeRepl", "{\"code\":\"typeof n\"}", "--run-id", "r2");
        assertTrue(fresh.out().contains("'undefined'"), fresh.out());
        CliHarness.Result denied = run("tools", "call", "Bash", "{\"command\":\"echo x >> .env\"}", "--run-id", "r1",
                "--json");
        assertTrue(denied.out().contains("\"kind\":\"write\""), denied.out());
        assertTrue(!Files.exists(ws.resolve(".env")) || Files.readString(ws.resolve(".env")).isEmpty());

        // commands through the instance run under the per-command limits (else a fork bomb through it is
        // unbounded): the command's own pids group, with its cap, is what /proc/self/cgroup names
        Files.writeString(ws.resolve("limits.sh"), """
                awk -F: '$2 ~ /(^|,)pids(,|$)/ {print "/sys/fs/cgroup/pids" $3} $1 == "0" {print "/sys/fs/cgroup" $3}' \
                  /proc/self/cgroup | while read -r d; do [ -f "$d/pids.max" ] && echo "pids.max=$(cat "$d/pids.max") in $d"; done
                """);
        CliHarness.Result lim = run("tools", "call", "Bash", "{\"command\":\"bash limits.sh\"}", "--run-id", "r1");
        assertTrue(lim.out().contains("pids.max=1024 in ") && lim.out().contains("mono-agent-"),
                lim.out() + lim.err());
        // and the instance's NodeRepl does not run between calls (timers armed through the instance stay frozen)
        CliHarness.Result tick = run("tools", "call", "NodeRepl", "{\"code\":\"setInterval(() => require('fs')"
                + ".appendFileSync('tick.txt', 'x'), 20); 'ticking'\"}", "--run-id", "r1");
        assertTrue(tick.out().contains("'ticking'"), tick.out() + tick.err());
        Thread.sleep(300);
        long ticks = Files.exists(ws.resolve("tick.txt")) ? Files.size(ws.resolve("tick.txt")) : 0;
        Thread.sleep(700);
        assertEquals(ticks, Files.exists(ws.resolve("tick.txt")) ? Files.size(ws.resolve("tick.txt")) : 0,
                "the instance's REPL ran between calls");

        // the agent's sandbox must not reach the control socket: try to stop the instance through it three ways
        Files.writeString(ws.resolve("probe.sh"), "sock='" + ControlEndpoint.socketPath(ws) + "'\n" + """
                echo '{"op":"stop"}' | socat - UNIX-CONNECT:$sock; echo "socat=$?"
                /usr/bin/node -e 'require("net").connect(process.argv[1])
                  .on("error", e => console.log("node=" + e.code))
                  .on("connect", function () { this.end("{\\"op\\":\\"stop\\"}\\n"); console.log("node=connected"); })' $sock
                /usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\\"op\\":\\"stop\\"}\\n")' $sock
                echo "python=$?"
                """);
        CliHarness.Result viaSandbox = run("tools", "call", "Bash", "{\"command\":\"bash probe.sh\"}", "--run-id", "r1");
        assertTrue(viaSandbox.out().contains("socat=1"), viaSandbox.out() + viaSandbox.err());
        assertTrue(viaSandbox.out().contains("python=1"), viaSandbox.out());
        assertTrue(viaSandbox.out().contains("node=E"), viaSandbox.out());
        assertFalse(viaSandbox.out().contains("node=connected"), viaSandbox.out());
        Thread.sleep(500);
        assertTrue(run("status").out().contains("state: running (pid "), "the instance must survive the attempts");

        // `sandbox check` revives a running instance whose engine died (proving a separate engine would leave the
        // instance broken until a restart)
        long instancePid = Long.parseLong(status.replaceAll("(?s).*state: running \\(pid (\\d+).*", "$1"));
        List<ProcessHandle> bridges = ProcessHandle.of(instancePid).orElseThrow().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("--input-type=module")).toList();
        assertFalse(bridges.isEmpty(), "the instance's srt bridge process");
        bridges.forEach(ProcessHandle::destroyForcibly);
        Thread.sleep(500);
        CliHarness.Result broken = run("tools", "call", "Bash", "{\"command\":\"echo alive\"}", "--run-id", "r3");
        assertFalse(broken.out().contains("alive"), broken.out() + broken.err());
        CliHarness.Result check = run("sandbox", "check");
        assertEquals(0, check.exit(), check.out() + check.err());
        assertTrue(check.out().contains("Re-checked the running instance (pid " + instancePid + ")"), check.out());
        CliHarness.Result revived = run("tools", "call", "Bash", "{\"command\":\"echo alive\"}", "--run-id", "r3");
        assertTrue(revived.out().startsWith("alive"), revived.out() + revived.err());

        CliHarness.Result again = run("start", "--headless");
        assertEquals(0, again.exit());
        assertTrue(again.out().contains("Already running for " + ws), again.out());

        CliHarness.Result stopped = run("stop");
        assertEquals(0, stopped.exit(), stopped.err());
        assertTrue(stopped.out().startsWith("Stopped instance pid "), stopped.out());
        assertTrue(run("status").out().contains("state: stopped"));
        assertTrue(Files.isRegularFile(ws.resolve(".mono-agent/logs/instance.log")));
        CliHarness.Result logs = run("logs", "--lines", "5");
        assertEquals(0, logs.exit(), logs.err());
        assertTrue(logs.out().contains("headless instance serving " + ControlEndpoint.socketPath(ws)),
                logs.out());
        assertTrue(logs.out().lines().count() <= 5, logs.out());
    }

    /**
     * Runs served by the instance have no end of their own ({@code tools call}s with one run id): {@code stop} ends
     * them as stopped, so {@code runs list} and {@code runs show} do not show them as crashed ("incomplete").
     */
    @Test
    void stopEndsTheRunsTheInstanceServedAsStopped() throws Exception {
        previousCache = System.getProperty("monoagent.cacheDir");
        System.setProperty("monoagent.cacheDir", TestEngine.env().cacheRoot().toString());
        assertEquals(0, run("init", "--model", "openai:gpt-5", "--preset", "code-sandbox").exit());
        CliHarness.Result started = run("start", "--headless");
        assertEquals(0, started.exit(), started.out() + started.err());
        CliHarness.Result bash = run("tools", "call", "Bash", "{\"command\":\"true\"}", "--run-id", "s1");
        assertEquals(0, bash.exit(), bash.out() + bash.err());
        CliHarness.Result repl = run("tools", "call", "NodeRepl", "{\"code\":\"1 + 1\"}", "--run-id", "s2");
        assertEquals(0, repl.exit(), repl.out() + repl.err());
        assertFalse(repl.err().contains("running this call in a fresh run here"), repl.err());
        CliHarness.Result before = run("runs", "list", "--json");
        assertTrue(before.out().contains("\"status\":\"incomplete\""), "open while the instance runs: " + before.out());

        assertEquals(0, run("stop").exit());

        com.fasterxml.jackson.databind.JsonNode list = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(run("runs", "list", "--json").out());
        Map<String, String> status = new java.util.TreeMap<>();
        list.forEach(n -> status.put(n.path("runId").asText(), n.path("status").asText()));
        assertEquals(Map.of("s1", "stopped", "s2", "stopped"), status, list.toString());
        CliHarness.Result show = run("runs", "show", "s2");
        assertEquals(0, show.exit(), show.err());
        assertTrue(show.out().startsWith("Run s2 (stopped)"), show.out());
        assertTrue(show.out().contains("run finished: stopped"), show.out());
    }

    @Test
    void startNeedsAConfigAndRefusesErrors() throws Exception {
        CliHarness.Result none = run("start", "--headless");
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("No config file at " + ws.resolve(ConfigLoader.CONFIG_FILE)), none.err());
        // a config error refuses (a missing model only waits: the window is useful without one)
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"sandbox\":{\"fallback\":\"unsafe-host-process\"}}");
        CliHarness.Result broken = run("start", "--headless");
        assertEquals(1, broken.exit());
        assertTrue(broken.err().contains("unsafeAllowHostProcess is not true"), broken.err());
        assertTrue(run("status").out().contains("state: stopped"));
        assertEquals(2, run("start", "--headless", "--window").exit());
    }

    @Test
    void statusWorksOnABrokenConfig() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"sandbox\":{\"fallbak\":1}}");
        CliHarness.Result r = run("status");
        assertEquals(1, r.exit(), "a config that does not load is an error, and status still prints what it can");
        assertTrue(r.out().contains("state: stopped"), r.out());
        assertTrue(r.out().contains("config error: sandbox has unknown key: fallbak."), r.out());
        assertTrue(r.out().contains("sandbox\n  unknown: the config could not be loaded"), r.out());
    }
}
