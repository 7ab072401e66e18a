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

/** The {@code openai} Responses client against a local server speaking the Responses stream byte for byte. */
class ResponsesClientTest {
    final FakeModelServer server = FakeModelServer.start();
    final ModelClient client = ResponsesClient.withApiKey("openai", server.baseUrl() + "/v1", Turns.FAST,
            Duration.ofSeconds(90), "sk-test-123", "OPENAI_API_KEY");

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void streamsTextAndReportsUsage() {
        server.enqueue(Reply.sse(Scripts.responses().text("Hel", "lo", " there").completed(42, 7).build()));
        Turns.Run r = Turns.run(client, Turns.ask("hi"));
        assertEquals("Hello there", r.text());
        assertEquals("stop", r.completed().stop());
        assertEquals(List.of(new Item.AssistantText("Hello there")), r.completed().output());
        assertTrue(r.events().contains(new ModelEvent.Usage(42, 2, 7, 1)), r.events().toString());

        FakeModelServer.Recorded req = server.request(0);
        assertEquals("POST", req.method());
        assertEquals("/v1/responses", req.path());
        assertEquals("Bearer sk-test-123", req.header("authorization"));
        JsonNode body = req.json();
        assertEquals("gpt-test", body.path("model").asText());
        assertEquals("You are a test.", body.path("instructions").asText());
        assertTrue(body.path("stream").asBoolean());
        assertFalse(body.path("store").asBoolean(true));
        assertEquals("reasoning.encrypted_content", body.path("include").path(0).asText());
        assertEquals("user", body.at("/input/0/role").asText());
        assertEquals("input_text", body.at("/input/0/content/0/type").asText());
        assertEquals("hi", body.at("/input/0/content/0/text").asText());
        assertEquals("function", body.at("/tools/0/type").asText());
        assertEquals("Read", body.at("/tools/0/name").asText());
        assertEquals("object", body.at("/tools/0/parameters/type").asText());
        assertTrue(body.path("tools").path(0).path("function").isMissingNode(), "Responses tools are flat");
    }

    /**
     * A local model (ollama, LM Studio) answers in a few milliseconds, so the client must not add a TCP stall: a
     * request written in several small writes with Nagle's algorithm on waits for the server's delayed ACK (40 ms
     * on Linux) before its last part leaves. The bound sits between a few ms and that 40 ms floor.
     */
    @Test
    void firstEventOnLoopbackIsNotHeldByDelayedAck() {
        Reply reply = Reply.sse(Scripts.responses().text("Hel", "lo").completed(10, 2).build());
        double median = Turns.firstEventMedianMs(client, server, reply, 7, 24_000);
        assertTrue(median <= Turns.LOOPBACK_FIRST_EVENT_MS, "median first event " + median + " ms on loopback");
    }

    @Test
    void toolCallArgumentsSplitAcrossDeltasArriveWhole() {
        server.enqueue(Reply.sse(Scripts.responses().toolCall("call_1", "Read", "{\"pa", "th\":\"RE", "ADME.md\"}")
                .completed(10, 3).build()).inChunksOf(7));
        Turns.Run r = Turns.run(client, Turns.ask("read it"));
        assertEquals(List.of(new ModelEvent.ToolCall("call_1", "Read", "{\"path\":\"README.md\"}")), r.toolCalls());
        assertEquals("tool_use", r.completed().stop());
    }

    @Test
    void twoParallelCallsInOrder() {
        server.enqueue(Reply.sse(Scripts.responses().toolCall("call_a", "Read", "{\"path\":", "\"a\"}")
                .toolCall("call_b", "Read", "{\"path\":\"b\"}").completed(10, 3).build()));
        Turns.Run r = Turns.run(client, Turns.ask("both"));
        assertEquals(List.of("call_a", "call_b"), r.toolCalls().stream().map(ModelEvent.ToolCall::callId).toList());
        assertEquals(2, r.completed().toolCalls().size());
    }

    @Test
    void multiStepLoopReplaysHistoryStatelessly() {
        server.enqueue(Reply.sse(Scripts.responses().reasoning("Look at ", "the file").toolCall("call_1", "Read",
                "{\"path\":\"a\"}").completed(10, 3).build()));
        server.enqueue(Reply.sse(Scripts.responses().text("It says hi.").completed(20, 4).build()));
        ModelRequest first = Turns.ask("what is in a?");
        Turns.Run r1 = Turns.run(client, first);
        assertEquals("Look at the file", r1.reasoning());
        List<Item> history = new ArrayList<>(first.input());
        history.addAll(r1.completed().output());
        history.add(new Item.ToolOutput("call_1", "hi", false));
        Turns.Run r2 = Turns.run(client, new ModelRequest("gpt-test", "You are a test.", history, first.tools(),
                "sess-1"));
        assertEquals("It says hi.", r2.text());

        JsonNode input = server.request(1).json().path("input");
        assertEquals(4, input.size(), input.toString());
        assertEquals("reasoning", input.at("/1/type").asText());
        assertEquals("gAAAAenc0", input.at("/1/encrypted_content").asText(), "reasoning is replayed as received");
        assertEquals("function_call", input.at("/2/type").asText());
        assertEquals("call_1", input.at("/2/call_id").asText());
        assertEquals("{\"path\":\"a\"}", input.at("/2/arguments").asText());
        assertEquals("function_call_output", input.at("/3/type").asText());
        assertEquals("call_1", input.at("/3/call_id").asText());
        assertEquals("hi", input.at("/3/output").asText());
    }

