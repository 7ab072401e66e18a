package dev.monoagent.model.auth;

import java.time.Duration;
import java.time.Instant;

/**
 * One stored ChatGPT sign-in. {@link #toString()} never shows a token, so a stray log line cannot leak one.
 *
 * @param idToken       the OpenID id token (JWT), may be null after an import that lacked it
 * @param accessToken   bearer token for the Codex backend (JWT)
 * @param refreshToken  single-use refresh token (it rotates on every refresh); null when none is held
 * @param accountId     ChatGPT account id from the {@code https://api.openai.com/auth} claim
 * @param email         account e-mail, for status lines only
 * @param plan          ChatGPT plan type, for status lines only
 * @param expiresAt     when the access token stops working; null when unknown
 * @param lastRefresh   when these tokens were obtained or last refreshed
 * @param origin        how they were obtained: {@code browser}, {@code paste}, {@code device}, {@code codex-import}
 * @param invalidReason set when the authorization server refused the refresh token for good (revoked, reused,
 *                      expired): the sign-in is dead until the user logs in again
 */
public record CodexTokens(String idToken, String accessToken, String refreshToken, String accountId, String email,
                          String plan, Instant expiresAt, Instant lastRefresh, String origin, String invalidReason) {
    /** Refresh this long before the access token expires, so a request never starts with a token about to die. */
    static final Duration REFRESH_MARGIN = Duration.ofMinutes(5);
    /** Without a known expiry, refresh tokens this old (the Codex CLI's rule). */
    static final Duration STALE_AFTER = Duration.ofDays(8);

    boolean hasRefreshToken() {
        return refreshToken != null && !refreshToken.isBlank() && invalidReason == null;
    }

    boolean accessExpired(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /** Due for a refresh: near or past expiry, or (expiry unknown) older than {@link #STALE_AFTER}. */
    boolean needsRefresh(Instant now) {
        if (expiresAt != null) {
            return !now.isBefore(expiresAt.minus(REFRESH_MARGIN));
        }
        return lastRefresh == null || now.isAfter(lastRefresh.plus(STALE_AFTER));
    }

    CodexTokens invalidated(String reason) {
        return new CodexTokens(idToken, accessToken, null, accountId, email, plan, expiresAt, lastRefresh, origin,
                reason);
    }

    /**
     * Tokens built from an endpoint answer: account, e-mail and plan from the id token (else the access token);
     * expiry from {@code expires_in} when given, else the access token's {@code exp}.
     */
    static CodexTokens from(String idToken, String accessToken, String refreshToken, Long expiresInSeconds,
                            Instant now, String origin) {
        JwtClaims id = JwtClaims.of(idToken);
        JwtClaims access = JwtClaims.of(accessToken);
        Instant expires = expiresInSeconds != null ? now.plusSeconds(expiresInSeconds) : access.expiry();
        return new CodexTokens(idToken, accessToken, refreshToken, first(id.accountId(), access.accountId()),
                first(id.email(), access.email()), first(id.plan(), access.plan()), expires, now, origin, null);
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }

    @Override
    public String toString() {
        return "CodexTokens[account=" + accountId + ", expiresAt=" + expiresAt + ", origin=" + origin
                + ", refresh=" + (hasRefreshToken() ? "held" : "none") + ", tokens=redacted]";
    }
}
