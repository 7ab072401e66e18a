package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.model.auth.AuthStore;
import dev.monoagent.model.auth.CodexAuthSettings;
import dev.monoagent.model.auth.CodexTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ChatGPT sign-in never reaches sandboxed commands: the token store in the user's config dir is unreadable (it
 * lives under the read-denied home) and token-carrying variables of the host are not in the sandbox's allowlisted
 * environment. Runs the real srt + bubblewrap.
 */
class CredentialIsolationTest {
    static final String ACCESS = "eyJhbGciOiJub25lIn0.ACCESS-CANARY-7f3a.sig";
    static final String REFRESH = "rt_REFRESH-CANARY-91c2";

    @TempDir
    Path tmp;

    @Test
    void tokenStoreAndTokenEnvAreInvisibleInside() throws Exception {
        HostEnv base = TestEngine.env();
        Path storeDir = CodexAuthSettings.userConfigDir(Map.of(), base.home());
        assertTrue(storeDir.startsWith(base.home()), "the default store lives under home: " + storeDir);
        AuthStore store = new AuthStore(storeDir);
        store.write("openai-codex", new CodexTokens(null, ACCESS, REFRESH, "acc_x", "a@b", "plus",
                Instant.now().plusSeconds(3600), Instant.now(), "browser", null));
        Map<String, String> hostEnv = new HashMap<>(base.hostEnv());
        hostEnv.put("OPENAI_API_KEY", "sk-" + ACCESS);
        hostEnv.put("CODEX_ACCESS_TOKEN", ACCESS);
        hostEnv.put(CodexAuthSettings.ENV_CONFIG_DIR, storeDir.toString());
        HostEnv env = new HostEnv(base.cacheRoot(), base.home(), base.path(), base.tmpRoot(), hostEnv, List.of());
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            String file = store.file().toString();
            Files.writeString(ws.resolve("control.txt"), "CONTROL-VISIBLE");
            ExecOutcome.Completed control = TestEngine.bash(sb, ws, "cat control.txt; env | grep -c '^PATH='",
                    "run-iso", "call-control", Duration.ofSeconds(30));
            assertEquals("CONTROL-VISIBLE1\n", control.stdout(), "commands really run and read: " + control);
            for (String cmd : List.of("env", "cat '" + file + "'", "cat \"$HOME/.config/mono-agent/auth.json\"",
                    "ls -la '" + storeDir + "'", "grep -r CANARY '" + base.home() + "' 2>&1",
                    "python3 -c \"print(open('" + file + "').read())\" 2>&1", "cp '" + file + "' ./stolen; cat stolen")) {
                ExecOutcome.Completed c = TestEngine.bash(sb, ws, cmd, "run-iso", "call-" + cmd.hashCode(),
                        Duration.ofSeconds(30));
                String all = c.stdout() + c.stderr();
                assertFalse(all.contains("CANARY"), cmd + " saw a token: " + all);
            }
            assertFalse(Files.exists(ws.resolve("stolen")) && Files.readString(ws.resolve("stolen"))
                    .contains("CANARY"));
        }
        assertTrue(Files.readString(store.file()).contains("ACCESS-CANARY"), "the canary was really there");
    }

    /** MONO_AGENT_CONFIG_DIR (or XDG_CONFIG_HOME) outside home: the policy denies reading the store there too. */
    @Test
    void aStoreMovedOutsideHomeIsDeniedAsWell() throws Exception {
        HostEnv base = TestEngine.env();
        Path storeDir = Files.createDirectories(tmp.resolve("elsewhere")).resolve("mono-agent-cfg");
        assertFalse(storeDir.startsWith(base.home()));
        AuthStore store = new AuthStore(storeDir);
        store.write("openai-codex", new CodexTokens(null, ACCESS, REFRESH, "acc_x", "a@b", "plus",
                Instant.now().plusSeconds(3600), Instant.now(), "browser", null));
        Path ws = Files.createDirectories(tmp.resolve("ws2"));
        dev.monoagent.config.LoadedConfig plain = TestEngine.config(ws, NetworkMode.NONE, List.of());
        dev.monoagent.config.LoadedConfig lc = new dev.monoagent.config.LoadedConfig(plain.configPath(), false, ws,
                plain.config(), Map.of(), List.of(), Map.of(CodexAuthSettings.ENV_CONFIG_DIR, storeDir.toString()));
        assertEquals(storeDir, CodexAuthSettings.userConfigDir(lc.env(), base.home()));
        try (Sandbox sb = Sandbox.open(lc, new TestEngine.Events(), base)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            assertTrue(sb.policy().readDenial(store.file()) != null, "the file tools refuse it too");
            Files.writeString(ws.resolve("control.txt"), "CONTROL-VISIBLE");
            ExecOutcome.Completed control = TestEngine.bash(sb, ws, "cat control.txt", "run-iso2", "call-control",
                    Duration.ofSeconds(30));
            assertEquals("CONTROL-VISIBLE", control.stdout(), "commands really run and read: " + control);
            for (String cmd : List.of("cat '" + store.file() + "'", "grep -r CANARY '" + storeDir + "' 2>&1",
                    "ls -la '" + storeDir + "' 2>&1")) {
                ExecOutcome.Completed c = TestEngine.bash(sb, ws, cmd, "run-iso2", "call-" + cmd.hashCode(),
                        Duration.ofSeconds(30));
                assertFalse((c.stdout() + c.stderr()).contains("CANARY"), cmd + " saw a token");
            }
        }
    }
}
