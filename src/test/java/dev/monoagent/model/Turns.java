package dev.monoagent.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Runs a client turn in tests and keeps what it streamed. */
final class Turns {
    static final ObjectMapper JSON = new ObjectMapper();
    static final RetryPolicy FAST = new RetryPolicy(3, 10, 2000);
    /**
     * Bound on the median first-event latency against a loopback server: a few ms when nothing stalls, and loose
     * enough for a loaded 2-core VM, but under the 40 ms a delayed ACK costs each time.
     */
    static final double LOOPBACK_FIRST_EVENT_MS = 25;

    private Turns() {}

    /** What one turn streamed, terminal last. */
    record Run(List<ModelEvent> events, ModelEvent.Terminal end) {
        String text() {
            StringBuilder b = new StringBuilder();
            events.forEach(e -> {
                if (e instanceof ModelEvent.TextDelta t) {
                    b.append(t.text());
                }
                if (e instanceof ModelEvent.Retrying) {
                    b.setLength(0);
                }
            });
            return b.toString();
        }

        String reasoning() {
            StringBuilder b = new StringBuilder();
            events.forEach(e -> {
                if (e instanceof ModelEvent.ReasoningDelta t) {
                    b.append(t.text());
                }
            });
            return b.toString();
        }

        List<ModelEvent.ToolCall> toolCalls() {
            return events.stream().filter(ModelEvent.ToolCall.class::isInstance).map(ModelEvent.ToolCall.class::cast)
                    .toList();
        }

        List<ModelEvent.Retrying> retries() {
            return events.stream().filter(ModelEvent.Retrying.class::isInstance).map(ModelEvent.Retrying.class::cast)
                    .toList();
        }

        ModelEvent.Completed completed() {
            if (end instanceof ModelEvent.Completed c) {
                return c;
            }
            throw new AssertionError("expected completion, got " + end);
        }

        ModelEvent.Failed failed() {
            if (end instanceof ModelEvent.Failed f) {
                return f;
            }
            throw new AssertionError("expected failure, got " + end);
        }
    }

    static Run run(ModelClient client, ModelRequest req) {
        return run(client, req, new CancelSignal());
    }

    static Run run(ModelClient client, ModelRequest req, CancelSignal cancel) {
        List<ModelEvent> seen = new CopyOnWriteArrayList<>();
        ModelEvent.Terminal end = client.stream(req, seen::add, cancel);
        if (seen.isEmpty() || seen.get(seen.size() - 1) != end) {
            throw new AssertionError("the terminal event must be the last event delivered: " + seen);
        }
        return new Run(new ArrayList<>(seen), end);
    }

    static ModelRequest ask(String text) {
        return new ModelRequest("gpt-test", "You are a test.", List.of(new Item.UserText(text)), List.of(readTool()),
                "sess-1");
    }

    /**
     * The median time from sending a request to its first streamed event, over {@code n} turns after ten warm-up
     * turns (a fresh JVM's first calls are slow for other reasons), each serving {@code reply}. The request carries {@code instructionsBytes} of instructions: an agent's
     * real requests (system prompt, tool schemas, history) are tens of kilobytes, so the client writes them in several
     * socket writes, which a tiny request would not show.
     */
    static double firstEventMedianMs(ModelClient client, FakeModelServer server, Reply reply, int n,
                                     int instructionsBytes) {
        ModelRequest req = new ModelRequest("gpt-test", "y".repeat(instructionsBytes),
                List.of(new Item.UserText("hi")), List.of(readTool()), "sess-1");
        long[] ms = new long[n];
        for (int i = -10; i < n; i++) {
            server.enqueue(reply);
            long t0 = System.nanoTime();
            long[] first = {-1};
            ModelEvent.Terminal end = client.stream(req, e -> {
                if (first[0] < 0) {
                    first[0] = System.nanoTime() - t0;
                }
            }, new CancelSignal());
            if (!(end instanceof ModelEvent.Completed)) {
                throw new AssertionError("expected completion, got " + end);
            }
            if (i >= 0) {
                ms[i] = first[0];
            }
        }
        java.util.Arrays.sort(ms);
        return ms[n / 2] / 1e6;
    }

    static ToolSpec readTool() {
        try {
            return new ToolSpec("Read", "Reads a file.", JSON.readTree(
                    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}"));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
