package dev.monoagent.ui.port;

import dev.monoagent.common.ProbeResult;
import java.time.Instant;
import java.util.List;

/**
 * The result of a sandbox check or setup.
 *
 * @param passed  every probe passed
 * @param results one entry per probe, in run order
 * @param at      when the check finished
 */
public record CheckReport(boolean passed, List<ProbeResult> results, Instant at) {
    public CheckReport {
        results = List.copyOf(results);
    }

    /** "id: detail" of the first failing probe, or null. */
    public String firstFailure() {
        return results.stream().filter(p -> !p.passed()).findFirst().map(p -> p.id() + ": " + p.detail())
                .orElse(null);
    }
}
