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
}
