package dev.monoagent.model.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Browser (loopback callback), paste and device sign-in against a local fake authorization server. */
class CodexLoginTest {
    @TempDir
    Path tmp;
    FakeAuthServer fake;
    CodexAuth auth;
    final HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

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

    /** What a browser does: open the authorize URL and return where the server redirects it. */
    URI approve(URI authorizeUrl) throws Exception {
        HttpResponse<String> r = browser.send(HttpRequest.newBuilder(authorizeUrl).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(302, r.statusCode(), r.body());
        return URI.create(r.headers().firstValue("Location").orElseThrow());
    }

    /** The redirect URI uses host localhost (as registered); we reach the callback on 127.0.0.1. */
    HttpResponse<String> follow(URI redirect) throws Exception {
        URI loop = new URI("http", null, "127.0.0.1", redirect.getPort(), redirect.getPath(), redirect.getQuery(),
                null);
        return browser.send(HttpRequest.newBuilder(loop).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits for the sign-in on another thread, as the CLI's main thread does while the browser works. */
    static CompletableFuture<CodexTokens> awaitInBackground(BrowserLogin login) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return login.await(Duration.ofSeconds(20));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void browserCallbackCompletesPkceExchangeAndStoresOwnerOnly() throws Exception {
        try (BrowserLogin login = auth.startBrowserLogin()) {
            assertTrue(login.callbackListening(), String.valueOf(login.callbackProblem()));
            CompletableFuture<CodexTokens> done = awaitInBackground(login);
            URI redirect = approve(login.authorizeUrl());
            assertEquals("localhost", redirect.getHost());
            assertEquals("/auth/callback", redirect.getPath());
            HttpResponse<String> page = follow(redirect);
            assertEquals(302, page.statusCode(), page.body());
            assertEquals("/success", page.headers().firstValue("Location").orElseThrow());
            CodexTokens t = done.get();
            assertEquals(FakeAuthServer.ACCOUNT, t.accountId());
            assertEquals("browser", t.origin());
            assertNotNull(t.expiresAt());
        }
        Map<String, String> q = fake.authorizeRequests.get(0);
        assertEquals("S256", q.get("code_challenge_method"));
        assertEquals(43, q.get("code_challenge").length(), "base64url SHA-256 without padding");
        assertEquals(FakeAuthServer.CLIENT_ID, q.get("client_id"));
        assertTrue(q.get("scope").contains("offline_access"));
        assertEquals(1, fake.exchanges.get());
        assertEquals("application/x-www-form-urlencoded", fake.tokenContentTypes.get(0));
        Path file = tmp.resolve("cfg/auth.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("cfg"))));
        assertEquals(CredentialState.PRESENT, auth.status().state());
        assertEquals(FakeAuthServer.ACCOUNT, auth.current().accountId());
    }

    @Test
    void fakeServerRejectsAWrongVerifierSoTheExchangeProvesS256() throws Exception {
        try (BrowserLogin login = auth.startBrowserLogin()) {
            URI redirect = approve(login.authorizeUrl());
            String code = BrowserLogin.parseQuery(redirect.getRawQuery()).get("code");
            AuthEndpointException e = assertThrows(AuthEndpointException.class, () -> auth.endpoint()
                    .exchangeCode(code, Pkce.generate().verifier(), login.redirectUri(), "browser"));
            assertEquals("invalid_grant", e.code());
            assertTrue(e.permanent());
        }
    }

    @Test
    void callbackWithForeignStateIsRefusedAndTheAttemptStaysOpen() throws Exception {
        try (BrowserLogin login = auth.startBrowserLogin()) {
            CompletableFuture<CodexTokens> done = awaitInBackground(login);
            URI redirect = approve(login.authorizeUrl());
            String forged = redirect.getQuery().replaceAll("state=[^&]*", "state=attacker");
            HttpResponse<String> bad = follow(new URI("http", null, "localhost", redirect.getPort(),
                    redirect.getPath(), forged, null));
            assertEquals(400, bad.statusCode());
            assertTrue(bad.body().contains("State mismatch"));
            assertFalse(done.isDone());
            IllegalArgumentException paste = assertThrows(IllegalArgumentException.class,
                    () -> login.paste("http://localhost:1455/auth/callback?" + forged));
            assertTrue(paste.getMessage().startsWith("State mismatch"));
            assertEquals(302, follow(redirect).statusCode());
            assertEquals("browser", done.get().origin());
        }
        assertEquals(1, fake.exchanges.get(), "the forged code was never exchanged");
    }

    @Test
    void pasteFallbackWhenTheCallbackPortIsTaken() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CodexAuth a = new CodexAuth(auth.settings().withCallbackPort(busy.getLocalPort()), Clock.systemUTC());
            try (BrowserLogin login = a.startBrowserLogin()) {
                assertFalse(login.callbackListening());
                assertTrue(login.callbackProblem().contains("in use"), login.callbackProblem());
                URI redirect = approve(login.authorizeUrl());
                assertThrows(IllegalArgumentException.class, () -> login.paste("not a url at all"));
                assertThrows(IllegalArgumentException.class, () -> login.paste("https://localhost/x?state=s"));
                login.paste("  " + redirect + "\n");
                CodexTokens t = login.await(Duration.ofSeconds(10));
                assertEquals("paste", t.origin());
                assertEquals(FakeAuthServer.ACCOUNT, a.current().accountId());
            }
        }
    }

    @Test
    void aNewSignInCancelsAnAbandonedOneHoldingThePort() throws Exception {
        try (BrowserLogin first = auth.startBrowserLogin()) {
            CompletableFuture<CodexTokens> firstDone = awaitInBackground(first);
            int port = URI.create(first.redirectUri()).getPort();
            CodexAuth again = new CodexAuth(auth.settings().withCallbackPort(port), Clock.systemUTC());
            try (BrowserLogin second = again.startBrowserLogin()) {
                assertTrue(second.callbackListening(), String.valueOf(second.callbackProblem()));
                assertEquals(port, URI.create(second.redirectUri()).getPort());
                java.util.concurrent.ExecutionException e = assertThrows(
                        java.util.concurrent.ExecutionException.class, () -> firstDone.get(10, TimeUnit.SECONDS));
                assertTrue(e.getCause().getMessage().contains("cancelled"), e.getCause().getMessage());
                CompletableFuture<CodexTokens> secondDone = awaitInBackground(second);
                assertEquals(302, follow(approve(second.authorizeUrl())).statusCode());
                assertEquals("browser", secondDone.get(20, TimeUnit.SECONDS).origin());
            }
        }
    }

    @Test
    void pastedCodeHashStateFormWorks() throws Exception {
        try (BrowserLogin login = auth.startBrowserLogin()) {
            Map<String, String> q = BrowserLogin.parseQuery(approve(login.authorizeUrl()).getRawQuery());
            login.paste(q.get("code") + "#" + q.get("state"));
            assertEquals("paste", login.await(Duration.ofSeconds(10)).origin());
        }
    }

    @Test
    void deniedConsentIsAClearFailure() throws Exception {
        try (BrowserLogin login = auth.startBrowserLogin()) {
            String state = BrowserLogin.parseQuery(login.authorizeUrl().getRawQuery()).get("state");
            HttpResponse<String> page = follow(URI.create("http://localhost:" + login.redirectUri().split(":")[2]
                    .replace("/auth/callback", "") + "/auth/callback?error=access_denied&error_description="
                    + "missing_codex_entitlement&state=" + state));
            assertEquals(200, page.statusCode());
            AuthEndpointException e = assertThrows(AuthEndpointException.class,
                    () -> login.await(Duration.ofSeconds(10)));
            assertTrue(e.getMessage().contains("no Codex access"), e.getMessage());
        }
        assertEquals(CredentialState.MISSING, auth.status().state());
    }

    @Test
    void deviceCodeFlowPollsUntilApproved() throws Exception {
        DeviceLogin d = auth.startDeviceLogin();
        assertEquals("ABCD-EFGH", d.userCode());
        assertEquals(fake.issuer() + "/codex/device", d.verificationUrl().toString());
        CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(1200);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            fake.deviceApproved = true;
        });
        CodexTokens t = d.await(Duration.ofSeconds(20));
        assertEquals("device", t.origin());
        assertEquals(CredentialState.PRESENT, auth.status().state());
        assertNotEquals(0, fake.exchanges.get());
    }
}
