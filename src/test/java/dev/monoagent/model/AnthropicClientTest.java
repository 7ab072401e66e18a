package dev.monoagent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@code anthropic} client against a local server speaking the Messages stream byte for byte. */
class AnthropicClientTest {
    final FakeModelServer server = FakeModelServer.start();
    final ModelClient client = new AnthropicClient("anthropic", server.baseUrl(), Turns.FAST, Duration.ofSeconds(90),
            "sk-ant-test", "ANTHROPIC_API_KEY", 4096);

    @AfterEach
    void stop() {
        server.close();
    }

    /** See ResponsesClientTest#firstEventOnLoopbackIsNotHeldByDelayedAck. */
    @Test
    void firstEventOnLoopbackIsNotHeldByDelayedAck() {
        Reply reply = Reply.sse(Scripts.anthropic().text("Hel", "lo").stop("end_turn", 9).build());
        double median = Turns.firstEventMedianMs(client, server, reply, 7, 24_000);
        assertTrue(median <= Turns.LOOPBACK_FIRST_EVENT_MS, "median first event " + median + " ms on loopback");
    }

    @Test
    void streamsTextWithPingsAndSendsTheMessagesShape() {
        server.enqueue(Reply.sse(Scripts.anthropic().ping().text("Hel", "lo").ping().stop("end_turn", 9).build()));
        Turns.Run r = Turns.run(client, Turns.ask("hi"));
        assertEquals("Hello", r.text());
        assertEquals("stop", r.completed().stop());
        assertTrue(r.events().contains(new ModelEvent.Usage(15, 3, 9, 0)), r.events().toString());

        FakeModelServer.Recorded req = server.request(0);
        assertEquals("/v1/messages", req.path());
        // The SDK picks how the key travels (x-api-key, or a bearer in newer releases) and the API version.
        assertTrue("sk-ant-test".equals(req.header("x-api-key"))
                || "Bearer sk-ant-test".equals(req.header("authorization")), req.headers().toString());
        assertTrue(req.header("anthropic-version") != null, "anthropic-version is sent");
        assertNull(req.header(HttpCalls.TAG));
        JsonNode body = req.json();
        assertEquals("gpt-test", body.path("model").asText());
        assertEquals(4096, body.path("max_tokens").asInt());
        assertTrue(body.path("stream").asBoolean());
        assertEquals("You are a test.", body.path("system").asText());
        assertEquals("user", body.at("/messages/0/role").asText());
        assertEquals("hi", body.at("/messages/0/content/0/text").asText());
        assertEquals("Read", body.at("/tools/0/name").asText());
        assertEquals("object", body.at("/tools/0/input_schema/type").asText());
    }

    @Test
    void toolInputSplitAcrossDeltasAndTwoParallelCalls() {
        server.enqueue(Reply.sse(Scripts.anthropic().text("Reading both.")
                .toolUse("toolu_1", "Read", "{\"path\":", "\"a\"}")
                .toolUse("toolu_2", "Read", "{\"pa", "th\":\"b\"}").stop("tool_use", 30).build()).inChunksOf(5));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(List.of(new ModelEvent.ToolCall("toolu_1", "Read", "{\"path\":\"a\"}"),
                new ModelEvent.ToolCall("toolu_2", "Read", "{\"path\":\"b\"}")), r.toolCalls());
        assertEquals("tool_use", r.completed().stop());
    }

    @Test
    void multiStepLoopSendsToolResultsRightAfterToolUse() {
        server.enqueue(Reply.sse(Scripts.anthropic().thinking("sig-xyz", "Need ", "the file")
                .toolUse("toolu_1", "Read", "{\"path\":\"a\"}").stop("tool_use", 5).build()));
        server.enqueue(Reply.sse(Scripts.anthropic().text("It says hi.").stop("end_turn", 4).build()));
        ModelRequest first = Turns.ask("what is in a?");
        Turns.Run r1 = Turns.run(client, first);
        assertEquals("Need the file", r1.reasoning());
        List<Item> history = new ArrayList<>(first.input());
        history.addAll(r1.completed().output());
        history.add(new Item.ToolOutput("toolu_1", "hi", false));
        Turns.Run r2 = Turns.run(client, new ModelRequest("gpt-test", "s", history, first.tools(), "sess-1"));
        assertEquals("It says hi.", r2.text());

        JsonNode msgs = server.request(1).json().path("messages");
        assertEquals(3, msgs.size(), msgs.toString());
        assertEquals("assistant", msgs.at("/1/role").asText());
        assertEquals("thinking", msgs.at("/1/content/0/type").asText());
        assertEquals("sig-xyz", msgs.at("/1/content/0/signature").asText(), "thinking is replayed with its signature");
        assertEquals("tool_use", msgs.at("/1/content/1/type").asText());
        assertEquals("a", msgs.at("/1/content/1/input/path").asText());
        assertEquals("user", msgs.at("/2/role").asText());
        assertEquals("tool_result", msgs.at("/2/content/0/type").asText());
        assertEquals("toolu_1", msgs.at("/2/content/0/tool_use_id").asText());
    }

