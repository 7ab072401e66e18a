package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * What a tool call produced. A command that ran and exited nonzero is still {@link Ok} (the exit code is in the text
 * and in {@code data.exitCode}); likewise JavaScript that threw inside NodeRepl. {@link Failed} means the tool could
 * not do what was asked, with a stable {@code code} from {@link #CODES}.
 */
public sealed interface ToolResult {

    String SANDBOX_PREPARE_FAILED = "sandbox_prepare_failed";
    String DENIED_BY_POLICY = "denied_by_policy";
    String INVALID_ARGUMENTS = "invalid_arguments";
    String NOT_FOUND = "not_found";
    String TIMEOUT = "timeout";
    String TOO_LARGE = "too_large";
    String IS_DIRECTORY = "is_directory";
    String NO_MATCH = "no_match";
    String AMBIGUOUS_MATCH = "ambiguous_match";
    String TOOL_NOT_ALLOWED = "tool_not_allowed";
    String FAILED = "failed";

    /** Every failure code, stable across releases. */
    java.util.List<String> CODES = java.util.List.of(SANDBOX_PREPARE_FAILED, DENIED_BY_POLICY, INVALID_ARGUMENTS,
            NOT_FOUND, TIMEOUT, TOO_LARGE, IS_DIRECTORY, NO_MATCH, AMBIGUOUS_MATCH, TOOL_NOT_ALLOWED, FAILED);

    /** The text the model sees. */
    String text();

    /** {@code ok} or the failure code (the {@code outcome} of {@code ToolCallFinished}). */
    String outcome();

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
        public String outcome() {
            return "ok";
        }
    }

    /**
     * The tool could not do what was asked.
     *
     * @param code one of {@link #CODES}
     * @param text what the model sees
     */
    record Failed(String code, String text) implements ToolResult {
        @Override
        public String outcome() {
            return code;
        }
    }
}
