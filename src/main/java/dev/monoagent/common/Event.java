package dev.monoagent.common;

import java.time.Instant;
import java.util.List;

/**
 * Everything that happens, as one protocol. The CLI prints these, the workbench renders them, the run log appends
 * them as JSONL. Ids pair beginnings with ends ({@code runId}, {@code callId}).
 */
public sealed interface Event {
    Instant time();

    record RunStarted(Instant time, String runId, String workspace) implements Event {}

    record RunFinished(Instant time, String runId, String status) implements Event {}

    record UserMessage(Instant time, String runId, String text) implements Event {}

    record AssistantDelta(Instant time, String runId, String text) implements Event {}

    record ToolCallStarted(Instant time, String runId, String callId, String tool, String argsJson) implements Event {}

    /** A chunk of live output from a running tool call. */
    record ToolOutput(Instant time, String runId, String callId, String text) implements Event {}

    /**
     * @param outcome {@code ok} or a failure code such as {@code sandbox_prepare_failed}
     */
    record ToolCallFinished(Instant time, String runId, String callId, String tool, String outcome, String text,
                            long durationMs) implements Event {}

    record ViolationObserved(Instant time, Violation violation) implements Event {}

    /**
     * @param effective how commands run now
     * @param reason    why, when not native
     */
    record SandboxStateChanged(Instant time, Effective effective, String reason) implements Event {}

    record ProbeFinished(Instant time, ProbeResult result) implements Event {}

    record SelfCheckFinished(Instant time, boolean passed, List<ProbeResult> results) implements Event {}

    /**
     * Long-term memory recalled for a turn.
     *
     * @param items   entries appended to the user message
     * @param bytes   UTF-8 size of the recall block
     * @param mode    {@code hybrid} or {@code keyword-only}
     * @param reason  why keyword-only (vectors off, embedder unavailable), or null
     * @param sources where each entry lives ({@code daily/2026-11-30.md:12})
     */
    record MemoryRecalled(Instant time, String runId, int items, int bytes, String mode, String reason,
                          List<String> sources) implements Event {
        public MemoryRecalled {
            sources = List.copyOf(sources);
        }
    }

    /**
     * The sandbox policy of a workspace changed against the one last accepted (issue 9 item 1).
     *
     * @param workspace the agent folder
     * @param changes   each difference, one sentence naming the config key
     * @param weaker    it grants more than the accepted one
     * @param applied   false when a weaker policy was refused (nothing ran under it)
     * @param by        who decided: "first use", "stronger", "--accept-policy-change", "dialog", "refused"
     */
    record PolicyChanged(Instant time, String workspace, List<String> changes, boolean weaker, boolean applied,
                         String by) implements Event {
        public PolicyChanged {
            changes = List.copyOf(changes);
        }
    }
}
