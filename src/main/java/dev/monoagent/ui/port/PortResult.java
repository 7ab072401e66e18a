package dev.monoagent.ui.port;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.ExecOutcome;
import java.util.List;

/**
 * A tool-shaped result: the outcome ({@code ok} or a failure code), the text the model would see, what the sandbox
 * refused while producing it, and structured data ({@code exitCode} of a command), as the tools facade returns it.
 */
public record PortResult(ToolOutcome outcome, String text, List<Violation> violations, long elapsedMillis,
                         JsonNode data) {
    public PortResult {
        violations = List.copyOf(violations);
    }

    public PortResult(ToolOutcome outcome, String text, List<Violation> violations, long elapsedMillis) {
        this(outcome, text, violations, elapsedMillis, null);
    }

    /** The tool-shaped view of a sandbox outcome (stdout then stderr; a nonzero exit is ok with its exit code). */
    public static PortResult of(ExecOutcome o) {
        return switch (o) {
            case ExecOutcome.PrepareFailed p -> new PortResult(ToolOutcome.SANDBOX_PREPARE_FAILED, p.text(), List.of(),
                    0);
            case ExecOutcome.Completed c -> {
                StringBuilder text = new StringBuilder(c.stdout());
                if (!c.stderr().isEmpty()) {
                    if (!text.isEmpty() && text.charAt(text.length() - 1) != '\n') {
                        text.append('\n');
                    }
                    text.append(c.stderr());
                }
                yield new PortResult(c.timedOut() ? ToolOutcome.TIMEOUT : ToolOutcome.OK, text.toString(),
                        c.violations(), c.elapsedMillis(), JsonNodeFactory.instance.objectNode()
                        .put("exitCode", c.exitCode()));
            }
        };
    }

    public boolean ok() {
        return outcome == ToolOutcome.OK;
    }
}
