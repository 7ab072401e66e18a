package dev.monoagent.model.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ChatGPT ("openai-codex") sign-in service behind {@code mono-agent auth ...}, validate, the window's "Sign in"
 * action and the Codex model client: login (browser + paste, device), status, logout, one-time import from the Codex
 * CLI, and credentials that refresh themselves. A refresh runs under the store's cross-process lock and re-reads the
 * store first, so when several processes find the token due at once exactly one of them spends the (single-use)
 * refresh token and the others pick up its result.
 */
public final class CodexAuth implements CodexCredentials {
    public static final String PROVIDER = CodexAuthSettings.PROVIDER;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CodexAuthSettings settings;
    private final AuthStore store;
    private final TokenEndpoint endpoint;
    private final Clock clock;

    public CodexAuth(CodexAuthSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.store = new AuthStore(settings.storeDir());
        this.endpoint = new TokenEndpoint(settings, clock);
    }

    /** The service for an environment map (CLI context, process env) and the current user's home. */
    public static CodexAuth fromEnv(Map<String, String> env) {
        return new CodexAuth(CodexAuthSettings.fromEnv(env, Path.of(System.getProperty("user.home"))),
                Clock.systemUTC());
    }

    public CodexAuthSettings settings() {
        return settings;
    }

    public AuthStore store() {
        return store;
    }

    TokenEndpoint endpoint() {
        return endpoint;
    }

    /** Starts a browser sign-in: binds the loopback callback (if it can) and builds the authorize address. */
    public BrowserLogin startBrowserLogin() {
        return new BrowserLogin(this);
    }

    /** Starts a device-code sign-in (asks the server for a one-time code). */
    public DeviceLogin startDeviceLogin() throws AuthEndpointException {
        return new DeviceLogin(this, endpoint.requestDeviceCode());
    }

    void save(CodexTokens t) {
        store.locked(() -> {
            store.write(PROVIDER, t);
            return null;
        });
    }

    /** Present, expired or missing, with who is signed in and until when. */
    public AuthStatus status() {
        Instant now = clock.instant();
        Optional<CodexTokens> stored = store.read(PROVIDER);
        List<String> d = new ArrayList<>();
        if (stored.isEmpty()) {
            d.add("No ChatGPT sign-in in " + store.file() + ". Run `" + CodexAuthSettings.LOGIN_COMMAND + "`.");
            Path codex = settings.codexHome().resolve("auth.json");
            if (Files.isRegularFile(codex)) {
                d.add("A Codex CLI sign-in exists at " + codex + "; `mono-agent auth import --from-codex` copies it "
                        + "(after our first refresh the Codex CLI must sign in again).");
            }
            return new AuthStatus(PROVIDER, CredentialState.MISSING, d);
        }
        CodexTokens t = stored.get();
        String who = "account " + (t.email() != null ? t.email() : "(e-mail unknown)")
                + (t.plan() != null ? ", plan " + t.plan() : "") + (t.accountId() != null ? ", id " + t.accountId() : "")
                + " (" + t.origin() + ")";
        if (t.invalidReason() != null) {
            d.add(who);
            d.add("The authorization server refused to renew this sign-in (" + t.invalidReason() + "). Run `"
                    + CodexAuthSettings.LOGIN_COMMAND + "`.");
            return new AuthStatus(PROVIDER, CredentialState.EXPIRED, d);
        }
        if (t.accessExpired(now) && !t.hasRefreshToken()) {
            d.add(who);
            d.add("The access token expired at " + t.expiresAt() + " and no refresh token is held. Run `"
                    + CodexAuthSettings.LOGIN_COMMAND + "`.");
            return new AuthStatus(PROVIDER, CredentialState.EXPIRED, d);
        }
        d.add(who);
        if (t.expiresAt() == null) {
            d.add("Access token expiry unknown; last refreshed " + t.lastRefresh() + ".");
        } else if (t.accessExpired(now)) {
            d.add("Access token expired at " + t.expiresAt() + "; it is renewed on next use (refresh token held).");
        } else {
            d.add("Access token valid until " + t.expiresAt() + (t.hasRefreshToken() ? "; renewed automatically."
                    : "; no refresh token, sign in again after that."));
        }
        return new AuthStatus(PROVIDER, CredentialState.PRESENT, d);
    }

    /** Forgets the stored sign-in (the tokens stay valid at OpenAI until they expire). True when one was stored. */
    public boolean logout() {
        if (!Files.exists(store.file(), LinkOption.NOFOLLOW_LINKS)) {
            return false; // nothing to forget: do not create the config dir just to say so
        }
        return store.locked(() -> store.delete(PROVIDER));
    }

