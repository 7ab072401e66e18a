package dev.monoagent.common;

import java.time.Instant;
import java.util.List;

/**
 * Everything that happens, as one protocol. The CLI prints these, the workbench renders them, the run log appends
 * them as JSONL. Ids pair beginnings with ends ({@code runId}, {@code callId}).
 */
public sealed interface Event {
    Instant time();

    /** The run an event belongs to, or null for service-wide events (sandbox state, self-checks). */
    static String runIdOf(Event e) {
        return switch (e) {
            case RunStarted r -> r.runId();
            case RunFinished r -> r.runId();
            case RunHeader r -> r.runId();
            case UserMessage m -> m.runId();
            case AssistantDelta d -> d.runId();
            case ReasoningDelta r -> r.runId();
            case ToolCallStarted s -> s.runId();
            case ToolOutput o -> o.runId();
            case ToolCallFinished f -> f.runId();
            case ViolationObserved v -> v.violation().runId();
            case NetworkAllowed a -> a.runId();
            case MemoryRecalled m -> m.runId();
            case AgentRunStarted a -> a.runId();
            case ModelCallFinished m -> m.runId();
            case ModelRetrying m -> m.runId();
            case AssistantMessage m -> m.runId();
            case ContextElided c -> c.runId();
            case RunFailed f -> f.runId();
            case SandboxStateChanged s -> null;
            case SelfCheckStarted s -> null;
            case ProbeFinished p -> null;
            case SelfCheckFinished s -> null;
            case PolicyChanged p -> null;
        };
    }

    /** The tool call an event belongs to, or null. */
    static String callIdOf(Event e) {
        return switch (e) {
            case ToolCallStarted s -> s.callId();
            case ToolOutput o -> o.callId();
            case ToolCallFinished f -> f.callId();
            case ViolationObserved v -> v.violation().callId();
            case NetworkAllowed a -> a.callId();
            default -> null;
        };
    }

    record RunStarted(Instant time, String runId, String workspace) implements Event {}

    record RunFinished(Instant time, String runId, RunStatus status) implements Event {}

    /**
     * The first line of a run log: what was in force when the run began.
     *
     * @param policy        the compiled policy (workspace, mode, roots, protected paths, network)
     * @param engine        the engine fingerprint: version, digest, source
     * @param lastCheck     the last self-check: passed, time (null when never checked)
     */
    record RunHeader(Instant time, String runId, java.util.Map<String, Object> policy, EngineFingerprint engine,
                     LastCheck lastCheck) implements Event {}

    /** Which engine bytes were in force. */
    record EngineFingerprint(String version, String digest, String source) {}

    /** The last self-check result at the time of a run header ({@code at} null: never checked). */
    record LastCheck(boolean passed, Instant at) {}

    record UserMessage(Instant time, String runId, String text) implements Event {}

    record AssistantDelta(Instant time, String runId, String text) implements Event {}

    /**
     * A piece of the model's reasoning summary, streamed before or between its text: what a provider exposes of its
     * reasoning (OpenAI's summaries, Anthropic's thinking text), never anything the provider keeps opaque.
     */
    record ReasoningDelta(Instant time, String runId, String text) implements Event {}

    record ToolCallStarted(Instant time, String runId, String callId, String tool, String argsJson) implements Event {}

    /** A chunk of live output from a running tool call. */
    record ToolOutput(Instant time, String runId, String callId, String text) implements Event {}

    /**
     * @param outcome {@code ok} or a failure code such as {@code sandbox_prepare_failed}
     * @param data    the result's structured data ({@code exitCode}, ...), or null
     */
    record ToolCallFinished(Instant time, String runId, String callId, String tool, ToolOutcome outcome, String text,
                            com.fasterxml.jackson.databind.JsonNode data, long durationMs) implements Event {

        public ToolCallFinished {
            // JSON null and "no data" are one value, so an event read back from a log equals the one written
            data = data == null || data.isNull() || data.isMissingNode() ? null : data;
        }

        /** The status word a transcript card shows: the outcome, or {@code exit N} for a command that failed. */
        public String statusWord() {
            int exit = data == null ? 0 : data.path("exitCode").asInt(0);
            return outcome == ToolOutcome.OK && exit != 0 ? "exit " + exit : outcome.wire();
        }
    }

