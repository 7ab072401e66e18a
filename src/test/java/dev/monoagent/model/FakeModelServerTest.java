package dev.monoagent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fixture itself: it must refuse what real providers refuse, so loop tests cannot pass on a broken history. */
class FakeModelServerTest {

    @Test
    void pairedHistoriesPassInEveryShape() {
        assertNull(FakeModelServer.unpairedToolItems("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"c1\"},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c1\"}]}"));
        assertNull(FakeModelServer.unpairedToolItems("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"},"
                + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\"}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\"}]}"));
        assertNull(FakeModelServer.unpairedToolItems("{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":"
                + "\"tool_use\",\"id\":\"t1\"}]},{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                + "\"tool_use_id\":\"t1\"}]}]}"));
    }

    @Test
    void unpairedHistoriesAreRefused() {
        assertTrue(FakeModelServer.unpairedToolItems("{\"input\":[{\"type\":\"function_call_output\",\"call_id\":"
                + "\"c9\"}]}").contains("c9"));
        assertTrue(FakeModelServer.unpairedToolItems("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"c1\"}]}")
                .contains("c1"));
        assertTrue(FakeModelServer.unpairedToolItems("{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":"
                + "\"tool_use\",\"id\":\"t1\"}]},{\"role\":\"assistant\",\"content\":\"more\"}]}").contains("t1"));
    }

    @Test
    void aClientSendingABrokenHistoryGetsTheProviders400() {
        try (FakeModelServer server = FakeModelServer.start()) {
            server.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.text("never served")));
            ModelClient c = ResponsesClient.withApiKey("openai", server.baseUrl() + "/v1", Turns.FAST,
                    Duration.ofSeconds(90), "k", "OPENAI_API_KEY");
            Turns.Run r = Turns.run(c, new ModelRequest("m", "s", List.of(new Item.UserText("x"),
                    new Item.ToolOutput("ghost", "out", false)), List.of(), null));
            assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
            assertTrue(r.failed().message().contains("ghost"), r.failed().message());
            assertEquals(1, server.pending(), "the scripted reply was not consumed");
        }
    }
}
