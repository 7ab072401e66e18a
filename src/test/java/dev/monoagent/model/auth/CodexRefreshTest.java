package dev.monoagent.model.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Refresh before expiry, expired and revoked sign-ins, 401 recovery, and one refresh across racing processes. */
class CodexRefreshTest {
    @TempDir
    Path tmp;
    FakeAuthServer fake;
    CodexAuth auth;

    @BeforeEach
    void setUp() throws Exception {
        fake = new FakeAuthServer();
        auth = new CodexAuth(new CodexAuthSettings(fake.issuer(), FakeAuthServer.CLIENT_ID, 0, tmp.resolve("cfg"),
                tmp.resolve("codex")), Clock.systemUTC());
    }

    @AfterEach
    void tearDown() {
        fake.close();
    }

    /** Stores a sign-in whose access token expires {@code inSeconds} from now (negative = already expired). */
    CodexTokens seed(long inSeconds, boolean withRefresh) {
        Instant exp = Instant.now().plusSeconds(inSeconds);
        CodexTokens t = new CodexTokens(null, FakeAuthServer.jwt(FakeAuthServer.ACCOUNT, exp.getEpochSecond(), "a@b"),
                withRefresh ? fake.mintRefreshToken() : null, FakeAuthServer.ACCOUNT, "a@b", "plus", exp,
                Instant.now().minusSeconds(3600), "browser", null);
        auth.save(t);
        return t;
    }

    @Test
    void validTokenIsUsedWithoutRefreshing() {
        CodexTokens t = seed(3600, true);
        assertEquals(t.accessToken(), auth.current().accessToken());
        assertEquals(0, fake.refreshCalls.get());
    }

    @Test
    void tokenNearExpiryIsRefreshedAndTheRotatedTokenPersisted() throws Exception {
        CodexTokens old = seed(60, true);
        CodexCredential c = auth.current();
        assertNotEquals(old.accessToken(), c.accessToken());
        assertEquals(FakeAuthServer.ACCOUNT, c.accountId());
        assertEquals(1, fake.successfulRefreshes.get());
        assertEquals("application/json", fake.tokenContentTypes.get(0));
        CodexTokens stored = auth.store().read(CodexAuth.PROVIDER).orElseThrow();
        assertNotEquals(old.refreshToken(), stored.refreshToken(), "the rotated refresh token is kept");
        assertEquals(c.accessToken(), auth.current().accessToken());
        assertEquals(1, fake.refreshCalls.get(), "a fresh token is not refreshed again");
    }

    /** Someone who never signed in is told to sign in, not to "sign in again". */
    @Test
    void noStoredSignInSaysSignInNotSignInAgain() {
        AuthRequiredException e = assertThrows(AuthRequiredException.class, auth::current);
        assertEquals("No ChatGPT sign-in is stored for openai-codex. Run `mono-agent auth login openai-codex` to "
                + "sign in.", e.getMessage());
    }

    @Test
    void expiredTokenWithoutRefreshTokenIsAuthRequiredWithTheCommand() {
        seed(-10, false);
        AuthRequiredException e = assertThrows(AuthRequiredException.class, auth::current);
        assertTrue(e.getMessage().contains("`mono-agent auth login openai-codex`"), e.getMessage());
        assertEquals("auth_required", e.kind());
        assertEquals(CredentialState.EXPIRED, auth.status().state());
    }

    @Test
    void expiredTokenIsRefreshedTransparently() {
        CodexTokens old = seed(-600, true);
        assertEquals(CredentialState.PRESENT, auth.status().state(), "expired access + refresh token is usable");
        assertNotEquals(old.accessToken(), auth.current().accessToken());
    }

