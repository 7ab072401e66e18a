package dev.monoagent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.cli.CliHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every malformed config must fail with an error naming the exact field (or env var), exit 1 from the CLI, and
 * no stack trace.
 */
class MalformedConfigTest {
    @TempDir
    Path ws;

    static final String M = "\"runtime\":{\"model\":\"openai:gpt-5\"}";

    static Arguments c(String json, Map<String, String> env, String field, String fragment) {
        return Arguments.of(json, env, field, fragment);
    }

    static Arguments c(String json, String field, String fragment) {
        return c(json, Map.of(), field, fragment);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // bad JSON
                c("{", "config", "is not valid JSON at line 1"),
                c("{\"runtime\": {\"model\": \"openai:x\",}}", "config", "is not valid JSON"),
                c("[1,2]", "config", "must hold a JSON object at the top level"),
                c("   ", "config", "is empty"),
                c("{\"runtime\":{\"model\":\"openai:x\"},\"runtime\":{}}", "config", "Duplicate field 'runtime'"),
                // unknown keys at several depths
                c("{" + M + ",\"sandbx\":{}}", "sandbx", "config has unknown key: sandbx. Did you mean sandbox?"),
                c("{" + M + ",\"sandbox\":{\"fallbak\":\"fail-closed\"}}", "sandbox.fallbak",
                        "sandbox has unknown key: fallbak."),
                c("{" + M + ",\"sandbox\":{\"network\":{\"mdoe\":\"none\"}}}", "sandbox.network.mdoe",
                        "sandbox.network has unknown key: mdoe."),
                c("{" + M + ",\"memory\":{\"embeddings\":{\"dims\":3}}}", "memory.embeddings.dims",
                        "memory.embeddings has unknown key: dims."),
                c("{" + M + ",\"providers\":{\"corp\":{\"baseUrl\":\"http://x\",\"key\":\"k\"}}}",
                        "providers.corp.key", "providers.corp has unknown key: key."),
                c("{\"runtime\":{\"model\":\"openai:x\",\"temperature\":1}}", "runtime.temperature",
                        "runtime has unknown key: temperature."),
                // retired keys
                c("{\"model\":\"openai:x\"}", "model", "model was retired; use runtime.model instead."),
                c("{" + M + ",\"sandbox\":{\"allowWrite\":[\".\"]}}", "sandbox.allowWrite",
                        "use sandbox.writableRoots instead"),
                // wrong types
                c("{\"runtime\":{\"model\":42}}", "runtime.model", "runtime.model must be a string, got number 42."),
                c("{" + M + ",\"sandbox\":{\"readableRoots\":\".\"}}", "sandbox.readableRoots",
                        "must be an array of strings"),
                c("{" + M + ",\"sandbox\":{\"denyWrite\":[\".env\",7]}}", "sandbox.denyWrite[1]",
                        "sandbox.denyWrite[1] must be a string, got number 7."),
                c("{" + M + ",\"sandbox\":{\"unsafeAllowHostProcess\":\"yes\"}}", "sandbox.unsafeAllowHostProcess",
                        "must be true or false"),
                c("{" + M + ",\"sandbox\":{\"network\":\"localhost\"}}", "sandbox.network", "must be an object"),
                c("{" + M + ",\"processJobs\":{\"maxConcurrent\":2.5}}", "processJobs.maxConcurrent",
                        "must be an integer"),
                c("{" + M + ",\"monitors\":{\"maxWakeIntervalMs\":400000}}", "monitors.maxWakeIntervalMs",
                        "must be between 1000 and 300000, got 400000."),
                c("{" + M + ",\"tools\":{\"allowedTools\":null}}", "tools.allowedTools", "is null"),
                c("{" + M + ",\"providers\":[]}", "providers", "must be an object"),
                // bad enum values
                c("{" + M + ",\"sandbox\":{\"mode\":\"nativ\"}}", "sandbox.mode",
                        "sandbox.mode must be one of native|off, got \"nativ\"."),
                c("{" + M + ",\"sandbox\":{\"network\":{\"localhostPorts\":[5432, 70000]}}}",
                        "sandbox.network.localhostPorts[1]", "must be a port number between 1 and 65535, got 70000"),
                c("{" + M + ",\"sandbox\":{\"network\":{\"localhostPorts\":\"5432\"}}}",
                        "sandbox.network.localhostPorts", "must be an array of port numbers"),
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_NETWORK_LOCALHOST_PORTS", "5432,http"),
                        "MONO_AGENT_SANDBOX_NETWORK_LOCALHOST_PORTS[1]", "must be a port number between 1 and 65535"),
                c("{" + M + ",\"sandbox\":{\"network\":{\"mode\":\"loopback\"}}}", "sandbox.network.mode",
                        "must be one of none|localhost|allowlist|all"),
                c("{" + M + ",\"sandbox\":{\"fallback\":\"host\"}}", "sandbox.fallback",
                        "must be one of fail-closed|unsafe-host-process"),
                c("{" + M + ",\"memory\":{\"mode\":\"vector\"}}", "memory.mode", "must be one of lite|journal|bujo"),
                // model references
                c("{\"runtime\":{\"model\":\"codex:gpt-5.6-terra\"}}", "runtime.model",
                        "runtime.model `codex:gpt-5.6-terra` is not a valid runtime model reference: "
                                + "codex is no longer a runtime backend; use openai-codex:gpt-5.6-terra"),
                c("{\"runtime\":{\"model\":\"claude:opus\"}}", "runtime.model", "use anthropic:opus"),
                c("{\"runtime\":{\"model\":\"claude-code:sonnet\"}}", "runtime.model", "use anthropic:sonnet"),
                c("{\"runtime\":{\"model\":\"codex-cli:gpt-5\"}}", "runtime.model", "use openai-codex:gpt-5"),
                c("{\"runtime\":{\"model\":\"gpt-5\"}}", "runtime.model", "expected <provider>:<model>"),
                c("{\"runtime\":{\"model\":\"acme:m1\"}}", "runtime.model", "unknown provider acme"),
                // cross-field rules
                c("{" + M + ",\"sandbox\":{\"fallback\":\"unsafe-host-process\"}}", "sandbox.fallback",
                        "is unsafe-host-process but sandbox.unsafeAllowHostProcess is not true"),
                c("{" + M + ",\"sandbox\":{\"network\":{\"mode\":\"allowlist\",\"allowlist\":[\"*\"]}}}",
                        "sandbox.network.allowlist[0]", "a bare * would allow every host"),
                c("{" + M + ",\"sandbox\":{\"network\":{\"mode\":\"allowlist\",\"allowlist\":[\"10.0.0.0/8\"]}}}",
                        "sandbox.network.allowlist[0]", "CIDR"),
                c("{" + M + ",\"sandbox\":{\"network\":{\"mode\":\"allowlist\",\"allowlist\":[\"a.com:443\"]}}}",
                        "sandbox.network.allowlist[0]", "ports are not supported"),
                c("{" + M + ",\"sandbox\":{\"network\":{\"mode\":\"allowlist\",\"allowlist\":[\"::1\"]}}}",
                        "sandbox.network.allowlist[0]", "IPv6"),
                c("{" + M + ",\"sandbox\":{\"writableRoots\":[\"\"]}}", "sandbox.writableRoots[0]", "is empty"),
                c("{" + M + ",\"providers\":{\"corp\":{\"apiKeyEnv\":\"K\"}}}", "providers.corp.baseUrl",
                        "is required for a provider that is not built in"),
                // bad env values: the message names the env var, not the JSON key
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_MODE", "sandboxed"), "MONO_AGENT_SANDBOX_MODE",
                        "MONO_AGENT_SANDBOX_MODE must be one of native|off, got \"sandboxed\"."),
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_NETWORK", "internet"), "MONO_AGENT_SANDBOX_NETWORK",
                        "must be one of none|localhost|allowlist|all"),
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_FALLBACK", "open"), "MONO_AGENT_SANDBOX_FALLBACK",
                        "must be one of fail-closed|unsafe-host-process"),
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_UNSAFE_ALLOW_HOST_PROCESS", "maybe"),
                        "MONO_AGENT_SANDBOX_UNSAFE_ALLOW_HOST_PROCESS", "must be true or false"),
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_FALLBACK", "unsafe-host-process"),
                        "MONO_AGENT_SANDBOX_FALLBACK", "MONO_AGENT_SANDBOX_FALLBACK is unsafe-host-process"),
                c("{}", Map.of("MONO_AGENT_MODEL", "codex:gpt-5.6-terra"), "MONO_AGENT_MODEL",
                        "MONO_AGENT_MODEL `codex:gpt-5.6-terra` is not a valid runtime model reference:"),
                c("{" + M + "}", Map.of("MONO_AGENT_MEMORY_MODE", "full"), "MONO_AGENT_MEMORY_MODE",
                        "must be one of lite|journal|bujo"),
                c("{" + M + "}", Map.of("MONO_AGENT_SANDBOX_NETWORK_ALLOWLIST", "ok.com,*"),
                        "MONO_AGENT_SANDBOX_NETWORK_ALLOWLIST[1]", "a bare *"));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void loaderNamesTheField(String json, Map<String, String> env, String field, String fragment) throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), json);
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(new ConfigLoader.Options(ws, null, null, env)));
        List<String> fields = e.errors().stream().map(ConfigError::field).toList();
        assertTrue(fields.contains(field), "fields " + fields + " should contain " + field);
        assertTrue(e.getMessage().contains(fragment), "message:\n" + e.getMessage() + "\nshould contain:\n" + fragment);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void cliExitsOneWithoutStackTrace(String json, Map<String, String> env, String field, String fragment)
            throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), json);
        Map<String, String> e = new HashMap<>(env);
        CliHarness.Result r = CliHarness.run(ws, e, "validate");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains(fragment.lines().findFirst().orElseThrow()), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }
}
