package dev.monoagent.model;

import java.util.List;

/**
 * One model turn's input.
 *
 * @param model        the model name (the part after the provider)
 * @param instructions the system prompt
 * @param input        the conversation so far, oldest first
 * @param tools        the tools offered (empty = chat only)
 * @param sessionId    a stable conversation id: prompt-cache key and the Codex {@code session_id} header
 */
public record ModelRequest(String model, String instructions, List<Item> input, List<ToolSpec> tools,
                           String sessionId) {
    public ModelRequest {
        input = List.copyOf(input);
        tools = List.copyOf(tools);
    }
}
