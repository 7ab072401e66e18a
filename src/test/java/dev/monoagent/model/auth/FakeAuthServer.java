package dev.monoagent.model.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for auth.openai.com on 127.0.0.1, speaking the endpoints the Codex CLI uses: /oauth/authorize
 * (approves at once: 302 to the redirect URI with code and state), /oauth/token (code exchange, form-encoded, checks
 * S256(code_verifier) against the challenge, the redirect URI and client id; refresh, JSON, rotating single-use
 * refresh tokens with the real error codes) and the device-code pair. It keeps what it saw for assertions.
 */
public final class FakeAuthServer implements AutoCloseable {
    public static final String CLIENT_ID = "app_test_client";
    public static final String ACCOUNT = "acc_fake_123";
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Grant(String challenge, String redirectUri) {}

    private final HttpServer server;
    private final Map<String, Grant> codes = new ConcurrentHashMap<>();
    private final Set<String> liveRefresh = ConcurrentHashMap.newKeySet();
    private final Set<String> usedRefresh = ConcurrentHashMap.newKeySet();
    private final Set<String> revokedRefresh = ConcurrentHashMap.newKeySet();
    public final AtomicInteger refreshCalls = new AtomicInteger();
    final AtomicInteger successfulRefreshes = new AtomicInteger();
    public final AtomicInteger exchanges = new AtomicInteger();
    final List<Map<String, String>> authorizeRequests = Collections.synchronizedList(new ArrayList<>());
    final List<String> tokenContentTypes = Collections.synchronizedList(new ArrayList<>());
    volatile long refreshDelayMs;
    volatile int failRefreshWithStatus;
    volatile long accessLifetimeSeconds = 3600;
    volatile boolean deviceApproved;
    private final AtomicInteger serial = new AtomicInteger();
    private volatile Grant deviceGrant;
    private volatile String deviceVerifier;

    public FakeAuthServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/oauth/authorize", this::authorize);
        server.createContext("/oauth/token", this::token);
        server.createContext("/api/accounts/deviceauth/usercode", this::userCode);
        server.createContext("/api/accounts/deviceauth/token", this::deviceToken);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-auth");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    public URI issuer() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** A refresh token the server will accept once (for tests that seed the store directly). */
    public String mintRefreshToken() {
        String r = "rt_" + serial.incrementAndGet() + "_" + Pkce.randomUrlSafe(8);
        liveRefresh.add(r);
        return r;
    }

    public void revoke(String refreshToken) {
        liveRefresh.remove(refreshToken);
        revokedRefresh.add(refreshToken);
    }

    /** A JWT-shaped access token whose payload carries the ChatGPT account claim and {@code exp}. */
    public static String jwt(String account, long expEpochSeconds, String email) {
        String payload = "{\"exp\":" + expEpochSeconds + ",\"email\":\"" + email + "\",\"https://api.openai.com/auth\":"
                + "{\"chatgpt_account_id\":\"" + account + "\",\"chatgpt_plan_type\":\"plus\"},\"n\":\""
                + Pkce.randomUrlSafe(6) + "\"}";
        Base64.Encoder b = Base64.getUrlEncoder().withoutPadding();
        return b.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + ".sig";
    }

    private void authorize(HttpExchange ex) throws IOException {
        Map<String, String> q = BrowserLogin.parseQuery(ex.getRequestURI().getRawQuery());
        authorizeRequests.add(q);
        if (!"code".equals(q.get("response_type")) || !CLIENT_ID.equals(q.get("client_id"))
                || !"S256".equals(q.get("code_challenge_method")) || q.get("code_challenge") == null
                || q.get("state") == null || q.get("redirect_uri") == null) {
            send(ex, 400, "{\"error\":\"invalid_request\"}");
            return;
        }
        String code = "ac_" + serial.incrementAndGet();
        codes.put(code, new Grant(q.get("code_challenge"), q.get("redirect_uri")));
        ex.getResponseHeaders().add("Location", q.get("redirect_uri") + "?code=" + code + "&scope=openid&state="
                + q.get("state"));
        ex.sendResponseHeaders(302, -1);
        ex.close();
    }

