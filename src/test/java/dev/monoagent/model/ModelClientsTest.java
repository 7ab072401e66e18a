package dev.monoagent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The factory: base URL overrides, keys from env and .env, runtime.retry, unknown providers, missing sign-in. */
class ModelClientsTest {
    @TempDir
    Path ws;
    final FakeModelServer server = FakeModelServer.start();

    @AfterEach
    void stop() {
        server.close();
    }

    LoadedConfig load(String json, Map<String, String> env) throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), json);
        return dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, env));
    }

    @Test
    void openaiBaseUrlOverrideKeyFromDotEnvAndRetryFromConfig() throws Exception {
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=sk-from-dotenv\n");
        LoadedConfig lc = load("""
                {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                 "providers": {"openai": {"baseUrl": "%s/v1"}}}""".formatted(server.baseUrl()), Map.of());
        ModelClient c = ModelClients.create(ModelRef.parse("openai:gpt-test", "runtime.model", Set.of()), lc, null);
        assertEquals("openai", c.provider());
        server.enqueue(Reply.json(503, "{\"error\":{\"message\":\"busy\"}}"));
        Turns.Run r = Turns.run(c, Turns.ask("x"));
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertEquals(1, server.requests().size(), "primaryAttempts 1 = no retry");
        assertEquals("/v1/responses", server.request(0).path());
        assertEquals("Bearer sk-from-dotenv", server.request(0).header("authorization"));
    }

    @Test
    void exportedKeyWinsAndCustomProvidersSpeakTheirApi() throws Exception {
        LoadedConfig lc = load("""
                {"runtime": {"model": "gateway:claude-x"},
                 "providers": {"gateway": {"baseUrl": "%s", "api": "anthropic-messages", "apiKeyEnv": "GW_KEY"}}}
                """.formatted(server.baseUrl()), Map.of("GW_KEY", "gw-secret"));
        ModelClient c = ModelClients.create(new ModelRef("gateway", "claude-x"), lc, null);
        server.enqueue(Scripts.turn(Scripts.Wire.ANTHROPIC, Scripts.Turn.text("hello")));
        assertEquals("hello", Turns.run(c, Turns.ask("x")).text());
        assertEquals("/v1/messages", server.request(0).path());
    }

    @Test
    void localProvidersUseChatCompletionsAtTheirBaseUrl() throws Exception {
        LoadedConfig lc = load("""
                {"runtime": {"model": "ollama:gemma4:31b"}, "providers": {"ollama": {"baseUrl": "%s/v1"}}}
                """.formatted(server.baseUrl()), Map.of());
        ModelClient c = ModelClients.create(ModelRef.parse("ollama:gemma4:31b", "runtime.model", Set.of()), lc, null);
        server.enqueue(Scripts.turn(Scripts.Wire.CHAT, Scripts.Turn.text("local")));
        assertEquals("local", Turns.run(c, Turns.ask("x")).text());
        assertEquals("/v1/chat/completions", server.request(0).path());
    }

    @Test
    void unknownProviderGetsTheContractMessage() throws Exception {
        LoadedConfig lc = load("{\"runtime\": {\"model\": \"openai:gpt-test\"}}", Map.of());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ModelClients.create(new ModelRef("nope", "m"), lc, null));
        assertEquals("runtime.model `nope:m` is not a valid runtime model reference: unknown provider nope; known: "
                + "anthropic, lmstudio, ollama, openai, openai-codex, openai_compat, openrouter (or add it under "
                + "providers)", e.getMessage());
    }

    @Test
    void openaiCompatNeedsABaseUrl() throws Exception {
        LoadedConfig lc = load("{\"runtime\": {\"model\": \"openai:gpt-test\"}}", Map.of());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ModelClients.create(new ModelRef("openai_compat", "m"), lc, null));
        assertTrue(e.getMessage().contains("providers.openai_compat.baseUrl"), e.getMessage());
    }

    @Test
    void codexWithoutSignInIsAuthRequiredNamingTheCommand() throws Exception {
        LoadedConfig lc = load("""
                {"runtime": {"model": "openai-codex:gpt-5.6-terra"},
                 "providers": {"openai-codex": {"baseUrl": "%s"}}}""".formatted(server.baseUrl()), Map.of());
        ModelClient c = ModelClients.create(ModelRef.parse("openai-codex:gpt-5.6-terra", "runtime.model", Set.of()),
                lc, null);
        Turns.Run r = Turns.run(c, Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertTrue(r.failed().message().contains("mono-agent auth login openai-codex"));
        assertTrue(server.requests().isEmpty());
    }

    @Test
    void warmUpSendsNothingAndTheClientStillWorks() throws Exception {
        LoadedConfig lc = load("""
                {"runtime": {"model": "lmstudio:m"}, "providers": {"lmstudio": {"baseUrl": "%s/v1"},
                 "openai": {"baseUrl": "%s/v1"}, "anthropic": {"baseUrl": "%s"}}}
                """.formatted(server.baseUrl(), server.baseUrl(), server.baseUrl()),
                Map.of("OPENAI_API_KEY", "sk-openai-key", "ANTHROPIC_API_KEY", "sk-anthropic-key"));
        for (String p : List.of("lmstudio", "openai", "anthropic")) {
            ModelClients.create(new ModelRef(p, "m"), lc, null).warmUp();
        }
        assertTrue(server.requests().isEmpty(), "warm-up is local");
        ModelClient c = ModelClients.create(new ModelRef("lmstudio", "m"), lc, null);
        c.warmUp();
        server.enqueue(Scripts.turn(Scripts.Wire.CHAT, Scripts.Turn.text("warm")));
        assertEquals("warm", Turns.run(c, Turns.ask("x")).text());
    }

    @Test
    void anthropicWithoutKeyIsAuthRequired() throws Exception {
        LoadedConfig lc = load("{\"runtime\": {\"model\": \"anthropic:claude-x\"}}", Map.of());
        Turns.Run r = Turns.run(ModelClients.create(new ModelRef("anthropic", "claude-x"), lc, null), Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertTrue(r.failed().message().contains("ANTHROPIC_API_KEY"), r.failed().message());
    }
}