    /**
     * Copies the Codex CLI's ChatGPT sign-in ({@code $CODEX_HOME/auth.json}, read once, never written).
     *
     * @throws IllegalArgumentException the file is missing or holds no ChatGPT tokens (message for the user)
     */
    public CodexTokens importFromCodex() {
        Path f = settings.codexHome().resolve("auth.json");
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("No Codex CLI sign-in at " + f + " (the Codex CLI may keep it in the "
                    + "OS keyring). Run `" + CodexAuthSettings.LOGIN_COMMAND + "` instead.");
        }
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read " + f + ": " + e.getMessage());
        }
        JsonNode tok = root == null ? null : root.path("tokens");
        String access = tok == null ? null : text(tok, "access_token");
        String refresh = tok == null ? null : text(tok, "refresh_token");
        if (access == null || refresh == null) {
            throw new IllegalArgumentException(f + " holds no ChatGPT sign-in (tokens.access_token and "
                    + "tokens.refresh_token are needed; an API-key login cannot be imported).");
        }
        Instant last = clock.instant();
        String lr = text(root, "last_refresh");
        if (lr != null) {
            try {
                last = Instant.parse(lr);
            } catch (DateTimeParseException ignored) {
                // keep now
            }
        }
        CodexTokens t = CodexTokens.from(text(tok, "id_token"), access, refresh, null, last, "codex-import");
        if (t.accountId() == null && text(tok, "account_id") != null) {
            t = new CodexTokens(t.idToken(), t.accessToken(), t.refreshToken(), text(tok, "account_id"), t.email(),
                    t.plan(), t.expiresAt(), t.lastRefresh(), t.origin(), null);
        }
        save(t);
        return t;
    }

    @Override
    public CodexCredential current() {
        CodexTokens t = usable(store.read(PROVIDER));
        if (!t.needsRefresh(clock.instant())) {
            return credential(t);
        }
        return refresh(null);
    }

    @Override
    public CodexCredential afterUnauthorized(CodexCredential rejected) {
        return refresh(rejected == null ? null : rejected.accessToken());
    }

    /**
     * Refreshes under the lock. {@code rejected} (after a 401) forces a refresh unless the store already holds a
     * different access token; without it, refreshes only if the re-read store still says it is due.
     */
    private CodexCredential refresh(String rejected) {
        return store.locked(() -> {
            CodexTokens cur = usable(store.read(PROVIDER));
            Instant now = clock.instant();
            if (rejected != null ? !rejected.equals(cur.accessToken()) : !cur.needsRefresh(now)) {
                return credential(cur);
            }
            if (!cur.hasRefreshToken()) {
                if (rejected == null && !cur.accessExpired(now)) {
                    return credential(cur);
                }
                throw new AuthRequiredException(PROVIDER, "The ChatGPT access token "
                        + (rejected != null ? "was refused" : "expired") + " and no refresh token is held.");
            }
            try {
                CodexTokens fresh = endpoint.refresh(cur);
                store.write(PROVIDER, fresh);
                return credential(fresh);
            } catch (AuthEndpointException e) {
                if (e.permanent()) {
                    store.write(PROVIDER, cur.invalidated(e.code() != null ? e.code() : "refused"));
                    String why = e.getMessage().endsWith(".") ? e.getMessage() : e.getMessage() + ".";
                    throw new AuthRequiredException(PROVIDER, "The ChatGPT sign-in could not be renewed: " + why);
                }
                if (rejected == null && !cur.accessExpired(now)) {
                    return credential(cur);
                }
                throw new AuthUnavailableException("The ChatGPT access token needs renewing but " + e.getMessage());
            }
        });
    }

    private static CodexTokens usable(Optional<CodexTokens> stored) {
        CodexTokens t = stored.orElseThrow(() -> AuthRequiredException.notSignedIn(PROVIDER,
                "No ChatGPT sign-in is stored for openai-codex."));
        if (t.invalidReason() != null) {
            throw new AuthRequiredException(PROVIDER, "The ChatGPT sign-in was revoked or has expired ("
                    + t.invalidReason() + ").");
        }
        return t;
    }

    private static CodexCredential credential(CodexTokens t) {
        return new CodexCredential(t.accessToken(), t.accountId());
    }

    private static String text(JsonNode n, String k) {
        JsonNode v = n.path(k);
        return v.isTextual() && !v.asText().isBlank() ? v.asText() : null;
    }
}
