package dev.monoagent.model;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Builders for real provider streams, event by event in the order the providers send them (see
 * providers-wire.md): OpenAI Responses (also the Codex backend), Anthropic Messages, OpenAI Chat Completions.
 * Each {@code build()} gives the exact body text; wrap it in {@link Reply#sse}. {@link #turn} renders a
 * protocol-neutral {@link Turn} in any wire, for loop tests.
 */
public final class Scripts {
    static final JsonNodeFactory F = JsonNodeFactory.instance;

    private Scripts() {}

    /** A protocol-neutral model turn: optional reasoning summary, optional text, then tool calls. */
    public record Turn(String reasoning, String text, List<Call> calls) {
        public Turn {
            calls = List.copyOf(calls);
        }

        public static Turn text(String text) {
            return new Turn(null, text, List.of());
        }

        public static Turn calls(Call... calls) {
            return new Turn(null, null, List.of(calls));
        }
    }

    /** A tool call; {@code arguments} is the JSON object text. */
    public record Call(String callId, String name, String arguments) {}

    /** The wires a {@link Turn} can be rendered in. */
    public enum Wire { RESPONSES, ANTHROPIC, CHAT }

    /** {@code turn} as one streamed reply in {@code wire}; text and arguments split in a few deltas. */
    public static Reply turn(Wire wire, Turn turn) {
        return switch (wire) {
            case RESPONSES -> {
                Responses r = responses();
                if (turn.reasoning() != null) {
                    r.reasoning(halves(turn.reasoning()));
                }
                if (turn.text() != null) {
                    r.text(halves(turn.text()));
                }
                turn.calls().forEach(c -> r.toolCall(c.callId(), c.name(), halves(c.arguments())));
                yield Reply.sse(r.completed(10, 5).build());
            }
            case ANTHROPIC -> {
                Anthropic a = anthropic();
                if (turn.reasoning() != null) {
                    a.thinking("sig-1", halves(turn.reasoning()));
                }
                if (turn.text() != null) {
                    a.text(halves(turn.text()));
                }
                turn.calls().forEach(c -> a.toolUse(c.callId(), c.name(), halves(c.arguments())));
                yield Reply.sse(a.stop(turn.calls().isEmpty() ? "end_turn" : "tool_use", 5).build());
            }
            case CHAT -> {
                Chat c = chat();
                if (turn.reasoning() != null) {
                    c.reasoning(halves(turn.reasoning()));
                }
                if (turn.text() != null) {
                    c.text(halves(turn.text()));
                }
                for (int i = 0; i < turn.calls().size(); i++) {
                    Call call = turn.calls().get(i);
                    c.toolCall(i, call.callId(), call.name(), halves(call.arguments()));
                }
                yield Reply.sse(c.finish(turn.calls().isEmpty() ? "stop" : "tool_calls").usage(10, 5).done().build());
            }
        };
    }

    private static String[] halves(String s) {
        int mid = s.length() / 2;
        return mid == 0 ? new String[] {s} : new String[] {s.substring(0, mid), s.substring(mid)};
    }

    /** SSE framing of one event: {@code event:} line, {@code data:} line, blank line. */
    static String frame(String event, ObjectNode data) {
        return (event == null ? "" : "event: " + event + "\n") + "data: " + data + "\n\n";
    }

    public static Responses responses() {
        return new Responses();
    }

    public static Anthropic anthropic() {
        return new Anthropic();
    }

    public static Chat chat() {
        return new Chat();
    }

    /** An OpenAI Responses stream: created, in_progress, items in output_index order, a terminal event. */
    public static final class Responses {
        private final StringBuilder out = new StringBuilder();
        private final ArrayNode output = F.arrayNode();
        private int seq;
        private int index;

        Responses() {
            ev("response.created", F.objectNode().set("response", response("in_progress")));
            ev("response.in_progress", F.objectNode().set("response", response("in_progress")));
        }

        private ObjectNode response(String status) {
            ObjectNode r = F.objectNode().put("id", "resp_1").put("object", "response").put("created_at", 1)
                    .put("status", status).put("model", "gpt-test");
            r.set("output", status.equals("in_progress") ? F.arrayNode() : output.deepCopy());
            return r;
        }

        /** Appends one event with {@code type} and {@code sequence_number}. */
        public Responses ev(String type, ObjectNode data) {
            ObjectNode d = F.objectNode().put("type", type).put("sequence_number", seq++);
            d.setAll(data);
            out.append(frame(type, d));
            return this;
        }

        /** Raw text appended as is (malformed events, comments, [DONE]). */
        public Responses raw(String text) {
            out.append(text);
            return this;
        }

        public Responses text(String... deltas) {
            String id = "msg_" + index;
            ObjectNode item = F.objectNode().put("id", id).put("type", "message").put("status", "in_progress")
                    .put("role", "assistant");
            item.set("content", F.arrayNode());
            added(item);
            ObjectNode part = F.objectNode().put("type", "output_text").put("text", "");
            part.set("annotations", F.arrayNode());
            ev("response.content_part.added", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("content_index", 0).set("part", part));
            for (String d : deltas) {
                ObjectNode e = F.objectNode().put("item_id", id).put("output_index", index).put("content_index", 0)
                        .put("delta", d);
                e.set("logprobs", F.arrayNode());
                ev("response.output_text.delta", e);
            }
            String text = String.join("", deltas);
            ev("response.output_text.done", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("content_index", 0).put("text", text));
            ObjectNode donePart = part.deepCopy().put("text", text);
            ev("response.content_part.done", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("content_index", 0).set("part", donePart));
            ObjectNode doneItem = item.deepCopy().put("status", "completed");
            doneItem.set("content", F.arrayNode().add(donePart));
            done(doneItem);
            return this;
        }

        public Responses reasoning(String... deltas) {
            String id = "rs_" + index;
            ObjectNode item = F.objectNode().put("id", id).put("type", "reasoning");
            item.set("summary", F.arrayNode());
            added(item);
            ObjectNode part = F.objectNode().put("type", "summary_text").put("text", "");
            ev("response.reasoning_summary_part.added", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("summary_index", 0).set("part", part));
            for (String d : deltas) {
                ev("response.reasoning_summary_text.delta", F.objectNode().put("item_id", id)
                        .put("output_index", index).put("summary_index", 0).put("delta", d));
            }
            String text = String.join("", deltas);
            ev("response.reasoning_summary_text.done", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("summary_index", 0).put("text", text));
            ev("response.reasoning_summary_part.done", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("summary_index", 0).set("part", part.deepCopy().put("text", text)));
            ObjectNode doneItem = item.deepCopy().put("encrypted_content", "gAAAAenc" + index);
            doneItem.set("summary", F.arrayNode().add(F.objectNode().put("type", "summary_text").put("text", text)));
            done(doneItem);
            return this;
        }

        /** A function call whose arguments arrive in the given pieces. */
        public Responses toolCall(String callId, String name, String... argPieces) {
            String id = "fc_" + index;
            ObjectNode item = F.objectNode().put("id", id).put("type", "function_call").put("call_id", callId)
                    .put("name", name).put("arguments", "").put("status", "in_progress");
            added(item);
            for (String p : argPieces) {
                ev("response.function_call_arguments.delta", F.objectNode().put("item_id", id)
                        .put("output_index", index).put("delta", p));
            }
            String args = String.join("", argPieces);
            ev("response.function_call_arguments.done", F.objectNode().put("item_id", id).put("output_index", index)
                    .put("name", name).put("arguments", args));
            done(item.deepCopy().put("arguments", args).put("status", "completed"));
            return this;
        }

        private void added(ObjectNode item) {
            ev("response.output_item.added", F.objectNode().put("output_index", index).set("item", item));
        }

        private void done(ObjectNode item) {
            ev("response.output_item.done", F.objectNode().put("output_index", index).set("item", item));
            output.add(item);
            index++;
        }

        public Responses completed(long inputTokens, long outputTokens) {
            ObjectNode r = response("completed");
            ObjectNode u = F.objectNode().put("input_tokens", inputTokens);
            u.set("input_tokens_details", F.objectNode().put("cached_tokens", 2));
            u.put("output_tokens", outputTokens);
            u.set("output_tokens_details", F.objectNode().put("reasoning_tokens", 1));
            u.put("total_tokens", inputTokens + outputTokens);
            r.set("usage", u);
            return ev("response.completed", F.objectNode().set("response", r));
        }

        public Responses incomplete(String reason) {
            ObjectNode r = response("incomplete");
            r.set("incomplete_details", F.objectNode().put("reason", reason));
            return ev("response.incomplete", F.objectNode().set("response", r));
        }

        public Responses failed(String code, String message) {
            ObjectNode r = response("failed");
            r.set("error", F.objectNode().put("code", code).put("message", message));
            return ev("response.failed", F.objectNode().set("response", r));
        }

        /** A bare {@code error} event (fields at top level). */
        public Responses error(String code, String message) {
            return ev("error", F.objectNode().put("code", code).put("message", message).putNull("param"));
        }

        public String build() {
            return out.toString();
        }
    }

    /** An Anthropic Messages stream: message_start, content blocks, message_delta, message_stop. */
    public static final class Anthropic {
        private final StringBuilder out = new StringBuilder();
        private int index;

        Anthropic() {
            ObjectNode msg = F.objectNode().put("id", "msg_1").put("type", "message").put("role", "assistant")
                    .put("model", "claude-test");
            msg.set("content", F.arrayNode());
            msg.putNull("stop_reason").putNull("stop_sequence");
            msg.set("usage", F.objectNode().put("input_tokens", 12).put("output_tokens", 1)
                    .put("cache_creation_input_tokens", 0).put("cache_read_input_tokens", 3));
            ev("message_start", F.objectNode().set("message", msg));
        }

        public Anthropic ev(String type, ObjectNode data) {
            ObjectNode d = F.objectNode().put("type", type);
            d.setAll(data);
            out.append(frame(type, d));
            return this;
        }

        public Anthropic raw(String text) {
            out.append(text);
            return this;
        }

        public Anthropic ping() {
            return ev("ping", F.objectNode());
        }

        public Anthropic text(String... deltas) {
            block(F.objectNode().put("type", "text").put("text", ""));
            for (String d : deltas) {
                delta(F.objectNode().put("type", "text_delta").put("text", d));
            }
            return stopBlock();
        }

        public Anthropic thinking(String signature, String... deltas) {
            block(F.objectNode().put("type", "thinking").put("thinking", "").put("signature", ""));
            for (String d : deltas) {
                delta(F.objectNode().put("type", "thinking_delta").put("thinking", d));
            }
            delta(F.objectNode().put("type", "signature_delta").put("signature", signature));
            return stopBlock();
        }

        /** A tool_use block whose input JSON arrives in pieces (the first one empty, as the API does). */
        public Anthropic toolUse(String id, String name, String... jsonPieces) {
            ObjectNode b = F.objectNode().put("type", "tool_use").put("id", id).put("name", name);
            b.set("input", F.objectNode());
            block(b);
            delta(F.objectNode().put("type", "input_json_delta").put("partial_json", ""));
            for (String p : jsonPieces) {
                delta(F.objectNode().put("type", "input_json_delta").put("partial_json", p));
            }
            return stopBlock();
        }

        private void block(ObjectNode contentBlock) {
            ev("content_block_start", F.objectNode().put("index", index).set("content_block", contentBlock));
        }

        private void delta(ObjectNode delta) {
            ev("content_block_delta", F.objectNode().put("index", index).set("delta", delta));
        }

        private Anthropic stopBlock() {
            ev("content_block_stop", F.objectNode().put("index", index));
            index++;
            return this;
        }

        /** message_delta with the stop reason and cumulative output tokens, then message_stop. */
        public Anthropic stop(String stopReason, long outputTokens) {
            ObjectNode d = F.objectNode().put("stop_reason", stopReason).putNull("stop_sequence");
            ObjectNode e = F.objectNode();
            e.set("delta", d);
            e.set("usage", F.objectNode().put("output_tokens", outputTokens));
            ev("message_delta", e);
            return ev("message_stop", F.objectNode());
        }

        /** An in-stream error event (arrives after HTTP 200). */
        public Anthropic error(String type, String message) {
            return ev("error", F.objectNode().set("error", F.objectNode().put("type", type).put("message", message)));
        }

        public String build() {
            return out.toString();
        }
    }

    /** An OpenAI Chat Completions stream: {@code data:} chunks, an optional usage chunk, {@code data: [DONE]}. */
    public static final class Chat {
        private final StringBuilder out = new StringBuilder();
        private boolean first = true;

        private ObjectNode chunk() {
            ObjectNode c = F.objectNode().put("id", "chatcmpl-1").put("object", "chat.completion.chunk")
                    .put("created", 1).put("model", "local-test").put("system_fingerprint", "fp_test");
            c.putNull("usage");
            return c;
        }

        private Chat choice(ObjectNode delta, String finish) {
            if (first) {
                delta.put("role", "assistant");
                first = false;
            }
            ObjectNode ch = F.objectNode().put("index", 0);
            ch.set("delta", delta);
            if (finish == null) {
                ch.putNull("finish_reason");
            } else {
                ch.put("finish_reason", finish);
            }
            ObjectNode c = chunk();
            c.set("choices", F.arrayNode().add(ch));
            out.append(frame(null, c));
            return this;
        }

        public Chat raw(String text) {
            out.append(text);
            return this;
        }

        public Chat text(String... deltas) {
            for (String d : deltas) {
                choice(F.objectNode().put("content", d), null);
            }
            return this;
        }

        /** Reasoning in the non-standard {@code reasoning} delta field (Ollama and others). */
        public Chat reasoning(String... deltas) {
            for (String d : deltas) {
                choice(F.objectNode().put("reasoning", d), null);
            }
            return this;
        }

        /** A tool call at {@code index}: id and name on the first fragment, then argument pieces only. */
        public Chat toolCall(int index, String id, String name, String... argPieces) {
            ObjectNode fn = F.objectNode().put("name", name).put("arguments", "");
            ObjectNode tc = F.objectNode().put("index", index).put("id", id).put("type", "function");
            tc.set("function", fn);
            choice(toolCalls(tc), null);
            for (String p : argPieces) {
                ObjectNode frag = F.objectNode().put("index", index);
                frag.set("function", F.objectNode().put("arguments", p));
                choice(toolCalls(frag), null);
            }
            return this;
        }

        /** A tool call sent whole in one chunk (Ollama's compat layer). */
        public Chat wholeToolCall(int index, String id, String name, String arguments) {
            ObjectNode tc = F.objectNode().put("index", index).put("id", id).put("type", "function");
            tc.set("function", F.objectNode().put("name", name).put("arguments", arguments));
            return choice(toolCalls(tc), null);
        }

        private static ObjectNode toolCalls(ObjectNode tc) {
            ObjectNode d = F.objectNode();
            d.set("tool_calls", F.arrayNode().add(tc));
            return d;
        }

        public Chat finish(String reason) {
            return choice(F.objectNode(), reason);
        }

        public Chat usage(long prompt, long completion) {
            ObjectNode c = chunk();
            c.set("choices", F.arrayNode());
            c.set("usage", F.objectNode().put("prompt_tokens", prompt).put("completion_tokens", completion)
                    .put("total_tokens", prompt + completion));
            out.append(frame(null, c));
            return this;
        }

        public Chat done() {
            out.append("data: [DONE]\n\n");
            return this;
        }

        public String build() {
            return out.toString();
        }
    }
}
