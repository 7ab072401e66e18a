package dev.monoagent.model;

import java.util.List;

/**
 * What a model turn streams, in order. Deltas come as they arrive; a tool call is delivered only once its arguments
 * are complete; the last event is always a {@link Terminal}: {@link Completed} or {@link Failed}. After a
 * {@link Retrying} the deltas of the broken attempt are void (the next attempt starts the answer again); a retry
 * never follows a {@link ToolCall}.
 */
public sealed interface ModelEvent {

    record TextDelta(String text) implements ModelEvent {}

    record ReasoningDelta(String text) implements ModelEvent {}

    /** A complete tool call: {@code arguments} is the whole JSON object text. */
    record ToolCall(String callId, String name, String arguments) implements ModelEvent {}

    /**
     * Token usage of the turn.
     *
     * @param inputTokens       prompt tokens, cached ones included
     * @param cachedInputTokens prompt tokens served from cache
     */
    record Usage(long inputTokens, long cachedInputTokens, long outputTokens, long reasoningTokens)
            implements ModelEvent {}

    /**
     * A transient failure; another attempt follows after {@code delayMs}.
     *
     * @param attempt the attempt that is about to start (2 = first retry)
     */
    record Retrying(int attempt, long delayMs, String reason) implements ModelEvent {}

    /** The end of a stream. */
    sealed interface Terminal extends ModelEvent {}

    /**
     * The turn ended normally.
     *
     * @param stop   {@code stop} (final answer), {@code tool_use} (calls to run) or {@code length}
     * @param output what to append to the conversation: reasoning, assistant text and tool calls, in order
     */
    record Completed(String stop, List<Item> output) implements Terminal {
        public Completed {
            output = List.copyOf(output);
        }

        /** The tool calls of this turn, in order. */
        public List<Item.ToolCall> toolCalls() {
            return output.stream().filter(Item.ToolCall.class::isInstance).map(Item.ToolCall.class::cast).toList();
        }
    }

    /**
     * The turn failed.
     *
     * @param message user text (never credentials)
     * @param status  the HTTP status when there was one, else 0
     */
    record Failed(FailureKind kind, String message, int status) implements Terminal {}
}
