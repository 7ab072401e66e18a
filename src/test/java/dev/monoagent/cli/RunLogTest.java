package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.Violation;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One event protocol end to end: {@code sandbox run --json} prints the run's events as JSON lines, the run log under
 * {@code .mono-agent/runs/<runId>/events.jsonl} holds the same events after its header, and one reader
 * ({@link EventJson#read}) parses both. The write to {@code .env} is refused and the refusal carries the call id.
 */
class RunLogTest {
    @TempDir
    Path tmp;

    @Test
    void sandboxRunJsonAndTheRunLogCarryTheSameEventsIncludingTheViolation() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"}}");
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        HostEnv shared = TestEngine.env();
        Map<String, String> env = new HashMap<>();
        env.put("PATH", shared.path());
        env.put("MONO_AGENT_CACHE_DIR", shared.cacheRoot().toString());

        CliHarness.Result r = CliHarness.run(ws, env, "sandbox", "run", "--json", "--", "bash", "-c",
                "echo x >> .env");
        assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")), "the secret must be untouched");
        List<Event> printed = r.out().lines().map(EventJson::read).toList();
        Event.ToolCallFinished finished = (Event.ToolCallFinished) printed.stream()
                .filter(e -> e instanceof Event.ToolCallFinished).findFirst().orElseThrow(() ->
                        new AssertionError(r.out() + r.err()));
        assertTrue(finished.data().path("exitCode").asInt() != 0, r.out());
        Violation v = printed.stream().filter(e -> e instanceof Event.ViolationObserved)
                .map(e -> ((Event.ViolationObserved) e).violation()).findFirst()
                .orElseThrow(() -> new AssertionError("no violation event: " + r.out() + r.err()));
        assertEquals(Violation.Kind.WRITE, v.kind());
        assertEquals(finished.callId(), v.callId());
        assertTrue(v.target().endsWith(".env"), v.target());

        String runId = finished.runId();
        Path log = ws.resolve(".mono-agent/runs").resolve(runId).resolve("events.jsonl");
        assertTrue(Files.isRegularFile(log), "no run log at " + log);
        List<Event> logged;
        try (Stream<String> lines = Files.lines(log)) {
            logged = lines.map(EventJson::read).toList();
        }
        Event.RunHeader header = assertInstanceOf(Event.RunHeader.class, logged.get(0));
        assertEquals(runId, header.runId());
        assertEquals(ws.toString(), header.policy().get("workspace"));
        assertEquals("0.0.78", header.engine().version());
        assertEquals("managed", header.engine().source());
        assertNotNull(header.engine().digest());
        assertTrue(header.lastCheck().passed());
        // what --json printed is exactly what the log holds after its header (records compare by value)
        assertEquals(printed, logged.subList(1, logged.size()));
        Event.RunFinished end = assertInstanceOf(Event.RunFinished.class, logged.get(logged.size() - 1));
        assertEquals(RunStatus.COMPLETED, end.status());
        assertFalse(r.err().contains("Exception"), r.err());
    }
}
