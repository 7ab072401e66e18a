package dev.monoagent.model;

/**
 * One entry of the conversation a model sees, provider-neutral. Each client translates the list into its wire
 * shape; a {@link Reasoning} item is replayed only to the wire family that produced it.
 */
public sealed interface Item {

    record UserText(String text) implements Item {}

    record AssistantText(String text) implements Item {}

    /** A tool call the model made; {@code arguments} is the complete JSON object text. */
    record ToolCall(String callId, String name, String arguments) implements Item {}

    /** The result sent back for {@code callId}. */
    record ToolOutput(String callId, String output, boolean isError) implements Item {}

    /**
     * Opaque reasoning state a provider wants back on the next request (Responses: the reasoning item with its
     * encrypted content; Anthropic: a thinking block with its signature).
     *
     * @param wire which wire family produced it ({@code responses}, {@code anthropic})
     * @param json the provider's item exactly as received
     */
    record Reasoning(String wire, String json) implements Item {}
}
