package dev.monoagent.model.auth;

/**
 * The authorization server refused or could not be reached. {@code permanent} means asking again with the same
 * grant cannot succeed (revoked, reused or expired refresh token, bad code); otherwise it may be retried later.
 */
public final class AuthEndpointException extends Exception {
    private final boolean permanent;
    private final String code;

    AuthEndpointException(String message, String code, boolean permanent) {
        super(message);
        this.code = code;
        this.permanent = permanent;
    }

    public boolean permanent() {
        return permanent;
    }

    /** The server's error code ({@code refresh_token_reused}, {@code invalid_grant}, ...) or null. */
    public String code() {
        return code;
    }
}
