package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A tool as offered to the model.
 *
 * @param parameters JSON Schema object of the arguments
 */
public record ToolSpec(String name, String description, JsonNode parameters) {}
