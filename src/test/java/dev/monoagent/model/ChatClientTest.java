package dev.monoagent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** OpenAI-compatible Chat Completions (Ollama, LM Studio, openai_compat) against a local server, byte for byte. */
class ChatClientTest {
    final FakeModelServer server = FakeModelServer.start();
    final ModelClient client = new ChatClient("lmstudio", server.baseUrl() + "/v1", Turns.FAST, Duration.ofSeconds(90),
            null, null);

    @AfterEach
    void stop() {
        server.close();
    }

    /** The local-model path: see ResponsesClientTest#firstEventOnLoopbackIsNotHeldByDelayedAck. */
    @Test
    void firstEventOnLoopbackIsNotHeldByDelayedAck() {
        Reply reply = Reply.sse(Scripts.chat().text("Hel", "lo").finish("stop").usage(11, 4).done().build());
        double median = Turns.firstEventMedianMs(client, server, reply, 7, 24_000);
        assertTrue(median <= Turns.LOOPBACK_FIRST_EVENT_MS, "median first event " + median + " ms on loopback");
    }

    @Test
    void streamsTextReasoningAndUsage() {
        server.enqueue(Reply.sse(Scripts.chat().reasoning("hmm", " ok").text("Hel", "lo").finish("stop").usage(11, 4)
                .done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("hi"));
        assertEquals("Hello", r.text());
        assertEquals("hmm ok", r.reasoning());
        assertEquals("stop", r.completed().stop());
        assertTrue(r.events().contains(new ModelEvent.Usage(11, 0, 4, 0)), r.events().toString());

        FakeModelServer.Recorded req = server.request(0);
        assertEquals("/v1/chat/completions", req.path());
        assertEquals("Bearer lmstudio", req.header("authorization"), "a placeholder key for a local server");
        JsonNode body = req.json();
        assertTrue(body.path("stream").asBoolean());
        assertTrue(body.at("/stream_options/include_usage").asBoolean());
        assertEquals("system", body.at("/messages/0/role").asText());
        assertEquals("You are a test.", body.at("/messages/0/content").asText());
        assertEquals("user", body.at("/messages/1/role").asText());
        assertEquals("function", body.at("/tools/0/type").asText());
        assertEquals("Read", body.at("/tools/0/function/name").asText());
    }

    @Test
    void fragmentedAndParallelToolCallsAreAccumulatedByIndex() {
        server.enqueue(Reply.sse(Scripts.chat().toolCall(0, "365174485", "Read", "{\"pa", "th\":\"a\"}")
                .toolCall(1, "365174486", "Read", "{\"path\":", "\"b\"}").finish("tool_calls").usage(5, 5).done()
                .build()).inChunksOf(9));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(List.of(new ModelEvent.ToolCall("365174485", "Read", "{\"path\":\"a\"}"),
                new ModelEvent.ToolCall("365174486", "Read", "{\"path\":\"b\"}")), r.toolCalls());
        assertEquals("tool_use", r.completed().stop());
    }

    @Test
    void wholeToolCallsLikeOllamaWorkToo() {
        server.enqueue(Reply.sse(Scripts.chat().wholeToolCall(0, "call_x", "Read", "{\"path\":\"a\"}")
                .finish("tool_calls").done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(List.of(new ModelEvent.ToolCall("call_x", "Read", "{\"path\":\"a\"}")), r.toolCalls());
    }

    @Test
    void multiStepLoopSendsAssistantToolCallsThenToolResults() {
        server.enqueue(Reply.sse(Scripts.chat().text("Let me look.").toolCall(0, "c1", "Read", "{\"path\":\"a\"}")
                .finish("tool_calls").done().build()));
        server.enqueue(Reply.sse(Scripts.chat().text("It says hi.").finish("stop").done().build()));
        ModelRequest first = Turns.ask("what is in a?");
        Turns.Run r1 = Turns.run(client, first);
        List<Item> history = new ArrayList<>(first.input());
        history.addAll(r1.completed().output());
        history.add(new Item.ToolOutput("c1", "hi", false));
        Turns.Run r2 = Turns.run(client, new ModelRequest("m", "s", history, first.tools(), null));
        assertEquals("It says hi.", r2.text());
        JsonNode msgs = server.request(1).json().path("messages");
        assertEquals(4, msgs.size(), msgs.toString());
        assertEquals("assistant", msgs.at("/2/role").asText());
        assertEquals("Let me look.", msgs.at("/2/content").asText());
        assertEquals("c1", msgs.at("/2/tool_calls/0/id").asText());
        assertEquals("{\"path\":\"a\"}", msgs.at("/2/tool_calls/0/function/arguments").asText());
        assertEquals("tool", msgs.at("/3/role").asText());
        assertEquals("c1", msgs.at("/3/tool_call_id").asText());
    }

    @Test
    void rateLimitThenSuccessHonoursRetryAfter() {
        server.enqueue(Reply.json(429, "{\"error\":{\"message\":\"Too many requests\",\"type\":\"rate_limit\"}}")
                .withHeader("retry-after", "1"));
        server.enqueue(Reply.sse(Scripts.chat().text("ok").finish("stop").done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(1000, r.retries().get(0).delayMs());
    }

    @Test
    void unauthorizedIsAuthRequired() {
        server.enqueue(Reply.json(401, "{\"error\":{\"message\":\"Invalid API key\",\"type\":\"invalid_request_error\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void overloadedIsRetried() {
        server.enqueue(Reply.json(503, "{\"error\":{\"message\":\"server busy\",\"type\":\"api_error\"}}"));
        server.enqueue(Reply.json(529, "{\"error\":{\"message\":\"overloaded\",\"type\":\"overloaded_error\"}}"));
        server.enqueue(Reply.sse(Scripts.chat().text("ok").finish("stop").done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(2, r.retries().size());
    }

    @Test
    void contextOverflowIsNotRetried() {
        server.enqueue(Reply.json(400, "{\"error\":{\"message\":\"The number of tokens to keep from the initial prompt"
                + " is greater than the context length\",\"type\":\"invalid_request_error\"}}"));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.CONTEXT_LIMIT, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void disconnectBeforeFinishRetriesAndToolCallsAreNotHandedOutEarly() {
        server.enqueue(Reply.sse(Scripts.chat().toolCall(0, "c1", "Bash", "{\"command\":\"ls\"}").build())
                .thenDisconnect());
        server.enqueue(Reply.sse(Scripts.chat().toolCall(0, "c1", "Bash", "{\"command\":\"ls\"}")
                .finish("tool_calls").done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(1, r.toolCalls().size(), "the unfinished call was never handed out, so one retry is safe");
        assertEquals(1, r.retries().size());
    }

    @Test
    void disconnectAfterATooCallWasHandedOutIsNotReplayed() {
        server.enqueue(Reply.sse(Scripts.chat().toolCall(0, "c1", "Bash", "{\"command\":\"ls\"}")
                .finish("tool_calls").build()).thenDisconnect());
        server.enqueue(Reply.sse(Scripts.chat().text("must not be fetched").finish("stop").done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(1, r.toolCalls().size());
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void malformedChunkIsRetried() {
        server.enqueue(Reply.sse(Scripts.chat().text("a").raw("data: {\"choices\":[{\"delta\":\n\n").build()));
        server.enqueue(Reply.sse(Scripts.chat().text("clean").finish("stop").done().build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals("clean", r.text());
    }

    @Test
    void errorObjectInsideTheStreamIsClassified() {
        server.enqueue(Reply.sse(Scripts.chat().text("a").raw("data: {\"error\":{\"message\":\"context window exceeded"
                + "\",\"type\":\"invalid_request_error\"}}\n\n").build()));
        Turns.Run r = Turns.run(client, Turns.ask("x"));
        assertEquals(FailureKind.CONTEXT_LIMIT, r.failed().kind());
    }

    @Test
    void cancelReachesAHangingStreamWithinASecond() throws Exception {
        server.enqueue(Reply.sse(Scripts.chat().text("working").build()).thenHang());
        CancelSignal cancel = new CancelSignal();
        long[] at = {0};
        ModelEvent.Terminal end = client.stream(Turns.ask("x"), e -> {
            if (e instanceof ModelEvent.TextDelta) {
                at[0] = System.nanoTime();
                new Thread(cancel::cancel).start();
            }
        }, cancel);
        assertEquals(FailureKind.CANCELLED, ((ModelEvent.Failed) end).kind());
        assertTrue((System.nanoTime() - at[0]) / 1_000_000 < 1000);
        assertTrue(server.awaitClientGone(2000), "the HTTP stream was closed");
    }
}
