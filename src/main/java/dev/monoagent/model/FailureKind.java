package dev.monoagent.model;

/** Why a model turn (and so a run) failed, with the spelling runs and the CLI use. */
public enum FailureKind {
    /** Provider down, overloaded, rate-limited past our retries, network or protocol trouble. */
    PROVIDER_UNAVAILABLE("provider_unavailable"),
    /** Quota or plan limit reached, or the answer was cut at the output-token cap. */
    USAGE_LIMIT("usage_limit"),
    /** The conversation no longer fits the model's context window. */
    CONTEXT_LIMIT("context_limit"),
    /** Credentials missing, rejected or expired. */
    AUTH_REQUIRED("auth_required"),
    /** The caller stopped the turn. */
    CANCELLED("cancelled"),
    /** The loop hit runtime.maxTurns (reported by the loop, never by a client). */
    MAX_TURNS("max_turns");

    private final String wire;

    FailureKind(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
