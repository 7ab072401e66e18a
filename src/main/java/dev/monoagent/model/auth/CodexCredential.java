package dev.monoagent.model.auth;

/**
 * What a Codex backend request needs: {@code Authorization: Bearer <accessToken>} and {@code chatgpt-account-id}.
 * {@link #toString()} hides the token.
 */
public record CodexCredential(String accessToken, String accountId) {
    @Override
    public String toString() {
        return "CodexCredential[account=" + accountId + ", token=redacted]";
    }
}
