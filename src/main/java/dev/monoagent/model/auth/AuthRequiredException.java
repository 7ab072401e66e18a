package dev.monoagent.model.auth;

/**
 * No usable sign-in: missing, expired without a refresh token, or the refresh token was refused for good. The run
 * fails with {@code auth_required}; the message names the exact command that fixes it and never holds a token.
 */
public final class AuthRequiredException extends RuntimeException {
    private final String provider;

    /** A sign-in that was there and no longer works: the message says to sign in again. */
    public AuthRequiredException(String provider, String reason) {
        this(provider, reason, true);
    }

    private AuthRequiredException(String provider, String reason, boolean again) {
        super(reason + " Run `" + loginCommand(provider) + "` to sign in" + (again ? " again." : "."));
        this.provider = provider;
    }

    /** No sign-in was ever stored: the message says to sign in, not to sign in again. */
    public static AuthRequiredException notSignedIn(String provider, String reason) {
        return new AuthRequiredException(provider, reason, false);
    }

    public String provider() {
        return provider;
    }

    /** The failure kind a run reports for this. */
    public String kind() {
        return "auth_required";
    }

    public String command() {
        return loginCommand(provider);
    }

    static String loginCommand(String provider) {
        return "mono-agent auth login " + provider;
    }
}
