package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Violation;
import dev.monoagent.tools.ToolResult;
import java.util.List;
import java.util.Locale;

/**
 * One tool call's result as the control endpoint carries it to {@code mono-agent tools call}.
 *
 * @param outcome    {@code ok} or the failure code ({@code sandbox_prepare_failed}, {@code denied_by_policy}, ...)
 * @param text       the model-facing text
 * @param data       structured data of an ok result, or null
 * @param violations what the sandbox or the tool refused during the call
 */
public record ToolCallReply(String outcome, String text, JsonNode data, List<ViolationLine> violations) {
    public ToolCallReply {
        violations = violations == null ? List.of() : List.copyOf(violations);
    }

    /** The reply for a finished call and the violations attributed to it. */
    public static ToolCallReply of(ToolResult r, List<Violation> violations) {
        return new ToolCallReply(r.outcome(), r.text(), r instanceof ToolResult.Ok ok ? ok.data() : null,
                violations.stream().map(v -> new ViolationLine(v.tier().name().toLowerCase(Locale.ROOT),
                        v.kind().name().toLowerCase(Locale.ROOT), v.target(), v.reason(), v.callId())).toList());
    }

    /** A violation flattened for the wire. */
    public record ViolationLine(String tier, String kind, String target, String reason, String callId) {}
}