    @Test
    void unknownEventTypesAndDoneSentinelAreIgnored() {
        server.enqueue(Reply.sse(Scripts.responses()
                .raw(": a comment\n\n")
                .raw("event: codex.rate_limits\ndata: {\"type\":\"codex.rate_limits\",\"plan_type\":\"plus\"}\n\n")
                .raw("event: response.web_search_call.searching\ndata: {\"type\":\"response.web_search_call.searching"
                        + "\",\"sequence_number\":99,\"item_id\":\"ws_1\",\"output_index\":0}\n\n")
                .text("ok").completed(1, 1).raw("data: [DONE]\n\n").build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(1, server.requests().size());
    }

    @Test
    void malformedEventFailsTheAttemptAndIsRetried() {
        server.enqueue(Reply.sse(Scripts.responses().raw("event: response.output_text.delta\ndata: {\"type\":"
                + "\"response.output_text.delta\",\"delta\":\"x\n\n").text("late").completed(1, 1).build()));
        server.enqueue(Reply.sse(Scripts.responses().text("fine").completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("fine", r.text());
        assertEquals(1, r.retries().size());
        assertTrue(r.retries().get(0).reason().contains("malformed"), r.retries().toString());
    }

    @Test
    void rateLimitThenSuccessHonoursRetryAfter() {
        server.enqueue(Reply.json(429, "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
                + "\"code\":\"rate_limit_exceeded\"}}").withHeader("retry-after", "1"));
        server.enqueue(Reply.sse(Scripts.responses().text("after wait").completed(1, 1).build()));
        long t0 = System.nanoTime();
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("after wait", r.text());
        assertEquals(List.of(new ModelEvent.Retrying(2, 1000, r.retries().get(0).reason())), r.retries());
        assertTrue(ms >= 1000, "waited " + ms + " ms, the server asked for 1 s");
        assertEquals(2, server.requests().size());
    }

    @Test
    void badCredentialsAreNotRetriedAndNeverEchoed() {
        server.enqueue(Reply.json(401, "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":"
                + "\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertEquals(401, r.failed().status());
        assertTrue(r.failed().message().contains("OPENAI_API_KEY"), r.failed().message());
        assertFalse(r.events().toString().contains("sk-test-123"), "the key never appears in events");
        assertEquals(1, server.requests().size());
    }

    @Test
    void aKeyEchoedByTheServerIsRedacted() {
        server.enqueue(Reply.json(401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-test-123.\","
                + "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertFalse(r.failed().message().contains("sk-test-123"), r.failed().message());
        assertTrue(r.failed().message().contains("<redacted>"), r.failed().message());
    }

    @Test
    void overloadedIsRetriedUpToTheLimit() {
        for (int i = 0; i < 3; i++) {
            server.enqueue(Reply.json(503, "{\"error\":{\"message\":\"The server is overloaded\",\"type\":"
                    + "\"server_error\",\"code\":\"server_is_overloaded\"}}"));
        }
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertEquals(503, r.failed().status());
        assertEquals(2, r.retries().size());
        assertEquals(3, server.requests().size());
        assertTrue(r.failed().message().contains("after 3 attempts"), r.failed().message());
    }

    @Test
    void status529IsTransient() {
        server.enqueue(Reply.json(529, "{\"error\":{\"message\":\"Overloaded\",\"type\":\"overloaded_error\"}}"));
        server.enqueue(Reply.sse(Scripts.responses().text("back").completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("back", r.text());
        assertEquals(1, r.retries().size());
    }

    @Test
    void disconnectBeforeAnyToolCallIsRetried() {
        server.enqueue(Reply.sse(Scripts.responses().text("partial ").build()).thenDisconnect());
        server.enqueue(Reply.sse(Scripts.responses().text("whole answer").completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("whole answer", r.text(), "deltas of the broken attempt are void after Retrying");
        assertEquals(1, r.retries().size());
    }

    @Test
    void cleanCloseWithoutCompletedIsRetried() {
        server.enqueue(Reply.sse(Scripts.responses().text("partial").build()));
        server.enqueue(Reply.sse(Scripts.responses().text("again").completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("again", r.text());
        assertTrue(r.retries().get(0).reason().contains("before response.completed"), r.retries().toString());
    }

    @Test
    void disconnectAfterAToolCallIsNeverReplayed() {
        server.enqueue(Reply.sse(Scripts.responses().toolCall("call_1", "Bash", "{\"command\":\"ls\"}").build())
                .thenDisconnect());
        server.enqueue(Reply.sse(Scripts.responses().toolCall("call_1", "Bash", "{\"command\":\"ls\"}")
                .completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(1, r.toolCalls().size());
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertTrue(r.failed().message().contains("not replayed"), r.failed().message());
        assertTrue(r.retries().isEmpty());
        assertEquals(1, server.requests().size(), "the turn was not sent again");
    }

    @Test
    void contextOverflowAsHttp400IsNotRetried() {
        server.enqueue(Reply.json(400, "{\"error\":{\"message\":\"Your input exceeds the context window of this "
                + "model.\",\"type\":\"invalid_request_error\",\"param\":\"input\",\"code\":\"context_length_exceeded\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.CONTEXT_LIMIT, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void contextOverflowInResponseFailedIsNotRetried() {
        server.enqueue(Reply.sse(Scripts.responses().failed("context_length_exceeded",
                "Your input exceeds the context window of this model.").build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.CONTEXT_LIMIT, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void rateLimitInsideTheStreamWaitsAsTold() {
        server.enqueue(Reply.sse(Scripts.responses().failed("rate_limit_exceeded",
                "Rate limit reached. Please try again in 20ms.").build()));
        server.enqueue(Reply.sse(Scripts.responses().text("ok").completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(20, r.retries().get(0).delayMs());
    }

    @Test
    void quotaIsAUsageLimit() {
        server.enqueue(Reply.json(429, "{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":"
                + "\"insufficient_quota\",\"code\":\"insufficient_quota\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.USAGE_LIMIT, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void bareErrorEventIsClassified() {
        server.enqueue(Reply.sse(Scripts.responses().error("server_error", "Something broke").build()));
        server.enqueue(Reply.sse(Scripts.responses().text("recovered").completed(1, 1).build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("recovered", r.text());
    }

    @Test
    void incompleteAtTheOutputCapStopsWithLength() {
        server.enqueue(Reply.sse(Scripts.responses().text("cut").incomplete("max_output_tokens").build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("length", r.completed().stop());
    }

    @Test
    void completesOnTerminalEventEvenIfTheBodyStaysOpen() {
        server.enqueue(Reply.sse(Scripts.responses().text("done").completed(1, 1).build()).thenHang());
        long t0 = System.nanoTime();
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("done", r.text());
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 5000);
    }

    @Test
    void aCleanlyEndedStreamLeavesTheConnectionForTheNextTurn() {
        server.enqueue(Reply.sse(Scripts.responses().text("one").completed(1, 1).build()));
        server.enqueue(Reply.sse(Scripts.responses().text("two").completed(1, 1).build()));
        Turns.run(client, Turns.ask("x"));
        Turns.run(client, Turns.ask("y"));
        assertEquals(server.request(0).clientPort(), server.request(1).clientPort(), "no new TCP (TLS) handshake");
    }

    @Test
    void cancelReachesAHangingStreamWithinASecond() throws Exception {
        server.enqueue(Reply.sse(Scripts.responses().text("thinking...").build()).thenHang());
        CancelSignal cancel = new CancelSignal();
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException ignored) {
                return;
            }
            cancel.cancel();
        });
        canceller.start();
        long t0 = System.nanoTime();
        Turns.Run r = Turns.run(client, Turns.ask("x"), cancel);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(FailureKind.CANCELLED, r.failed().kind());
        assertTrue(ms < 1500, "cancel took " + (ms - 500) + " ms");
        assertTrue(server.awaitClientGone(2000), "the HTTP stream was closed");
    }

    @Test
    void cancelDuringBackoffStopsAtOnce() {
        server.enqueue(Reply.json(429, "{\"error\":{\"message\":\"slow down\"}}").withHeader("retry-after", "1.5"));
        CancelSignal cancel = new CancelSignal();
        List<ModelEvent> seen = new ArrayList<>();
        long t0 = System.nanoTime();
        ModelEvent.Terminal end = client.stream(Turns.ask("x"), e -> {
            seen.add(e);
            if (e instanceof ModelEvent.Retrying) {
                cancel.cancel();
            }
        }, cancel);
        assertEquals(FailureKind.CANCELLED, ((ModelEvent.Failed) end).kind());
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 1000);
        assertEquals(1, server.requests().size());
    }

    @Test
    void missingKeyIsAuthRequiredWithoutAnyRequest() {
        ModelClient noKey = ResponsesClient.withApiKey("openai", server.baseUrl() + "/v1", Turns.FAST,
                Duration.ofSeconds(5), null, "OPENAI_API_KEY");
        Turns.Run r = Turns.run(noKey, Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertTrue(r.failed().message().contains("OPENAI_API_KEY"));
        assertTrue(server.requests().isEmpty());
        assertNull(null);
    }
}
