package dev.monoagent.model;

/** Credentials are missing, expired beyond refresh, or revoked; the message names the command that fixes it. */
public final class AuthRequiredException extends Exception {
    private static final long serialVersionUID = 1L;

    public AuthRequiredException(String message) {
        super(message);
    }
}
