package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.ConfigLoader;
import dev.monoagent.model.auth.AuthStore;
import dev.monoagent.model.auth.CodexAuthSettings;
import dev.monoagent.model.auth.CodexTokens;
import dev.monoagent.model.auth.FakeAuthServer;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mono-agent auth ...} and validate's credential section through the real command tree. */
class AuthCommandTest {
    @TempDir
    Path tmp;
    FakeAuthServer fake;
    Map<String, String> env;
    Path ws;

    @BeforeEach
    void setUp() throws Exception {
        fake = new FakeAuthServer();
        ws = Files.createDirectories(tmp.resolve("ws"));
        env = new HashMap<>(Map.of(CodexAuthSettings.ENV_CONFIG_DIR, tmp.resolve("cfg").toString(),
                CodexAuthSettings.ENV_ISSUER, fake.issuer().toString(),
                CodexAuthSettings.ENV_CLIENT_ID, FakeAuthServer.CLIENT_ID,
                CodexAuthSettings.ENV_CALLBACK_PORT, "0", "CODEX_HOME", tmp.resolve("codex").toString(),
                "MONO_AGENT_CACHE_DIR", tmp.resolve("cache").toString()));
    }

    @AfterEach
    void tearDown() {
        fake.close();
    }

    CliHarness.Result run(String... args) {
        return CliHarness.run(ws, env, args);
    }

    /** A "browser" that approves at once: fetches the authorize URL and follows the redirects (curl -L). */
    @Test
    void loginThroughTheLoopbackCallbackThenStatusAndLogout() throws Exception {
        Path browser = script("approve", "exec curl -s -o /dev/null -L --max-time 20 \"$1\"\n");
        env.put("BROWSER", browser.toString());
        InputStream stdin = System.in;
        CliHarness.Result r;
        try (PipedInputStream idle = new PipedInputStream(new PipedOutputStream())) {
            System.setIn(idle);
            r = run("auth", "login", "openai-codex", "--timeout", "60");
        } finally {
            System.setIn(stdin);
        }
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("/oauth/authorize?response_type=code"), r.out());
        assertTrue(r.out().contains("Signed in to openai-codex as reviewer@example.test (plan plus)."), r.out());
        Path file = tmp.resolve("cfg/auth.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String stored = Files.readString(file);
        assertFalse(r.out().contains(token(stored, "access_token")), "tokens are never printed");

        CliHarness.Result st = run("auth", "status");
        assertEquals(0, st.exit());
        assertTrue(st.out().startsWith("openai-codex: present"), st.out());
        CliHarness.Result json = run("auth", "status", "--json");
        assertTrue(json.out().contains("\"state\":\"present\""), json.out());
        assertFalse(st.out().contains(token(stored, "refresh_token")));

        CliHarness.Result out = run("auth", "logout");
        assertEquals(0, out.exit());
        assertFalse(Files.exists(file));
        assertTrue(run("auth", "status").out().startsWith("openai-codex: missing"));
        assertTrue(run("auth", "logout").out().contains("Not signed in"));
        Path fresh = tmp.resolve("never-used");
        env.put(CodexAuthSettings.ENV_CONFIG_DIR, fresh.toString());
        assertTrue(run("auth", "logout").out().contains("Not signed in"));
        assertFalse(Files.exists(fresh), "logout and status create nothing");
    }

    /** The browser is elsewhere: the redirect fails to load, the user pastes its address into the terminal. */
    @Test
    void loginByPastingTheRedirectAddress() throws Exception {
        Path loc = tmp.resolve("location.txt");
        Path browser = script("remote", "curl -s -o /dev/null -w '%{redirect_url}' \"$1\" > '" + loc + ".part'"
                + " && mv '" + loc + ".part' '" + loc + "'\n");
        env.put("BROWSER", browser.toString());
        try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            env.put(CodexAuthSettings.ENV_CALLBACK_PORT, String.valueOf(busy.getLocalPort()));
            PipedOutputStream typing = new PipedOutputStream();
            InputStream stdin = System.in;
            Thread user = new Thread(() -> {
                try {
                    long deadline = System.currentTimeMillis() + 30_000;
                    while (!Files.exists(loc) && System.currentTimeMillis() < deadline) {
                        Thread.sleep(50);
                    }
                    typing.write("this is not it\n".getBytes(StandardCharsets.UTF_8));
                    typing.write((Files.readString(loc).strip() + "\n").getBytes(StandardCharsets.UTF_8));
                    typing.flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            CliHarness.Result r;
            try (PipedInputStream in = new PipedInputStream(typing)) {
                System.setIn(in);
                user.start();
                r = run("auth", "login", "openai-codex", "--timeout", "60");
            } finally {
                System.setIn(stdin);
            }
            user.join();
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains("The local callback is not available (port " + busy.getLocalPort()), r.out());
            assertTrue(r.err().contains("does not look like an authorization code"), r.err());
            assertTrue(r.out().contains("Signed in to openai-codex"), r.out());
        }
        assertTrue(run("auth", "status").out().startsWith("openai-codex: present"));
    }

    @Test
    void importReadsTheCodexFileOnceAndNeverWritesIt() throws Exception {
        Path codex = Files.createDirectories(tmp.resolve("codex")).resolve("auth.json");
        long exp = Instant.now().plusSeconds(3600).getEpochSecond();
        String access = FakeAuthServer.jwt(FakeAuthServer.ACCOUNT, exp, "cx@example.test");
        String content = "{\"auth_mode\":\"chatgpt\",\"OPENAI_API_KEY\":null,\"tokens\":{\"id_token\":\"" + access
                + "\",\"access_token\":\"" + access + "\",\"refresh_token\":\"rt_codex\",\"account_id\":\""
                + FakeAuthServer.ACCOUNT + "\"},\"last_refresh\":\"2026-11-30T10:00:00Z\"}";
        Files.writeString(codex, content);
        Files.setLastModifiedTime(codex, java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L));
        CliHarness.Result r = run("auth", "import", "--from-codex");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("cx@example.test"), r.out());
        assertTrue(r.err().contains("refresh tokens rotate"), r.err());
        assertTrue(r.err().contains("Codex CLI must sign in again"), r.err());
        assertEquals(content, Files.readString(codex));
        assertEquals(1_000_000_000_000L, Files.getLastModifiedTime(codex).toMillis());
        assertTrue(run("auth", "status").out().contains("(codex-import)"));

