package dev.monoagent.model;

import dev.monoagent.config.MonoConfig;

/**
 * How often and how patiently a transient failure is retried.
 *
 * @param attempts     attempts per turn, counting the first
 * @param backoffMs    first delay; doubles each retry
 * @param maxBackoffMs cap on a computed delay, and the longest {@code retry-after} we wait for
 */
public record RetryPolicy(int attempts, long backoffMs, long maxBackoffMs) {

    public static RetryPolicy of(MonoConfig.Retry r) {
        return new RetryPolicy(r.primaryAttempts(), r.backoffMs(), r.maxBackoffMs());
    }

    /** The computed delay before attempt {@code next} (2 = first retry). */
    long backoff(int next) {
        long d = backoffMs;
        for (int i = 2; i < next && d < maxBackoffMs; i++) {
            d *= 2;
        }
        return Math.min(d, maxBackoffMs);
    }
}
