package dev.monoagent.tools;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.ToolBinaries;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Everything one tool call may use: its ids (for attribution), the workspace and compiled {@link Policy}, the
 * sandbox port ({@link SandboxPort#UNAVAILABLE} when the engine is not proven), the event sink, the artifacts dir
 * and the run's {@link RunScope}.
 *
 * @param runId        the run
 * @param callId       this call
 * @param tool         this call's tool name
 * @param workspace    the agent folder (absolute, real)
 * @param policy       the same compiled policy the sandbox enforces
 * @param sandbox      the engine port; never null
 * @param events       where violations go
 * @param artifactsDir {@code <ws>/.mono-agent/artifacts}
 * @param scope        resources owned by the run
 * @param binaries     the trusted host {@code rg} and {@code node} ({@link ToolBinaries})
 */
public record ToolContext(String runId, String callId, String tool, Path workspace, Policy policy, SandboxPort sandbox,
                          EventSink events, Path artifactsDir, RunScope scope, ToolBinaries binaries) {

    public ToolContext {
        sandbox = sandbox == null ? SandboxPort.UNAVAILABLE : sandbox;
        events = events == null ? EventSink.NONE : events;
        binaries = binaries == null ? new ToolBinaries(null, null) : binaries;
    }

    /** Reports an OBSERVED violation by this call (a refusal the tools themselves enforced). */
    public void violation(Violation.Kind kind, String command, String target, String reason) {
        report(new Violation(Instant.now(), Violation.Tier.OBSERVED, kind, runId, callId, tool, command, target,
                reason));
    }

    /** Forwards a violation (e.g. from the engine), attributed to this call when it carries no ids. */
    public void report(Violation v) {
        Violation attributed = v.callId() != null ? v : new Violation(v.time(), v.tier(), v.kind(), runId, callId,
                v.tool() != null ? v.tool() : tool, v.command(), v.target(), v.reason());
        events.accept(new Event.ViolationObserved(Instant.now(), attributed));
    }

    /** Where the full output of this call is spilled when the result is capped. */
    public Path spillFile() {
        return artifactsDir.resolve("tool-output").resolve(safe(runId)).resolve(safe(callId) + ".txt");
    }

    private static String safe(String id) {
        return id == null ? "unknown" : id.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
