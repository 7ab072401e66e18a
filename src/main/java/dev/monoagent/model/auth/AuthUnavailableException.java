package dev.monoagent.model.auth;

/**
 * The access token is expired and the authorization server could not be reached or failed transiently: the sign-in
 * itself may be fine, so this is {@code provider_unavailable}, not {@code auth_required}.
 */
public final class AuthUnavailableException extends RuntimeException {
    public AuthUnavailableException(String message) {
        super(message);
    }
}
