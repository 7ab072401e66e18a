package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The OpenAI Responses wire (also the ChatGPT Codex backend): our conversation as stateless {@code input} items,
 * tools in the flat function shape, and a reader that turns the stream's events into {@link ModelEvent}s.
 * Final items come from {@code response.output_item.done} (the deltas are only for live display); unknown event
 * types are ignored.
 */
final class ResponsesWire {
    static final String WIRE = "responses";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final ObjectMapper JSON = new ObjectMapper();

    private ResponsesWire() {}

    static ArrayNode input(List<Item> items) {
        ArrayNode out = F.arrayNode();
        for (Item it : items) {
            switch (it) {
                case Item.UserText u -> out.add(message("user", "input_text", u.text()));
                case Item.AssistantText a -> out.add(message("assistant", "output_text", a.text()));
                case Item.ToolCall c -> out.add(F.objectNode().put("type", "function_call").put("call_id", c.callId())
                        .put("name", c.name()).put("arguments", c.arguments()));
                case Item.ToolOutput o -> out.add(F.objectNode().put("type", "function_call_output")
                        .put("call_id", o.callId()).put("output", o.output()));
                case Item.Reasoning r -> {
                    if (r.wire().equals(WIRE)) {
                        out.add(parse(r.json()));
                    }
                }
            }
        }
        return out;
    }

    private static ObjectNode message(String role, String partType, String text) {
        ObjectNode part = F.objectNode().put("type", partType).put("text", text);
        if (partType.equals("output_text")) {
            part.set("annotations", F.arrayNode());
        }
        ObjectNode m = F.objectNode().put("type", "message").put("role", role);
        m.set("content", F.arrayNode().add(part));
        return m;
    }

    static ArrayNode tools(List<ToolSpec> tools) {
        ArrayNode out = F.arrayNode();
        for (ToolSpec t : tools) {
            ObjectNode n = F.objectNode().put("type", "function").put("name", t.name())
                    .put("description", t.description());
            n.set("parameters", t.parameters());
            n.put("strict", false);
            out.add(n);
        }
        return out;
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
    }

    /** Reads one response's events; feed every event to {@link #on}, then call {@link #end} if none finished it. */
    static final class Reader {
        private final String provider;
        private final List<Item> output = new ArrayList<>();
        private boolean sawToolCall;

        Reader(String provider) {
            this.provider = provider;
        }

        /** Handles one event; returns the completion at a terminal event, else null. */
        ModelEvent.Completed on(JsonNode ev, Consumer<ModelEvent> sink) throws ProviderFailure {
            switch (ev.path("type").asText("")) {
                case "response.output_text.delta" -> sink.accept(new ModelEvent.TextDelta(ev.path("delta").asText("")));
                case "response.reasoning_summary_text.delta" ->
                        sink.accept(new ModelEvent.ReasoningDelta(ev.path("delta").asText("")));
                case "response.output_item.done" -> item(ev.path("item"), sink);
                case "response.completed", "response.done" -> {
                    return complete(ev.path("response"), "stop", sink);
                }
                case "response.incomplete" -> {
                    return complete(ev.path("response"), "length", sink);
                }
                case "response.failed" -> {
                    JsonNode err = ev.path("response").path("error");
                    throw Failures.inStream(provider, err.path("code").asText(""), err.path("message").asText(""));
                }
                case "error" -> throw Failures.inStream(provider, ev.path("code").asText(ev.path("error")
                        .path("code").asText("")), ev.path("message").asText(ev.path("error").path("message")
                        .asText("")));
                default -> {
                    // lifecycle events, argument deltas (we take the finished item) and unknown types
                }
            }
            return null;
        }

        private void item(JsonNode item, Consumer<ModelEvent> sink) {
            switch (item.path("type").asText("")) {
                case "function_call" -> {
                    Item.ToolCall c = new Item.ToolCall(item.path("call_id").asText(), item.path("name").asText(),
                            item.path("arguments").asText("{}"));
                    output.add(c);
                    sawToolCall = true;
                    sink.accept(new ModelEvent.ToolCall(c.callId(), c.name(), c.arguments()));
                }
                case "message" -> {
                    StringBuilder text = new StringBuilder();
                    for (JsonNode part : item.path("content")) {
                        if (part.path("type").asText().equals("output_text")) {
                            text.append(part.path("text").asText(""));
                        }
                    }
                    output.add(new Item.AssistantText(text.toString()));
                }
                case "reasoning" -> output.add(new Item.Reasoning(WIRE, item.toString()));
                default -> {
                    // built-in tool items are not offered, so not expected
                }
            }
        }

        private ModelEvent.Completed complete(JsonNode response, String stop, Consumer<ModelEvent> sink) {
            JsonNode u = response.path("usage");
            if (u.isObject()) {
                sink.accept(new ModelEvent.Usage(u.path("input_tokens").asLong(0),
                        u.path("input_tokens_details").path("cached_tokens").asLong(0),
                        u.path("output_tokens").asLong(0),
                        u.path("output_tokens_details").path("reasoning_tokens").asLong(0)));
            }
            return new ModelEvent.Completed(sawToolCall ? "tool_use" : stop, output);
        }

        /** The body ended without a terminal event. */
        ProviderFailure end() {
            return ProviderFailure.transientFailure(0, -1, provider + ": stream closed before response.completed");
        }
    }
}