        Files.writeString(codex, "{\"auth_mode\":\"apikey\",\"OPENAI_API_KEY\":\"sk-x\"}");
        CliHarness.Result bad = run("auth", "import", "--from-codex");
        assertEquals(1, bad.exit());
        assertTrue(bad.err().contains("holds no ChatGPT sign-in"), bad.err());
        assertFalse(bad.err().contains("sk-x"));
    }

    @Test
    void providersWithoutASignInAreExplained() {
        CliHarness.Result openai = run("auth", "login", "openai");
        assertEquals(2, openai.exit());
        assertTrue(openai.err().contains("export OPENAI_API_KEY"), openai.err());
        CliHarness.Result unknown = run("auth", "login", "nope");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("Unknown provider for auth: nope"), unknown.err());
        env.put(CodexAuthSettings.ENV_ISSUER, "http://example.com");
        CliHarness.Result insecure = run("auth", "status");
        assertEquals(2, insecure.exit());
        assertTrue(insecure.err().contains(CodexAuthSettings.ENV_ISSUER + " must be an https URL"), insecure.err());
    }

    /**
     * A plain-http issuer is bad input wherever it surfaces: validate's credential section is an error naming the
     * variable (exit 1), and run says the same in one line (it printed "unexpected error:
     * java.lang.IllegalArgumentException"); no stack trace anywhere.
     */
    @Test
    void anInsecureIssuerIsACleanErrorInValidateAndRun() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE),
                "{\"runtime\":{\"model\":\"openai-codex:gpt-5.6-terra\"}}");
        run("trust");
        env.put(CodexAuthSettings.ENV_ISSUER, "http://example.com");
        String why = "MONO_AGENT_CODEX_ISSUER must be an https URL (or http on loopback), got http://example.com";
        CliHarness.Result v = run("validate");
        assertEquals(1, v.exit(), v.out() + v.err());
        assertTrue(v.out().contains("Provider credentials: error\n  openai-codex: " + why), v.out());
        CliHarness.Result r = run("run", "hello");
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(why), r.err());
        for (CliHarness.Result each : java.util.List.of(v, r)) {
            assertFalse((each.out() + each.err()).contains("Exception"), each.out() + each.err());
            assertFalse((each.out() + each.err()).contains("unexpected error"), each.out() + each.err());
        }
        env.put(CodexAuthSettings.ENV_ISSUER, "ht tp://bad");
        CliHarness.Result notUrl = run("auth", "status");
        assertEquals(2, notUrl.exit());
        assertTrue(notUrl.err().contains("MONO_AGENT_CODEX_ISSUER must be an https URL (or http on loopback), got "
                + "\"ht tp://bad\" (not a URL)."), notUrl.err());
    }

    @Test
    void validateShowsPresentExpiredMissingWithoutValues() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE),
                "{\"runtime\":{\"model\":\"openai-codex:gpt-5.6-terra\"}}");
        run("trust");
        CliHarness.Result missing = run("validate");
        assertTrue(missing.out().contains("[WARN] openai-codex: missing (ChatGPT sign-in)"), missing.out());
        assertTrue(missing.out().contains("mono-agent auth login openai-codex"), missing.out());
        assertFalse(missing.out().contains("MONO_AGENT_CODEX_ISSUER is not a mono-agent setting"), missing.out());

        AuthStore store = new AuthStore(tmp.resolve("cfg"));
        Instant exp = Instant.now().plusSeconds(3600);
        String access = FakeAuthServer.jwt(FakeAuthServer.ACCOUNT, exp.getEpochSecond(), "a@b");
        store.write("openai-codex", new CodexTokens(null, access, "rt_live", FakeAuthServer.ACCOUNT, "a@b", "plus",
                exp, Instant.now(), "browser", null));
        CliHarness.Result present = run("validate");
        assertTrue(present.out().contains("openai-codex: present (ChatGPT sign-in)"), present.out());
        assertFalse(present.out().contains(access));

        store.write("openai-codex", new CodexTokens(null, access, null, FakeAuthServer.ACCOUNT, "a@b", "plus",
                Instant.now().minusSeconds(60), Instant.now(), "browser", null));
        CliHarness.Result expired = run("validate", "--json");
        assertTrue(expired.out().contains("openai-codex: expired (ChatGPT sign-in)"), expired.out());

        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"openai:gpt-5\"}}");
        run("trust");
        assertTrue(run("validate").out().contains("openai: missing (OPENAI_API_KEY is not set"));
        env.put("OPENAI_API_KEY", "sk-secret-value-123456789");
        CliHarness.Result key = run("validate");
        assertTrue(key.out().contains("openai: present (OPENAI_API_KEY is set)."), key.out());
        assertFalse(key.out().contains("sk-secret-value"));
    }

    private Path script(String name, String body) throws Exception {
        Path p = tmp.resolve(name + ".sh");
        Files.writeString(p, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private static String token(String json, String key) throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).path("openai-codex").path(key).asText();
    }
}
