package dev.monoagent.model.auth;

/**
 * The seam between the Codex model client and the sign-in store. {@link #current()} is called before every request
 * (cheap: a file read; it refreshes only when the token is near expiry). After a 401 the client calls
 * {@link #afterUnauthorized} once and retries with what it returns; a second 401 is {@code auth_required}.
 */
public interface CodexCredentials {
    /**
     * A usable credential, refreshed first when due.
     *
     * @throws AuthRequiredException    missing, expired without refresh, or refused refresh (message names the fix)
     * @throws AuthUnavailableException expired and the authorization server is unreachable right now
     */
    CodexCredential current();

    /**
     * The backend refused {@code rejected}: returns a newer credential (another process may already have refreshed,
     * else this refreshes now).
     *
     * @throws AuthRequiredException when no newer credential can be had
     */
    CodexCredential afterUnauthorized(CodexCredential rejected);
}
