package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The Anthropic Messages wire: our conversation as alternating user/assistant messages (tool calls as
 * {@code tool_use} blocks, results as {@code tool_result} blocks at the start of the next user message, thinking
 * blocks replayed with their signature), and a reader for the block-indexed event stream.
 */
final class AnthropicWire {
    static final String WIRE = "anthropic";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private AnthropicWire() {}

    static ArrayNode messages(List<Item> items) {
        ArrayNode out = F.arrayNode();
        String role = null;
        ArrayNode blocks = null;
        for (Item it : items) {
            String r = it instanceof Item.UserText || it instanceof Item.ToolOutput ? "user" : "assistant";
            ObjectNode block = block(it);
            if (block == null) {
                continue;
            }
            if (!r.equals(role)) {
                blocks = F.arrayNode();
                ObjectNode m = F.objectNode().put("role", r);
                m.set("content", blocks);
                out.add(m);
                role = r;
            }
            blocks.add(block);
        }
        return out;
    }

    private static ObjectNode block(Item it) {
        return switch (it) {
            case Item.UserText u -> F.objectNode().put("type", "text").put("text", u.text());
            case Item.AssistantText a -> a.text().isEmpty() ? null
                    : F.objectNode().put("type", "text").put("text", a.text());
            case Item.ToolCall c -> {
                ObjectNode b = F.objectNode().put("type", "tool_use").put("id", c.callId()).put("name", c.name());
                JsonNode input = parseOrNull(c.arguments());
                b.set("input", input != null && input.isObject() ? input : F.objectNode());
                yield b;
            }
            case Item.ToolOutput o -> {
                ObjectNode b = F.objectNode().put("type", "tool_result").put("tool_use_id", o.callId())
                        .put("content", o.output());
                if (o.isError()) {
                    b.put("is_error", true);
                }
                yield b;
            }
            case Item.Reasoning r -> r.wire().equals(WIRE) && parseOrNull(r.json()) instanceof ObjectNode n ? n : null;
        };
    }

    static ArrayNode tools(List<ToolSpec> tools) {
        ArrayNode out = F.arrayNode();
        for (ToolSpec t : tools) {
            ObjectNode n = F.objectNode().put("name", t.name()).put("description", t.description());
            n.set("input_schema", t.parameters());
            out.add(n);
        }
        return out;
    }

    private static JsonNode parseOrNull(String json) {
        try {
            return ResponsesWire.parse(json);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Reads one message's events. */
    static final class Reader {
        private final String provider;
        private final List<Item> output = new ArrayList<>();
        private final Map<Integer, Block> open = new HashMap<>();
        private long input;
        private long cached;
        private long outputTokens;
        private String stop = "stop";
        private boolean sawToolCall;

        private static final class Block {
            final JsonNode start;
            final StringBuilder text = new StringBuilder();
            String signature = "";

            Block(JsonNode start) {
                this.start = start;
            }
        }

        Reader(String provider) {
            this.provider = provider;
        }

        ModelEvent.Completed on(JsonNode ev, Consumer<ModelEvent> sink) throws ProviderFailure {
            switch (ev.path("type").asText("")) {
                case "message_start" -> {
                    JsonNode u = ev.path("message").path("usage");
                    cached = u.path("cache_read_input_tokens").asLong(0);
                    input = u.path("input_tokens").asLong(0) + cached + u.path("cache_creation_input_tokens").asLong(0);
                    outputTokens = u.path("output_tokens").asLong(0);
                }
                case "content_block_start" -> open.put(ev.path("index").asInt(), new Block(ev.path("content_block")));
                case "content_block_delta" -> delta(ev, sink);
                case "content_block_stop" -> stopBlock(open.remove(ev.path("index").asInt()), sink);
                case "message_delta" -> {
                    String reason = ev.path("delta").path("stop_reason").asText("");
                    stop = switch (reason) {
                        case "max_tokens", "model_context_window_exceeded" -> "length";
                        default -> "stop";
                    };
                    outputTokens = ev.path("usage").path("output_tokens").asLong(outputTokens);
                }
                case "message_stop" -> {
                    sink.accept(new ModelEvent.Usage(input, cached, outputTokens, 0));
                    return new ModelEvent.Completed(sawToolCall ? "tool_use" : stop, output);
                }
                case "error" -> throw Failures.inStream(provider, ev.path("error").path("type").asText(""),
                        ev.path("error").path("message").asText(""));
                default -> {
                    // ping and unknown events
                }
            }
            return null;
        }

        private void delta(JsonNode ev, Consumer<ModelEvent> sink) {
            Block b = open.get(ev.path("index").asInt());
            if (b == null) {
                return;
            }
            JsonNode d = ev.path("delta");
            switch (d.path("type").asText("")) {
                case "text_delta" -> {
                    b.text.append(d.path("text").asText(""));
                    sink.accept(new ModelEvent.TextDelta(d.path("text").asText("")));
                }
                case "input_json_delta" -> b.text.append(d.path("partial_json").asText(""));
                case "thinking_delta" -> {
                    b.text.append(d.path("thinking").asText(""));
                    sink.accept(new ModelEvent.ReasoningDelta(d.path("thinking").asText("")));
                }
                case "signature_delta" -> b.signature += d.path("signature").asText("");
                default -> {
                    // citations and future delta kinds
                }
            }
        }

        private void stopBlock(Block b, Consumer<ModelEvent> sink) {
            if (b == null) {
                return;
            }
            switch (b.start.path("type").asText("")) {
                case "text" -> output.add(new Item.AssistantText(b.text.toString()));
                case "tool_use" -> {
                    String args = b.text.toString().isBlank() ? "{}" : b.text.toString();
                    Item.ToolCall c = new Item.ToolCall(b.start.path("id").asText(), b.start.path("name").asText(),
                            args);
                    output.add(c);
                    sawToolCall = true;
                    sink.accept(new ModelEvent.ToolCall(c.callId(), c.name(), c.arguments()));
                }
                case "thinking" -> output.add(new Item.Reasoning(WIRE, F.objectNode().put("type", "thinking")
                        .put("thinking", b.text.toString()).put("signature", b.signature).toString()));
                case "redacted_thinking" -> output.add(new Item.Reasoning(WIRE, b.start.toString()));
                default -> {
                    // server tool blocks are not requested
                }
            }
        }

        ProviderFailure end() {
            return ProviderFailure.transientFailure(0, -1, provider + ": stream closed before message_stop");
        }
    }
}
