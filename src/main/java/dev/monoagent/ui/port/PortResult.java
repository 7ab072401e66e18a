package dev.monoagent.ui.port;

import dev.monoagent.common.Violation;
import java.util.List;

/**
 * A tool-shaped result: an outcome code ({@code ok} or a failure code), the text the model would see, and what the
 * sandbox refused while producing it.
 */
public record PortResult(String outcome, String text, List<Violation> violations, long elapsedMillis) {
    public PortResult {
        violations = List.copyOf(violations);
    }

    /** The tool-shaped view of a sandbox outcome (stdout then stderr; outcome {@code ok}, {@code exit N}, ...). */
    public static PortResult of(dev.monoagent.sandbox.ExecOutcome o) {
        return switch (o) {
            case dev.monoagent.sandbox.ExecOutcome.PrepareFailed p -> new PortResult(p.code(), p.text(), List.of(), 0);
            case dev.monoagent.sandbox.ExecOutcome.Completed c -> {
                StringBuilder text = new StringBuilder(c.stdout());
                if (!c.stderr().isEmpty()) {
                    if (!text.isEmpty() && text.charAt(text.length() - 1) != '\n') {
                        text.append('\n');
                    }
                    text.append(c.stderr());
                }
                String outcome = c.timedOut() ? "timeout" : c.exitCode() == 0 ? "ok" : "exit " + c.exitCode();
                yield new PortResult(outcome, text.toString(), c.violations(), c.elapsedMillis());
            }
        };
    }

    public boolean ok() {
        return "ok".equals(outcome);
    }
}
