package dev.monoagent.model.auth;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One browser sign-in attempt (OAuth authorization code + PKCE S256). The browser is sent to {@link #authorizeUrl()};
 * the authorization server redirects to {@code http://localhost:1455/auth/callback}, served here on 127.0.0.1 only.
 * When that port cannot be bound, or the browser runs on another machine, the user pastes the address the browser
 * was sent to (or {@code code#state}, or the bare code) into {@link #paste}; whichever arrives first wins. A callback
 * or pasted URL whose {@code state} differs from ours is refused (a forged or stale redirect).
 */
public final class BrowserLogin implements AutoCloseable {
    private static final Duration PAGE_WAIT = Duration.ofSeconds(60);
    /** When the port is taken, an earlier sign-in of ours is asked to stop, then binding is retried (as codex does). */
    private static final int BIND_RETRIES = 10;
    private static final Duration BIND_PAUSE = Duration.ofMillis(200);

    private final CodexAuth auth;
    private final Pkce pkce;
    private final HttpServer server;
    /** The callback's port held from before it binds until it stops: never reachable from the sandbox. */
    private final dev.monoagent.common.OwnPorts.Hold held;
    private volatile dev.monoagent.common.OwnPorts.Hold heldBound = () -> { };
    private final String bindProblem;
    private final String redirectUri;
    private final URI authorizeUrl;
    private final CompletableFuture<Received> code = new CompletableFuture<>();
    /** Requests the callback listener has received, on any path. */
    private final java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
    private final CompletableFuture<CodexTokens> outcome = new CompletableFuture<>();
    /** The callback handler waits for the exchange; other paths (success page, cancel) must still be served. */
    private final dev.monoagent.common.TaskExecutor pool = dev.monoagent.common.TaskExecutor.create(
            "codex-login-callback");

    private record Received(String code, String origin) {
        @Override
        public String toString() {
            return "Received[" + origin + "]";
        }
    }

    BrowserLogin(CodexAuth auth) {
        this.auth = auth;
        this.pkce = Pkce.generate();
        CodexAuthSettings s = auth.settings();
        this.held = dev.monoagent.common.OwnPorts.hold(s.callbackPort());
        HttpServer srv = null;
        String problem = null;
        for (int attempt = 0; srv == null && problem == null; attempt++) {
            try {
                srv = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.callbackPort()), 8);
            } catch (BindException e) {
                if (attempt == 0) {
                    cancelEarlierAttempt(s.callbackPort());
                } else if (attempt > BIND_RETRIES) {
                    problem = "port " + s.callbackPort() + " on 127.0.0.1 is in use by another program";
                } else {
                    pause(BIND_PAUSE);
                }
            } catch (IOException e) {
                problem = "cannot listen on 127.0.0.1:" + s.callbackPort() + ": " + e.getMessage();
            }
        }
        if (srv != null) {
            com.sun.net.httpserver.Filter counting = com.sun.net.httpserver.Filter.beforeHandler(
                    "counts requests", ex -> received.incrementAndGet());
            srv.createContext("/", ex -> page(ex, 404, "Not found.")).getFilters().add(counting);
            srv.createContext("/auth/callback", this::callback).getFilters().add(counting);
            srv.createContext("/success", ex -> page(ex, 200, "Signed in to mono-agent. You can close this tab."))
                    .getFilters().add(counting);
            srv.createContext("/cancel", ex -> {
                code.completeExceptionally(new AuthEndpointException("Sign-in was cancelled (another sign-in "
                        + "started).", "cancelled", true));
                page(ex, 200, "Sign-in cancelled.");
                // free the port for the sign-in that asked (stop waits for this exchange, so not on this thread)
                HttpServer self = ex.getHttpContext().getServer();
                dev.monoagent.common.TaskExecutor.shared().submit("codex-login-cancel", () -> {
                    self.stop(0);
                    release();
                    return null;
                });
            }).getFilters().add(counting);
            srv.setExecutor(pool.executor());
            if (srv.getAddress().getPort() != s.callbackPort()) {
                // bound to a port chosen by the system: held before the first connection is accepted
                heldBound = dev.monoagent.common.OwnPorts.hold(srv.getAddress().getPort());
            }
            srv.start();
        }
        this.server = srv;
        this.bindProblem = problem;
        int port = srv != null ? srv.getAddress().getPort() : s.callbackPort();
        if (srv == null) {
            release();
        }
        this.redirectUri = s.redirectUri(port == 0 ? CodexAuthSettings.DEFAULT_CALLBACK_PORT : port);
        Map<String, String> q = new LinkedHashMap<>();
        q.put("response_type", "code");
        q.put("client_id", s.clientId());
        q.put("redirect_uri", redirectUri);
        q.put("scope", CodexAuthSettings.SCOPES);
        q.put("code_challenge", pkce.challenge());
        q.put("code_challenge_method", "S256");
        q.put("id_token_add_organizations", "true");
        q.put("codex_cli_simplified_flow", "true");
        q.put("state", pkce.state());
        q.put("originator", CodexAuthSettings.ORIGINATOR);
        this.authorizeUrl = URI.create(s.authorizeUrl() + "?" + q.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue())).collect(Collectors.joining("&")));
    }

    /** The address to open in a browser. */
    public URI authorizeUrl() {
        return authorizeUrl;
    }

    /** Whether the loopback callback is listening; when not, only {@link #paste} can finish the sign-in. */
    public boolean callbackListening() {
        return server != null;
    }

    /** How many requests the callback listener has received (any path, answered or not). */
    int requestsReceived() {
        return received.get();
    }

    /** Why the callback is not listening, or null. */
    public String callbackProblem() {
        return bindProblem;
    }

    public String redirectUri() {
        return redirectUri;
    }

    /**
     * Takes what the user pasted: the full redirect address, {@code code#state}, or the bare code.
     *
     * @throws IllegalArgumentException with a message for the user when it is not usable (wrong state, no code)
     */
    public void paste(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("Nothing pasted.");
        }
        String c;
        String st = null;
        if (t.contains("://") || t.startsWith("/") || t.startsWith("?")) {
            String query = t.contains("?") ? t.substring(t.indexOf('?') + 1) : "";
            int hash = query.indexOf('#');
            if (hash >= 0) {
                query = query.substring(0, hash);
            }
            Map<String, String> q = parseQuery(query);
            if (q.containsKey("error")) {
                code.completeExceptionally(refusal(q));
                return;
            }
            c = q.get("code");
            st = q.get("state");
            if (c == null) {
                throw new IllegalArgumentException("That address has no code= parameter; paste the full address "
                        + "the browser was redirected to (it starts with " + redirectUri + ").");
            }
        } else if (t.contains("#")) {
            c = t.substring(0, t.indexOf('#'));
            st = t.substring(t.indexOf('#') + 1);
        } else {
            c = t;
        }
        if (c.isBlank() || c.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("That does not look like an authorization code or redirect address.");
        }
        if (st != null && !st.equals(pkce.state())) {
            throw new IllegalArgumentException("State mismatch: that redirect belongs to another sign-in attempt; "
                    + "paste the address from this attempt's browser tab.");
        }
        code.complete(new Received(c, "paste"));
    }

    /**
     * Waits for the code (callback or paste), exchanges it, stores the tokens and returns them.
     *
     * @throws AuthEndpointException the server refused the sign-in or the exchange
     * @throws TimeoutException      nothing arrived within {@code timeout}
     */
    public CodexTokens await(Duration timeout) throws AuthEndpointException, TimeoutException, InterruptedException {
        Received r;
        try {
            r = code.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            AuthEndpointException a = e.getCause() instanceof AuthEndpointException x ? x
                    : new AuthEndpointException("Sign-in failed: " + e.getCause().getMessage(), null, true);
            outcome.completeExceptionally(a);
            throw a;
        } catch (TimeoutException e) {
            outcome.completeExceptionally(e);
            throw e;
        }
        try {
            CodexTokens t = auth.endpoint().exchangeCode(r.code(), pkce.verifier(), redirectUri, r.origin());
            auth.save(t);
            outcome.complete(t);
            return t;
        } catch (AuthEndpointException | RuntimeException e) {
            outcome.completeExceptionally(e);
            throw e;
        }
    }

    @Override
    public void close() {
        if (server != null) {
            // lets a callback still in flight send the browser its success redirect
            server.stop(1);
        }
        release();
        pool.close();
        code.cancel(false);
    }

    /** Lets go of the callback's ports (the server has stopped, or never listened). */
    private void release() {
        heldBound.close();
        held.close();
    }

    private void callback(HttpExchange ex) throws IOException {
        try (ex) {
            if (!ex.getRequestMethod().equals("GET")) {
                page(ex, 405, "Method not allowed.");
                return;
            }
            Map<String, String> q = parseQuery(ex.getRequestURI().getRawQuery());
            if (!pkce.state().equals(q.get("state"))) {
                page(ex, 400, "State mismatch: this redirect does not belong to the sign-in in progress.");
                return;
            }
            if (q.containsKey("error")) {
                AuthEndpointException refusal = refusal(q);
                code.completeExceptionally(refusal);
                page(ex, 200, "Sign-in failed: " + refusal.getMessage());
                return;
            }
            String c = q.get("code");
            if (c == null || c.isBlank()) {
                page(ex, 400, "The redirect has no authorization code.");
                return;
            }
            if (!code.complete(new Received(c, "browser"))) {
                page(ex, 409, "This sign-in attempt already received its code.");
                return;
            }
            try {
                outcome.get(PAGE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                ex.getResponseHeaders().add("Location", "/success");
                ex.sendResponseHeaders(302, -1);
            } catch (ExecutionException e) {
                page(ex, 200, "Sign-in failed: " + e.getCause().getMessage());
            } catch (TimeoutException | InterruptedException e) {
                page(ex, 200, "Sign-in is taking long; check the terminal.");
            }
        }
    }

    /** Asks whatever holds the port to cancel: an abandoned sign-in of ours (or the Codex CLI's) lets go of it. */
    private static void cancelEarlierAttempt(int port) {
        try {
            java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build().send(
                    java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/cancel"))
                            .timeout(Duration.ofSeconds(1)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // not an HTTP server, or it did not answer: the retries decide
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static AuthEndpointException refusal(Map<String, String> q) {
        String err = q.get("error");
        String desc = q.getOrDefault("error_description", "");
        String msg = "The authorization server refused the sign-in (" + err + ")"
                + (desc.isBlank() ? "." : ": " + desc.replaceAll("[\\r\\n]+", " "));
        if ("access_denied".equals(err) && desc.contains("missing_codex_entitlement")) {
            msg = "This ChatGPT account has no Codex access (missing_codex_entitlement); ask the workspace admin "
                    + "or use an API key provider.";
        }
        return new AuthEndpointException(msg, err, true);
    }

    private static void page(HttpExchange ex, int status, String text) throws IOException {
        String html = "<!doctype html><meta charset=utf-8><title>mono-agent sign-in</title><p>"
                + text.replace("&", "&amp;").replace("<", "&lt;") + "</p>";
        byte[] b = html.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
        ex.getResponseHeaders().add("Cache-Control", "no-store");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }

    static Map<String, String> parseQuery(String raw) {
        Map<String, String> m = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return m;
        }
        for (String part : raw.split("&")) {
            int eq = part.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
            m.putIfAbsent(k, v);
        }
        return m;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
