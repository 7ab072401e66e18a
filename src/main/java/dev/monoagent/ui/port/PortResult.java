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

    public boolean ok() {
        return "ok".equals(outcome);
    }
}
