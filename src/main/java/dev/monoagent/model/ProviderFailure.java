package dev.monoagent.model;

/**
 * One attempt failed, already classified: what kind, whether another attempt may help, and how long the server
 * asked us to wait. Thrown inside a client; callers only ever see {@link ModelEvent.Failed}.
 */
final class ProviderFailure extends Exception {
    private static final long serialVersionUID = 1L;
    final FailureKind kind;
    final boolean retryable;
    final int status;
    /** Server-directed delay in ms ({@code retry-after}, "try again in"), or -1. */
    final long retryAfterMs;

    ProviderFailure(FailureKind kind, boolean retryable, int status, long retryAfterMs, String message) {
        super(message, null, false, false);
        this.kind = kind;
        this.retryable = retryable;
        this.status = status;
        this.retryAfterMs = retryAfterMs;
    }

    static ProviderFailure transientFailure(int status, long retryAfterMs, String message) {
        return new ProviderFailure(FailureKind.PROVIDER_UNAVAILABLE, true, status, retryAfterMs, message);
    }

    /** No key configured: auth_required naming the variable to set; nothing was sent. */
    static ProviderFailure missingKey(String provider, String keyEnv) {
        return permanent(FailureKind.AUTH_REQUIRED, 0, provider + ": no API key; set " + keyEnv
                + " (exported or in .env)");
    }

    static ProviderFailure permanent(FailureKind kind, int status, String message) {
        return new ProviderFailure(kind, false, status, -1, message);
    }
}