    private void token(HttpExchange ex) throws IOException {
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        tokenContentTypes.add(type);
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (type != null && type.startsWith("application/x-www-form-urlencoded")) {
            Map<String, String> f = BrowserLogin.parseQuery(body);
            if (!"authorization_code".equals(f.get("grant_type"))) {
                send(ex, 400, "{\"error\":\"unsupported_grant_type\"}");
                return;
            }
            exchanges.incrementAndGet();
            Grant g = codes.remove(f.getOrDefault("code", ""));
            if (g == null || !CLIENT_ID.equals(f.get("client_id")) || !g.redirectUri().equals(f.get("redirect_uri"))
                    || f.get("code_verifier") == null || !Pkce.challengeOf(f.get("code_verifier"))
                    .equals(g.challenge())) {
                send(ex, 400, "{\"error\":\"invalid_grant\",\"error_description\":\"code, verifier or redirect_uri "
                        + "does not match\"}");
                return;
            }
            send(ex, 200, tokens(true));
            return;
        }
        JsonNode j = JSON.readTree(body);
        if (!"refresh_token".equals(j.path("grant_type").asText()) || !CLIENT_ID.equals(j.path("client_id").asText())) {
            send(ex, 400, "{\"error\":\"invalid_request\"}");
            return;
        }
        refreshCalls.incrementAndGet();
        sleep(refreshDelayMs);
        if (failRefreshWithStatus != 0) {
            send(ex, failRefreshWithStatus, "{\"error\":{\"code\":\"server_error\",\"message\":\"try later\"}}");
            return;
        }
        String rt = j.path("refresh_token").asText();
        if (revokedRefresh.contains(rt)) {
            send(ex, 401, "{\"error\":{\"code\":\"refresh_token_invalidated\",\"message\":\"Your refresh token "
                    + "was revoked.\"}}");
            return;
        }
        if (usedRefresh.contains(rt)) {
            send(ex, 401, "{\"error\":{\"code\":\"refresh_token_reused\",\"message\":\"Your refresh token has "
                    + "already been used to generate a new access token.\"}}");
            return;
        }
        if (!liveRefresh.remove(rt)) {
            send(ex, 401, "{\"error\":{\"code\":\"refresh_token_expired\",\"message\":\"unknown token\"}}");
            return;
        }
        usedRefresh.add(rt);
        successfulRefreshes.incrementAndGet();
        send(ex, 200, tokens(false));
    }

    private String tokens(boolean withExpiresIn) {
        long exp = System.currentTimeMillis() / 1000 + accessLifetimeSeconds;
        String rt = mintRefreshToken();
        return "{\"id_token\":\"" + jwt(ACCOUNT, exp, "reviewer@example.test") + "\",\"access_token\":\""
                + jwt(ACCOUNT, exp, "reviewer@example.test") + "\",\"refresh_token\":\"" + rt + "\""
                + (withExpiresIn ? ",\"expires_in\":" + accessLifetimeSeconds : "") + ",\"token_type\":\"Bearer\"}";
    }

    private void userCode(HttpExchange ex) throws IOException {
        JsonNode j = JSON.readTree(ex.getRequestBody().readAllBytes());
        if (!CLIENT_ID.equals(j.path("client_id").asText())) {
            send(ex, 400, "{\"error\":\"invalid_client\"}");
            return;
        }
        deviceVerifier = Pkce.randomUrlSafe(64);
        deviceGrant = new Grant(Pkce.challengeOf(deviceVerifier), issuer() + "/deviceauth/callback");
        send(ex, 200, "{\"device_auth_id\":\"dev_1\",\"user_code\":\"ABCD-EFGH\",\"interval\":\"1\"}");
    }

    private void deviceToken(HttpExchange ex) throws IOException {
        JsonNode j = JSON.readTree(ex.getRequestBody().readAllBytes());
        if (!"dev_1".equals(j.path("device_auth_id").asText()) || !"ABCD-EFGH".equals(j.path("user_code").asText())) {
            send(ex, 400, "{\"error\":\"invalid_request\"}");
            return;
        }
        if (!deviceApproved) {
            send(ex, 403, "{\"error\":\"authorization_pending\"}");
            return;
        }
        String code = "ac_dev_" + serial.incrementAndGet();
        codes.put(code, deviceGrant);
        send(ex, 200, "{\"authorization_code\":\"" + code + "\",\"code_challenge\":\"" + deviceGrant.challenge()
                + "\",\"code_verifier\":\"" + deviceVerifier + "\"}");
    }

    private static void sleep(long ms) {
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
