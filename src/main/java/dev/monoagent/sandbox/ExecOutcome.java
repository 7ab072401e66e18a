package dev.monoagent.sandbox;

import dev.monoagent.common.Violation;
import java.util.List;

/** What became of a command: it ran (under the policy), or it never started because the sandbox is not proven. */
public sealed interface ExecOutcome {

    /** The text every surface shows when a fail-closed policy refuses to run a command. */
    String FAIL_CLOSED_TEXT = "Error: Sandbox engine is unavailable and policy is fail-closed.";

    /**
     * @param exitCode      the real exit status (128 + signal when killed by a signal)
     * @param signal        the signal number that ended it, or 0
     * @param stdout        captured stdout (bounded)
     * @param stderr        captured stderr (bounded)
     * @param truncated     whether either stream went over its cap
     * @param timedOut      whether the timeout ended it
     * @param violations    what the engine observed or the post-command scan detected for this command
     * @param elapsedMillis wall time
     * @param mode          how it ran: native, off or unsafe-host-process
     * @param allowed       the granted host loopback listeners it reached (allowed traffic, not violations)
     */
    record Completed(int exitCode, int signal, String stdout, String stderr, boolean truncated, boolean timedOut,
                     List<Violation> violations, long elapsedMillis, dev.monoagent.common.Effective mode,
                     List<dev.monoagent.common.Event.NetworkAllowed> allowed) implements ExecOutcome {
        public Completed {
            violations = List.copyOf(violations);
            allowed = List.copyOf(allowed);
        }

        /** A command that reached no granted host listener. */
        public Completed(int exitCode, int signal, String stdout, String stderr, boolean truncated, boolean timedOut,
                         List<Violation> violations, long elapsedMillis, dev.monoagent.common.Effective mode) {
            this(exitCode, signal, stdout, stderr, truncated, timedOut, violations, elapsedMillis, mode, List.of());
        }
    }

    /**
     * Nothing ran. {@code code} is {@code sandbox_prepare_failed}.
     *
     * @param reason why the engine is not usable (for status lines and logs)
     */
    record PrepareFailed(String code, String reason) implements ExecOutcome, StartOutcome {
        public static PrepareFailed unavailable(String reason) {
            return new PrepareFailed("sandbox_prepare_failed", reason);
        }

        /** The tool-facing text. */
        public String text() {
            return FAIL_CLOSED_TEXT;
        }
    }
}
