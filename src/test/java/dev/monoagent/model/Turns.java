package dev.monoagent.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Runs a client turn in tests and keeps what it streamed. */
final class Turns {
    static final ObjectMapper JSON = new ObjectMapper();
    static final RetryPolicy FAST = new RetryPolicy(3, 10, 2000);

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

    static ToolSpec readTool() {
        try {
            return new ToolSpec("Read", "Reads a file.", JSON.readTree(
                    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}"));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
