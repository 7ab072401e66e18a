package dev.monoagent.model.auth;

import java.net.URI;
import java.nio.file.Path;
import dev.monoagent.host.HostEnv;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where the ChatGPT ("openai-codex") sign-in talks to and where it keeps its tokens. Defaults are the real OpenAI
 * endpoints and client id (the Codex CLI's public client); every one can be overridden through the environment so
 * tests (and gateways) can point the flow at a local authorization server.
 *
 * @param issuer       base of the authorization server; authorize, token and device endpoints hang off it
 * @param clientId     OAuth client id
 * @param callbackPort loopback port of the browser callback (the redirect URI registered for the client uses 1455)
 * @param storeDir     owner-only directory holding {@code auth.json} and its lock file
 * @param codexHome    the Codex CLI's home, read (never written) by {@code auth import --from-codex}
 */
public record CodexAuthSettings(URI issuer, String clientId, int callbackPort, Path storeDir, Path codexHome) {
    public static final String PROVIDER = "openai-codex";
    public static final String DEFAULT_ISSUER = "https://auth.openai.com";
    public static final String DEFAULT_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
    public static final int DEFAULT_CALLBACK_PORT = dev.monoagent.common.OwnPorts.SIGN_IN_CALLBACK;
    public static final String SCOPES = "openid profile email offline_access";
    /** Identifies us to the authorization server and the Codex backend (the Codex CLI sends its own name here). */
    public static final String ORIGINATOR = "mono-agent";
    /** The one command that fixes a missing, expired or revoked sign-in. */
    public static final String LOGIN_COMMAND = "mono-agent auth login openai-codex";

    public static final String ENV_CONFIG_DIR = "MONO_AGENT_CONFIG_DIR";
    public static final String ENV_ISSUER = "MONO_AGENT_CODEX_ISSUER";
    public static final String ENV_CLIENT_ID = "MONO_AGENT_CODEX_CLIENT_ID";
    public static final String ENV_CALLBACK_PORT = "MONO_AGENT_CODEX_CALLBACK_PORT";

    public CodexAuthSettings {
        Objects.requireNonNull(issuer);
        Objects.requireNonNull(clientId);
        Objects.requireNonNull(storeDir);
        Objects.requireNonNull(codexHome);
        String s = issuer.toString();
        if (s.endsWith("/")) {
            issuer = URI.create(s.substring(0, s.length() - 1));
        }
    }

    /** Settings from an environment map (the CLI's context or the process env) and the user's home. */
    public static CodexAuthSettings fromEnv(Map<String, String> env, Path home) {
        String issuerText = nonBlank(env.get(ENV_ISSUER), DEFAULT_ISSUER);
        URI issuer;
        try {
            issuer = URI.create(issuerText);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(ENV_ISSUER, ENV_ISSUER + " must be an https URL (or http on loopback), "
                    + "got \"" + issuerText + "\" (not a URL).");
        }
        String scheme = issuer.getScheme() == null ? "" : issuer.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !(scheme.equals("http") && isLoopback(issuer.getHost()))) {
            throw new InvalidSettingException(ENV_ISSUER, ENV_ISSUER + " must be an https URL (or http on loopback), "
                    + "got " + issuer);
        }
        String port = nonBlank(env.get(ENV_CALLBACK_PORT), String.valueOf(DEFAULT_CALLBACK_PORT));
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 0 || p > 65535) {
            throw new InvalidSettingException(ENV_CALLBACK_PORT, ENV_CALLBACK_PORT + " must be a port number 0-65535, "
                    + "got " + port);
        }
        Path codexHome = Path.of(nonBlank(env.get("CODEX_HOME"), home.resolve(".codex").toString()));
        return new CodexAuthSettings(issuer, nonBlank(env.get(ENV_CLIENT_ID), DEFAULT_CLIENT_ID), p,
                userConfigDir(env, home), codexHome);
    }

    /**
     * mono-agent's per-user config dir: {@code MONO_AGENT_CONFIG_DIR}, else {@code ~/Library/Application
     * Support/mono-agent} on macOS, else {@code ${XDG_CONFIG_HOME:-~/.config}/mono-agent}.
     */
    public static Path userConfigDir(Map<String, String> env, Path home) {
        return HostEnv.defaultConfigRoot(env, home);
    }

    public CodexAuthSettings withCallbackPort(int port) {
        return new CodexAuthSettings(issuer, clientId, port, storeDir, codexHome);
    }

    public URI authorizeUrl() {
        return URI.create(issuer + "/oauth/authorize");
    }

    public URI tokenUrl() {
        return URI.create(issuer + "/oauth/token");
    }

    public URI deviceUserCodeUrl() {
        return URI.create(issuer + "/api/accounts/deviceauth/usercode");
    }

    public URI deviceTokenUrl() {
        return URI.create(issuer + "/api/accounts/deviceauth/token");
    }

    /** The page where the user types the one-time device code. */
    public URI deviceVerificationUrl() {
        return URI.create(issuer + "/codex/device");
    }

    public String deviceRedirectUri() {
        return issuer + "/deviceauth/callback";
    }

    /** The redirect URI as registered for the client: host {@code localhost}, while we bind 127.0.0.1. */
    public String redirectUri(int boundPort) {
        return "http://localhost:" + boundPort + "/auth/callback";
    }

    private static boolean isLoopback(String host) {
        return host != null && (host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]")
                || host.equals("::1"));
    }

    private static String nonBlank(String v, String dflt) {
        return v == null || v.isBlank() ? dflt : v.strip();
    }
}
