package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.monoagent.common.ToolOutcome;

/**
 * What a tool call produced. A command that ran and exited nonzero is still {@link Ok} (the exit code is in the text
 * and in {@code data.exitCode}); likewise JavaScript that threw inside NodeRepl. {@link Failed} means the tool could
 * not do what was asked, with a stable {@code code} from {@link #CODES}.
 */
public sealed interface ToolResult {

    ToolOutcome SANDBOX_PREPARE_FAILED = ToolOutcome.SANDBOX_PREPARE_FAILED;
    ToolOutcome DENIED_BY_POLICY = ToolOutcome.DENIED_BY_POLICY;
    ToolOutcome INVALID_ARGUMENTS = ToolOutcome.INVALID_ARGUMENTS;
    ToolOutcome NOT_FOUND = ToolOutcome.NOT_FOUND;
    ToolOutcome TIMEOUT = ToolOutcome.TIMEOUT;
    ToolOutcome TOO_LARGE = ToolOutcome.TOO_LARGE;
    ToolOutcome IS_DIRECTORY = ToolOutcome.IS_DIRECTORY;
    ToolOutcome NO_MATCH = ToolOutcome.NO_MATCH;
    ToolOutcome AMBIGUOUS_MATCH = ToolOutcome.AMBIGUOUS_MATCH;
    ToolOutcome TOOL_NOT_ALLOWED = ToolOutcome.TOOL_NOT_ALLOWED;
    ToolOutcome FAILED = ToolOutcome.FAILED;

    /** Every failure code a tool returns, stable across releases. */
    java.util.List<ToolOutcome> CODES = java.util.List.of(SANDBOX_PREPARE_FAILED, DENIED_BY_POLICY, INVALID_ARGUMENTS,
            NOT_FOUND, TIMEOUT, TOO_LARGE, IS_DIRECTORY, NO_MATCH, AMBIGUOUS_MATCH, TOOL_NOT_ALLOWED, FAILED);

    /** The text the model sees. */
    String text();

    /** {@code ok} or the failure code (the {@code outcome} of {@code ToolCallFinished}). */
    ToolOutcome outcome();

    /**
     * Success.
     *
     * @param text what the model sees
     * @param data structured detail for UIs and tests (exit code, paths, counts); never null
     */
    record Ok(String text, JsonNode data) implements ToolResult {
        public Ok {
            data = data == null ? NullNode.getInstance() : data;
        }

        public Ok(String text) {
            this(text, NullNode.getInstance());
        }

        @Override
        public ToolOutcome outcome() {
            return ToolOutcome.OK;
        }
    }

    /**
     * The tool could not do what was asked.
     *
     * @param code one of {@link #CODES}
     * @param text what the model sees
     */
    record Failed(ToolOutcome code, String text) implements ToolResult {
        @Override
        public ToolOutcome outcome() {
            return code;
        }
    }
}
