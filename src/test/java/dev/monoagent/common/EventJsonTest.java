package dev.monoagent.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventJsonTest {
    @Test
    void eventLineCarriesTypeAndAllComponents() throws Exception {
        Instant t = Instant.parse("2026-11-29T10:00:00Z");
        Violation v = new Violation(t, Violation.Tier.OBSERVED, Violation.Kind.WRITE, "r1", "c1", "Bash",
                "echo x >> .env", "/ws/.env", "write denied by policy");
        JsonNode n = EventJson.mapper().readTree(EventJson.line(new Event.ViolationObserved(t, v)));
        assertEquals("ViolationObserved", n.get("type").asText());
        assertEquals("2026-11-29T10:00:00Z", n.get("time").asText());
        assertEquals("observed", n.at("/violation/tier").asText());
        assertEquals("write", n.at("/violation/kind").asText());
        assertEquals("c1", n.at("/violation/callId").asText());
        assertEquals("/ws/.env", n.at("/violation/target").asText());
    }

    @Test
    void plainValuesSerialiseWithoutType() throws Exception {
        JsonNode n = EventJson.mapper().readTree(EventJson.line(new ProbeResult("engine", true, "SRT initialized.", 12)));
        assertEquals("engine", n.get("id").asText());
        assertEquals(true, n.get("passed").asBoolean());
        assertEquals(null, n.get("type"));
    }

    @Test
    void everyEventTypeReadsBackAsItWasWritten() {
        Instant t = Instant.parse("2026-11-29T10:00:00.123456Z");
        Violation v = new Violation(t, Violation.Tier.DETECTED, Violation.Kind.NETWORK, "r1", "c1", "Bash", "curl x",
                "example.org:443", "blocked by the proxy");
        ProbeResult p = new ProbeResult("engine", true, "SRT initialized.", 12);
        java.util.List<Event> all = java.util.List.of(
                new Event.RunStarted(t, "r1", "/ws"),
                new Event.RunHeader(t, "r1", java.util.Map.of("mode", "native", "readableRoots", java.util.List.of("/ws")),
                        new Event.EngineFingerprint("0.0.78", "abc", "managed"), new Event.LastCheck(true, t)),
                new Event.UserMessage(t, "r1", "hi"),
                new Event.AssistantDelta(t, "r1", "he"),
                new Event.ReasoningDelta(t, "r1", "think"),
                new Event.ToolCallStarted(t, "r1", "c1", "Bash", "{\"command\":\"ls\"}"),
                new Event.ToolOutput(t, "r1", "c1", "a\n"),
                new Event.ToolCallFinished(t, "r1", "c1", "Bash", ToolOutcome.SANDBOX_PREPARE_FAILED, "no", null, 3),
                new Event.ToolCallFinished(t, "r1", "c2", "Bash", ToolOutcome.OK, "",
                        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("exitCode", 7), 3),
                new Event.ViolationObserved(t, v),
                new Event.SandboxStateChanged(t, Effective.BLOCKED, "sandbox_unavailable: gone"),
                new Event.NetworkAllowed(t, "r1", "c1", "Bash", "curl http://127.0.0.1:5432/", "127.0.0.1", 5432,
                        "postgres (pid 77)"),
                new Event.SelfCheckStarted(t, "check-1"),
                new Event.ProbeFinished(t, "check-1", p),
                new Event.SelfCheckFinished(t, "check-1", true, java.util.List.of(p)),
                new Event.MemoryRecalled(t, "r1", 3, 120, "hybrid", null, java.util.List.of("daily/2026-11-30.md:12")),
                new Event.PolicyChanged(t, "/ws", java.util.List.of("sandbox.network.mode: none -> all"), true, false,
                        "refused"),
                new Event.AgentRunStarted(t, "r1", "conv-1", true, "openai", "gpt-5", 50),
                new Event.ModelCallFinished(t, "r1", 2, "openai", "gpt-5", "tool_use", 100, 20, 30, 5, 1, 12, 340),
                new Event.ModelRetrying(t, "r1", 2, 2, 1000, "HTTP 429"),
                new Event.AssistantMessage(t, "r1", "done", true),
                new Event.ContextElided(t, "r1", 3, 120000, 60000, 112000),
                new Event.RunFailed(t, "r1", "cancelled", "stopped by the user"),
                new Event.RunFinished(t, "r1", RunStatus.CANCELLED));
        java.util.Set<Class<?>> covered = new java.util.HashSet<>();
        for (Event e : all) {
            assertEquals(e, EventJson.read(EventJson.line(e)), EventJson.line(e));
            covered.add(e.getClass());
        }
        assertEquals(java.util.Set.of(Event.class.getPermittedSubclasses()), covered, "every event type is covered");
        assertEquals("exit 7", all.stream().filter(e -> e instanceof Event.ToolCallFinished f
                && f.outcome() == dev.monoagent.common.ToolOutcome.OK).map(e -> ((Event.ToolCallFinished) e)
                .statusWord()).findFirst().orElseThrow());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> EventJson.read("{\"type\":\"Nope\"}"));
    }
}
