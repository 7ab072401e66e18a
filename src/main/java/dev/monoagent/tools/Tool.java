package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One model-callable tool. Implementations do the work only; the {@link ToolOrchestrator} does the policy gate,
 * argument parsing, output bounding and events around them, so every tool behaves the same at the edges.
 */
public interface Tool {
    /** The model-facing name, one of {@link ToolNames#ALL}. */
    String name();

    /** One paragraph for the model. */
    String description();

    /** JSON Schema (draft 2020-12 subset: type object, properties, required) of the arguments. */
    JsonNode schema();

    /**
     * Runs the call. Expected failures come back as {@link ToolResult.Failed}; an exception means a bug and is turned
     * into {@code failed} by the orchestrator.
     */
    ToolResult call(JsonNode args, ToolContext ctx);
}