    @Test
    void overloadedErrorEventAfter200IsRetried() {
        server.enqueue(Reply.sse(Scripts.anthropic().text("par").error("overloaded_error", "Overloaded").build()));
        server.enqueue(Reply.sse(Scripts.anthropic().text("fine").stop("end_turn", 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("fine", r.text());
        assertEquals(1, r.retries().size());
    }

    @Test
    void status529ThenSuccess() {
        server.enqueue(Reply.json(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":"
                + "\"Overloaded\"},\"request_id\":\"req_1\"}"));
        server.enqueue(Reply.sse(Scripts.anthropic().text("ok").stop("end_turn", 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(529, server.requests().size() == 2 ? 529 : -1);
        assertTrue(r.retries().get(0).reason().contains("overloaded"), r.retries().toString());
    }

    @Test
    void rateLimitHonoursRetryAfter() {
        server.enqueue(Reply.json(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":"
                + "\"Number of request tokens has exceeded your per-minute rate limit\"}}").withHeader("retry-after", "1"));
        server.enqueue(Reply.sse(Scripts.anthropic().text("ok").stop("end_turn", 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(1000, r.retries().get(0).delayMs());
    }

    @Test
    void badKeyIsAuthRequired() {
        server.enqueue(Reply.json(401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":"
                + "\"invalid x-api-key\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertFalse(r.failed().message().contains("sk-ant-test"));
        assertEquals(1, server.requests().size());
    }

    @Test
    void promptTooLongIsAContextLimit() {
        server.enqueue(Reply.json(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
                + "\"prompt is too long: 213462 tokens > 200000 maximum\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.CONTEXT_LIMIT, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void disconnectBeforeToolUseRetriesAfterToolUseDoesNot() {
        server.enqueue(Reply.sse(Scripts.anthropic().text("half").build()).thenDisconnect());
        server.enqueue(Reply.sse(Scripts.anthropic().text("whole").stop("end_turn", 1).build()));
        assertEquals("whole", Turns.run(client, Turns.ask("x")).text());

        server.enqueue(Reply.sse(Scripts.anthropic().toolUse("toolu_9", "Bash", "{\"command\":\"ls\"}").build())
                .thenDisconnect());
        server.enqueue(Reply.sse(Scripts.anthropic().text("must not be fetched").stop("end_turn", 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("y"));
        assertEquals(1, r.toolCalls().size());
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertEquals(3, server.requests().size(), "the broken tool turn was not replayed");
    }

    @Test
    void malformedEventIsRetried() {
        server.enqueue(Reply.sse(Scripts.anthropic().raw("event: content_block_delta\ndata: {\"type\":\"content_blo\n\n")
                .text("x").stop("end_turn", 1).build()));
        server.enqueue(Reply.sse(Scripts.anthropic().text("clean").stop("end_turn", 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("clean", r.text());
        assertEquals(1, r.retries().size());
    }

    @Test
    void cancelReachesAHangingStreamWithinASecond() throws Exception {
        server.enqueue(Reply.sse(Scripts.anthropic().text("working").build()).thenHang());
        CancelSignal cancel = new CancelSignal();
        List<ModelEvent> seen = new ArrayList<>();
        long[] cancelledAt = {0};
        ModelEvent.Terminal end = client.stream(Turns.ask("x"), e -> {
            seen.add(e);
            if (e instanceof ModelEvent.TextDelta) {
                cancelledAt[0] = System.nanoTime();
                new Thread(cancel::cancel).start();
            }
        }, cancel);
        long ms = (System.nanoTime() - cancelledAt[0]) / 1_000_000;
        assertEquals(FailureKind.CANCELLED, ((ModelEvent.Failed) end).kind());
        assertTrue(ms < 1000, "cancel took " + ms + " ms");
        assertTrue(server.awaitClientGone(2000), "the HTTP stream was closed");
    }
}
