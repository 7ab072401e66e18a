package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The common shape of the built-in tools: a fixed name, description and argument schema, and unknown arguments
 * rejected before {@link #run} sees them. Subclasses only do their work.
 */
abstract class BasicTool implements Tool {
    private final String name;
    private final String description;
    private final JsonNode schema;

    BasicTool(String name, String description, JsonNode schema) {
        this.name = name;
        this.description = description;
        this.schema = schema;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }

    @Override
    public final JsonNode schema() {
        return schema;
    }

    @Override
    public final ToolResult call(JsonNode args, ToolContext ctx) {
        Args.onlyKnown(args, schema);
        return run(args, ctx);
    }

    /** The tool's work, with arguments already checked against the schema's property names. */
    abstract ToolResult run(JsonNode args, ToolContext ctx);
}