    record ViolationObserved(Instant time, Violation violation) implements Event {}

    /**
     * A sandboxed command reached a host loopback listener that localhost mode grants: allowed
     * traffic, recorded so a granted Docker API, debugger or forwarding proxy is never reached silently — not a
     * violation. Attributed to the running command when exactly one was running (srt does not say which dialled).
     *
     * @param host     the address dialled ({@code 127.0.0.1} or {@code [::1]})
     * @param port     the host port
     * @param listener the listening process ("java (pid 42)"), or null when it could not be found
     */
    record NetworkAllowed(Instant time, String runId, String callId, String tool, String command, String host,
                          int port, String listener) implements Event {
        /** One line for a tool result, a console or a report. */
        public String describe() {
            return "allowed connection to host port " + port + " (" + host + ", listener: "
                    + (listener == null ? "unknown" : listener) + ")";
        }

        /**
         * The one human wording of this record, for the CLI's stderr and the workbench's command console:
         * {@code network: } and {@link #describe}, escaped ({@link Printable#line}); a {@link Printable} record start.
         */
        public String recordLine() {
            return "network: " + Printable.line(describe());
        }
    }

    /**
     * @param effective how commands run now
     * @param reason    why, when not native
     */
    record SandboxStateChanged(Instant time, Effective effective, String reason) implements Event {}

    /** A self-check began; its probe and finish events carry the same {@code checkId}. */
    record SelfCheckStarted(Instant time, String checkId) implements Event {}

    record ProbeFinished(Instant time, String checkId, ProbeResult result) implements Event {}

    record SelfCheckFinished(Instant time, String checkId, boolean passed, List<ProbeResult> results)
            implements Event {}

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
     * The sandbox policy of a workspace changed against the one last accepted.
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

    /**
     * An agent run began: which conversation it continues and which model answers. Published right after
     * {@link RunStarted}.
     *
     * @param conversationId the conversation under {@code .mono-agent/sessions/} this run appends to
     * @param continued      true when the conversation already had turns
     * @param maxTurns       the model-turn limit of the run ({@code agent.maxTurns})
     */
    record AgentRunStarted(Instant time, String runId, String conversationId, boolean continued, String provider,
                           String model, int maxTurns) implements Event {}

    /**
     * One model request's metadata (never credentials or content).
     *
     * @param turn         1-based model turn within the run
     * @param outcome      {@code stop}, {@code tool_use}, {@code length}, or the failure kind
     *                     ({@code provider_unavailable}, {@code context_limit}, …)
     * @param retries      transient failures retried within this request
     * @param firstEventMs time from sending to the first streamed event (-1 when none came)
     * @param durationMs   time from sending to the terminal event
     */
    record ModelCallFinished(Instant time, String runId, int turn, String provider, String model, String outcome,
                             long inputTokens, long cachedInputTokens, long outputTokens, long reasoningTokens,
                             int retries, long firstEventMs, long durationMs) implements Event {}

    /** A transient model failure; attempt {@code attempt} follows after {@code delayMs}. */
    record ModelRetrying(Instant time, String runId, int turn, int attempt, long delayMs, String reason)
            implements Event {}

    /**
     * The assistant's complete text of one model turn ({@link AssistantDelta}s carried it live).
     *
     * @param finalAnswer true for the run's answer (the turn that called no tools)
     */
    record AssistantMessage(Instant time, String runId, String text, boolean finalAnswer) implements Event {}

    /**
     * The conversation neared the context window and old tool outputs were replaced by a short note (their full text
     * stays in the artifact files).
     *
     * @param outputs      tool outputs elided by this step
     * @param tokensBefore estimated prompt tokens before
     * @param tokensAfter  estimated prompt tokens after
     * @param budget       the prompt budget ({@code context.maxTokens - context.reserveTokens})
     */
    record ContextElided(Instant time, String runId, int outputs, long tokensBefore, long tokensAfter, long budget)
            implements Event {}

    /**
     * Why a run did not end with an answer; published just before its {@link RunFinished}.
     *
     * @param kind {@code provider_unavailable}, {@code usage_limit}, {@code context_limit}, {@code auth_required},
     *             {@code cancelled} or {@code max_turns}
     */
    record RunFailed(Instant time, String runId, String kind, String message) implements Event {}
}
