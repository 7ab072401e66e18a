package dev.monoagent.model;

/**
 * Where the {@code openai-codex} client gets its ChatGPT sign-in. The auth package implements it over the token
 * store (refreshing before expiry); tests pass a lambda. Tokens go to the HTTP layer only: never to logs, events,
 * run records or the sandbox.
 */
@FunctionalInterface
public interface CodexCredentials {

    /** The sign-in command users are told to run. */
    String LOGIN_COMMAND = "mono-agent auth login openai-codex";

    /**
     * A token to use now, refreshed first when it is about to expire.
     *
     * @throws AuthRequiredException when there is no usable sign-in
     */
    CodexToken current() throws AuthRequiredException;

    /**
     * The backend rejected {@code rejected} with 401: reload or refresh once and return the new token, or throw.
     * The default gives up.
     */
    default CodexToken afterUnauthorized(CodexToken rejected) throws AuthRequiredException {
        throw new AuthRequiredException("ChatGPT rejected the sign-in; run: " + LOGIN_COMMAND);
    }
}
