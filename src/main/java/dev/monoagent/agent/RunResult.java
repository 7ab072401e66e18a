package dev.monoagent.agent;

import dev.monoagent.common.RunStatus;

/**
 * How an agent run ended.
 *
 * @param answer      the final answer (null unless {@code status} is completed)
 * @param failureKind {@code provider_unavailable}, {@code usage_limit}, {@code context_limit}, {@code auth_required},
 *                    {@code cancelled}, {@code max_turns} (or {@code internal_error} for a bug); null on success
 * @param message     what went wrong, for people (never credentials); null on success
 */
public record RunResult(String runId, String conversationId, RunStatus status, String answer, String failureKind,
                        String message) {

    public boolean ok() {
        return status == RunStatus.COMPLETED;
    }
}
