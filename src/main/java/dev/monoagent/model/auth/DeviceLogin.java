package dev.monoagent.model.auth;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeoutException;

/**
 * Device-code sign-in for machines without a browser (the Codex CLI's flow): show {@link #verificationUrl()} and
 * {@link #userCode()}, then {@link #await} polls until the user approved on another device; the server hands back an
 * authorization code plus its PKCE verifier, which is exchanged like the browser flow's.
 */
public final class DeviceLogin {
    /** The one-time code lives this long on the server. */
    static final Duration CODE_LIFETIME = Duration.ofMinutes(15);

    private final CodexAuth auth;
    private final TokenEndpoint.DeviceCode dc;

    DeviceLogin(CodexAuth auth, TokenEndpoint.DeviceCode dc) {
        this.auth = auth;
        this.dc = dc;
    }

    public String userCode() {
        return dc.userCode();
    }

    public URI verificationUrl() {
        return auth.settings().deviceVerificationUrl();
    }

    /** Polls at the server's interval until approved, refused, or {@code timeout} (capped at the code's life). */
    public CodexTokens await(Duration timeout) throws AuthEndpointException, TimeoutException, InterruptedException {
        Duration limit = timeout.compareTo(CODE_LIFETIME) < 0 ? timeout : CODE_LIFETIME;
        Instant deadline = Instant.now().plus(limit);
        while (true) {
            TokenEndpoint.DeviceGrant g = auth.endpoint().pollDevice(dc);
            if (g != null) {
                CodexTokens t = auth.endpoint().exchangeCode(g.authorizationCode(), g.verifier(),
                        auth.settings().deviceRedirectUri(), "device");
                auth.save(t);
                return t;
            }
            if (Instant.now().plus(dc.interval()).isAfter(deadline)) {
                throw new TimeoutException("The device code was not approved within " + limit.toMinutes()
                        + " minute(s).");
            }
            Thread.sleep(dc.interval().toMillis());
        }
    }
}
