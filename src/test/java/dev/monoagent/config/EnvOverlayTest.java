package dev.monoagent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.MemoryMode;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Precedence exported env &gt; .env &gt; JSON &gt; default, and provenance of every overlaid field. */
class EnvOverlayTest {
    @TempDir
    Path ws;

    @BeforeEach
    void config() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), """
                {"runtime": {"model": "openai-codex:gpt-5.6-terra"},
                 "sandbox": {"mode": "native", "network": {"mode": "none"}, "fallback": "fail-closed"}}
                """);
    }

    @TempDir
    Path userDir;

    LoadedConfig load(Map<String, String> env) throws ConfigException {
        Map<String, String> e = new HashMap<>(env);
        e.put("MONO_AGENT_CONFIG_DIR", userDir.toString());
        return ConfigLoader.load(new ConfigLoader.Options(ws, null, null, e));
    }

    /** As {@link #load} after the reviewer accepted everything the workspace's files hold back. */
    LoadedConfig trusted(Map<String, String> env) throws Exception {
        LoadedConfig first = load(env);
        ConfigLoader.accept(Map.of("MONO_AGENT_CONFIG_DIR", userDir.toString()), first.workspace(), first.trust());
        LoadedConfig lc = load(env);
        assertTrue(lc.trust().settled(), lc.trust().pending().toString());
        return lc;
    }

    @Test
    void everySandboxVariableOverlaysItsKey() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("MONO_AGENT_SANDBOX_MODE", "off");
        env.put("MONO_AGENT_SANDBOX_NETWORK", "allowlist");
        env.put("MONO_AGENT_SANDBOX_NETWORK_ALLOWLIST", "example.com, *.npmjs.org");
        env.put("MONO_AGENT_SANDBOX_READABLE_ROOTS", "docs");
        env.put("MONO_AGENT_SANDBOX_WRITABLE_ROOTS", "out");
        env.put("MONO_AGENT_SANDBOX_DENY_WRITE", ".env,secrets/**");
        env.put("MONO_AGENT_SANDBOX_FALLBACK", "unsafe-host-process");
        env.put("MONO_AGENT_SANDBOX_UNSAFE_ALLOW_HOST_PROCESS", "true");
        LoadedConfig lc = load(env);
        MonoConfig.Sandbox sb = lc.config().sandbox();
        assertEquals(new MonoConfig.Sandbox(SandboxMode.OFF,
                new MonoConfig.Network(NetworkMode.ALLOWLIST, List.of("example.com", "*.npmjs.org")),
                List.of("docs"), List.of("out"), List.of(".env", "secrets/**"), Fallback.UNSAFE_HOST_PROCESS,
                true), sb);
        for (String path : List.of("sandbox.mode", "sandbox.network.mode", "sandbox.network.allowlist",
                "sandbox.readableRoots", "sandbox.writableRoots", "sandbox.denyWrite", "sandbox.fallback",
                "sandbox.unsafeAllowHostProcess")) {
            assertEquals(Source.ENV, lc.sourceOf(path), path);
        }
        assertEquals(List.of(ws.resolve("out")), lc.writableRoots());
        assertEquals(List.of(ws.resolve("docs")), lc.readableRoots());
    }

    @Test
    void dotenvNeverOverridesExportedVariables() throws Exception {
        Files.writeString(ws.resolve(".env"), """
                # comment
                export MONO_AGENT_SANDBOX_NETWORK=all
                MONO_AGENT_SANDBOX_MODE="off"
                OPENAI_API_KEY='sk-from-file'
                """);
        LoadedConfig lc = trusted(Map.of("MONO_AGENT_SANDBOX_NETWORK", "localhost"));
        assertEquals(NetworkMode.LOCALHOST, lc.config().sandbox().network().mode());
        assertEquals(Source.ENV, lc.sourceOf("sandbox.network.mode"));
        assertEquals(SandboxMode.OFF, lc.config().sandbox().mode());
        assertEquals(Source.DOTENV, lc.sourceOf("sandbox.mode"));
        assertEquals("sk-from-file", lc.envValue("OPENAI_API_KEY"));
    }

    @Test
    void emptyExportedValueCountsAsUnset() throws Exception {
        Files.writeString(ws.resolve(".env"), "MONO_AGENT_SANDBOX_NETWORK=localhost\n");
        LoadedConfig lc = trusted(Map.of("MONO_AGENT_SANDBOX_NETWORK", "", "MONO_AGENT_SANDBOX_MODE", ""));
        assertEquals(NetworkMode.LOCALHOST, lc.config().sandbox().network().mode());
        assertEquals(Source.DOTENV, lc.sourceOf("sandbox.network.mode"));
        assertEquals(SandboxMode.NATIVE, lc.config().sandbox().mode());
        assertEquals(Source.JSON, lc.sourceOf("sandbox.mode"));
    }

    @Test
    void jsonBeatsDefaultsAndDefaultsFillTheRest() throws Exception {
        LoadedConfig lc = trusted(Map.of());
        assertEquals(Source.JSON, lc.sourceOf("runtime.model"));
        assertEquals(Source.DEFAULT, lc.sourceOf("sandbox.denyWrite"));
        assertEquals(MonoConfig.Sandbox.DEFAULT_DENY_WRITE, lc.config().sandbox().denyWrite());
        assertEquals(MemoryMode.LITE, lc.config().memory().mode());
        assertEquals(300000, lc.config().monitors().maxWakeIntervalMs());
    }

    @Test
    void denyWriteReplacesTheDefaultsInsteadOfMerging() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), """
                {"runtime": {"model": "openai:gpt-5"}, "sandbox": {"denyWrite": ["secrets/**"]}}
                """);
        assertEquals(List.of("secrets/**"), trusted(Map.of()).config().sandbox().denyWrite());
    }

    @Test
    void allowedToolsEmptyStringMeansChatOnlyButUnsetMeansAll() throws Exception {
        assertEquals(List.of(), load(Map.of("MONO_AGENT_ALLOWED_TOOLS", "")).config().tools().allowedTools());
        assertEquals(List.of("*"), load(Map.of()).config().tools().allowedTools());
        LoadedConfig lc = load(Map.of("MONO_AGENT_ALLOWED_TOOLS", "Read,Grep", "MONO_AGENT_DISALLOWED_TOOLS", "Bash"));
        assertEquals(List.of("Read", "Grep"), lc.config().tools().allowedTools());
        assertEquals(List.of("Bash"), lc.config().tools().disallowedTools());
    }

    @Test
    void modelAndMemoryVariables() throws Exception {
        LoadedConfig lc = load(Map.of("MONO_AGENT_MODEL", "ollama:gemma4:31b", "MONO_AGENT_MEMORY_MODE", "journal"));
        assertEquals("ollama:gemma4:31b", lc.config().runtime().model());
        assertEquals(Source.ENV, lc.sourceOf("runtime.model"));
        assertEquals(MemoryMode.JOURNAL, lc.config().memory().mode());
        assertEquals(new ModelRefGrammar.Parts("ollama", "gemma4:31b"),
                ModelRefGrammar.parse("pi:ollama:gemma4:31b", "runtime.model", java.util.Set.of()));
    }

    @Test
    void workspaceVariableMovesTheAgentFolder(@TempDir Path other) throws Exception {
        Files.writeString(other.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"openai:o\"}}");
        LoadedConfig lc = trusted(Map.of(EnvVars.WORKSPACE, other.toString()));
        assertEquals(other, lc.workspace());
        assertEquals("openai:o", lc.config().runtime().model());
        assertEquals(List.of(other), lc.readableRoots());
    }

    @Test
    void explicitEnvFileReplacesDotEnvAndMustExist(@TempDir Path other) throws Exception {
        Files.writeString(ws.resolve(".env"), "MONO_AGENT_SANDBOX_NETWORK=all\n");
        Path f = other.resolve("alt.env");
        Files.writeString(f, "MONO_AGENT_SANDBOX_NETWORK=localhost\n");
        LoadedConfig lc = ConfigLoader.load(new ConfigLoader.Options(ws, null, f, Map.of()));
        assertEquals(NetworkMode.LOCALHOST, lc.config().sandbox().network().mode());
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(
                new ConfigLoader.Options(ws, null, other.resolve("missing.env"), Map.of())));
        assertEquals("--env-file", e.errors().get(0).field());
    }

    @Test
    void malformedDotEnvLineIsNamed() throws Exception {
        Files.writeString(ws.resolve(".env"), "GOOD=1\nthis is not an assignment\n");
        ConfigException e = assertThrows(ConfigException.class, () -> load(Map.of()));
        assertTrue(e.getMessage().contains(".env:2"), e.getMessage());
    }

    @Test
    void relativeRootsResolveAgainstTheWorkspaceNotTheCwd(@TempDir Path cwd) throws Exception {
        LoadedConfig lc = ConfigLoader.load(new ConfigLoader.Options(cwd, ws.resolve(ConfigLoader.CONFIG_FILE), null,
                Map.of("MONO_AGENT_SANDBOX_WRITABLE_ROOTS", "build,.")));
        assertEquals(ws, lc.workspace());
        assertEquals(List.of(ws.resolve("build"), ws), lc.writableRoots());
    }
}
