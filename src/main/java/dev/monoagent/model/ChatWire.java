package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * OpenAI-compatible Chat Completions (Ollama, LM Studio, OpenRouter, any {@code openai_compat} endpoint): our
 * conversation as role messages (assistant text and its tool calls in one message, results as {@code role:tool}),
 * and a reader that accumulates tool-call fragments by {@code index} (OpenAI and LM Studio fragment them, Ollama
 * sends them whole) and hands them out complete once the choice finishes.
 */
final class ChatWire {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ChatWire() {}

    static ArrayNode messages(String instructions, List<Item> items) {
        ArrayNode out = F.arrayNode();
        if (instructions != null && !instructions.isBlank()) {
            out.add(F.objectNode().put("role", "system").put("content", instructions));
        }
        ObjectNode assistant = null;
        for (Item it : items) {
            switch (it) {
                case Item.UserText u -> {
                    assistant = null;
                    out.add(F.objectNode().put("role", "user").put("content", u.text()));
                }
                case Item.AssistantText a -> {
                    assistant = assistant(out, assistant);
                    String prev = assistant.path("content").isTextual() ? assistant.get("content").asText() : "";
                    assistant.put("content", prev + a.text());
                }
                case Item.ToolCall c -> {
                    assistant = assistant(out, assistant);
                    ObjectNode fn = F.objectNode().put("name", c.name()).put("arguments", c.arguments());
                    ObjectNode call = F.objectNode().put("id", c.callId()).put("type", "function");
                    call.set("function", fn);
                    assistant.withArray("tool_calls").add(call);
                }
                case Item.ToolOutput o -> {
                    assistant = null;
                    out.add(F.objectNode().put("role", "tool").put("tool_call_id", o.callId())
                            .put("content", o.output()));
                }
                case Item.Reasoning r -> {
                    // chat completions has no way to replay reasoning
                }
            }
        }
        return out;
    }

    private static ObjectNode assistant(ArrayNode out, ObjectNode current) {
        if (current != null) {
            return current;
        }
        ObjectNode m = F.objectNode().put("role", "assistant").putNull("content");
        out.add(m);
        return m;
    }

    static ArrayNode tools(List<ToolSpec> tools) {
        ArrayNode out = F.arrayNode();
        for (ToolSpec t : tools) {
            ObjectNode fn = F.objectNode().put("name", t.name()).put("description", t.description());
            fn.set("parameters", t.parameters());
            ObjectNode n = F.objectNode().put("type", "function");
            n.set("function", fn);
            out.add(n);
        }
        return out;
    }

    /** Reads one completion's chunks. */
    static final class Reader {
        private final String provider;
        private final StringBuilder text = new StringBuilder();
        private final TreeMap<Integer, String[]> calls = new TreeMap<>();
        private String finish;

        Reader(String provider) {
            this.provider = provider;
        }

        /** Handles one chunk; never ends the stream by itself (the usage chunk and [DONE] follow the finish). */
        Void on(JsonNode chunk, Consumer<ModelEvent> sink) throws ProviderFailure {
            if (chunk.hasNonNull("error")) {
                JsonNode e = chunk.get("error");
                throw Failures.inStream(provider, e.path("code").asText(e.path("type").asText("")),
                        e.isTextual() ? e.asText() : e.path("message").asText(""));
            }
            JsonNode u = chunk.get("usage");
            if (u != null && u.isObject()) {
                sink.accept(new ModelEvent.Usage(u.path("prompt_tokens").asLong(0),
                        u.path("prompt_tokens_details").path("cached_tokens").asLong(0),
                        u.path("completion_tokens").asLong(0),
                        u.path("completion_tokens_details").path("reasoning_tokens").asLong(0)));
            }
            for (JsonNode choice : chunk.path("choices")) {
                if (choice.path("index").asInt(0) != 0) {
                    continue;
                }
                JsonNode d = choice.path("delta");
                String content = d.path("content").asText("");
                if (d.path("content").isTextual() && !content.isEmpty()) {
                    text.append(content);
                    sink.accept(new ModelEvent.TextDelta(content));
                }
                for (String field : new String[] {"reasoning_content", "reasoning", "reasoning_text"}) {
                    if (d.path(field).isTextual() && !d.get(field).asText().isEmpty()) {
                        sink.accept(new ModelEvent.ReasoningDelta(d.get(field).asText()));
                        break;
                    }
                }
                for (JsonNode tc : d.path("tool_calls")) {
                    String[] c = calls.computeIfAbsent(tc.path("index").asInt(calls.size()),
                            i -> new String[] {null, null, ""});
                    if (tc.path("id").isTextual() && !tc.get("id").asText().isEmpty()) {
                        c[0] = tc.get("id").asText();
                    }
                    JsonNode fn = tc.path("function");
                    if (fn.path("name").isTextual() && !fn.get("name").asText().isEmpty()) {
                        c[1] = fn.get("name").asText();
                    }
                    if (fn.path("arguments").isTextual()) {
                        c[2] += fn.get("arguments").asText();
                    }
                }
                if (choice.path("finish_reason").isTextual() && finish == null) {
                    finish = choice.get("finish_reason").asText();
                    for (var e : calls.entrySet()) {
                        String[] c = e.getValue();
                        String id = c[0] != null ? c[0] : "call_" + e.getKey();
                        sink.accept(new ModelEvent.ToolCall(id, c[1], c[2].isBlank() ? "{}" : c[2]));
                    }
                }
            }
            return null;
        }

        /** The body ended: complete when the choice finished, else a broken stream. */
        ModelEvent.Completed end() throws ProviderFailure {
            if (finish == null) {
                throw ProviderFailure.transientFailure(0, -1, provider + ": stream closed before finish_reason");
            }
            List<Item> output = new ArrayList<>();
            if (!text.isEmpty()) {
                output.add(new Item.AssistantText(text.toString()));
            }
            for (var e : calls.entrySet()) {
                String[] c = e.getValue();
                output.add(new Item.ToolCall(c[0] != null ? c[0] : "call_" + e.getKey(), c[1],
                        c[2].isBlank() ? "{}" : c[2]));
            }
            String stop = !calls.isEmpty() ? "tool_use" : finish.equals("length") ? "length" : "stop";
            return new ModelEvent.Completed(stop, output);
        }
    }
}