    @Test
    void revokedRefreshTokenIsAClearAuthRequiredAndIsNotRetried() {
        CodexTokens old = seed(-600, true);
        fake.revoke(old.refreshToken());
        AuthRequiredException e = assertThrows(AuthRequiredException.class, auth::current);
        assertTrue(e.getMessage().contains("refresh_token_invalidated"), e.getMessage());
        assertTrue(e.getMessage().endsWith("Run `mono-agent auth login openai-codex` to sign in again."),
                e.getMessage());
        assertFalse(e.getMessage().contains(old.refreshToken()), "no token in messages");
        AuthStatus s = auth.status();
        assertEquals(CredentialState.EXPIRED, s.state());
        assertTrue(String.join("\n", s.details()).contains("mono-agent auth login openai-codex"));
        assertThrows(AuthRequiredException.class, auth::current);
        assertEquals(1, fake.refreshCalls.get(), "a dead refresh token is not sent again");
    }

    @Test
    void reusedRefreshTokenIsAuthRequired() {
        CodexTokens old = seed(-600, true);
        auth.current();
        auth.save(old); // e.g. an old backup restored: its refresh token was already spent
        AuthRequiredException e = assertThrows(AuthRequiredException.class, auth::current);
        assertTrue(e.getMessage().contains("refresh_token_reused"), e.getMessage());
    }

    @Test
    void serverTroubleKeepsAStillValidTokenButFailsTransientlyWhenExpired() {
        fake.failRefreshWithStatus = 503;
        CodexTokens soon = seed(60, true);
        assertEquals(soon.accessToken(), auth.current().accessToken(), "still valid: used while refresh fails");
        seed(-60, true);
        AuthUnavailableException e = assertThrows(AuthUnavailableException.class, auth::current);
        assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
        assertEquals(CredentialState.PRESENT, auth.status().state(), "a server hiccup does not kill the sign-in");
    }

    @Test
    void unauthorizedForcesOneRefreshUnlessAnotherProcessAlreadyDidIt() {
        CodexTokens t = seed(3600, true);
        CodexCredential first = auth.current();
        CodexCredential second = auth.afterUnauthorized(first);
        assertNotEquals(t.accessToken(), second.accessToken());
        assertEquals(1, fake.successfulRefreshes.get());
        // a request that still carried the old token is answered from the store, without another refresh
        assertEquals(second.accessToken(), auth.afterUnauthorized(first).accessToken());
        assertEquals(1, fake.refreshCalls.get());
    }

    @Test
    void missingSignInNamesTheCommand() {
        AuthRequiredException e = assertThrows(AuthRequiredException.class, auth::current);
        assertTrue(e.getMessage().contains("mono-agent auth login openai-codex"));
        assertEquals(CredentialState.MISSING, auth.status().state());
    }

    @Test
    void threadsRacingForAnExpiredTokenCauseOneRefresh() throws Exception {
        seed(-60, true);
        fake.refreshDelayMs = 300;
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            results.add(pool.submit(() -> auth.current().accessToken()));
        }
        Set<String> tokens = new HashSet<>();
        for (Future<String> f : results) {
            tokens.add(f.get(30, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertEquals(1, tokens.size());
        assertEquals(1, fake.refreshCalls.get());
    }

    @Test
    void twoProcessesRacingForAnExpiredTokenCauseExactlyOneRefresh() throws Exception {
        seed(-60, true);
        fake.refreshDelayMs = 500;
        Path go = tmp.resolve("go");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<Process> procs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Path ready = tmp.resolve("ready" + i);
            procs.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    RefreshRaceMain.class.getName(), tmp.resolve("cfg").toString(), fake.issuer().toString(),
                    go.toString(), ready.toString()).redirectErrorStream(true).start());
        }
        long deadline = System.currentTimeMillis() + 60_000;
        while (!(Files.exists(tmp.resolve("ready0")) && Files.exists(tmp.resolve("ready1")))
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        Files.writeString(go, "go");
        Set<String> tokens = new HashSet<>();
        for (Process p : procs) {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(out.startsWith("TOKEN "), out);
            tokens.add(out.lines().filter(l -> l.startsWith("TOKEN ")).findFirst().orElseThrow());
        }
        assertEquals(1, tokens.size(), "both processes end up with the same refreshed token");
        assertEquals(1, fake.refreshCalls.get(), "exactly one refresh reached the server");
        assertEquals(1, fake.successfulRefreshes.get());
    }
}
