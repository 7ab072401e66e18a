package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The playbook's first steps through the real command tree: init, validate, config, presets, usage errors. */
class CliTest {
    @TempDir
    Path ws;

    @TempDir
    Path emptyCache;

    /** Runs with an empty engine cache, so the sandbox is deterministically unproven here. */
    CliHarness.Result run(String... args) {
        return CliHarness.run(ws, Map.of("MONO_AGENT_CACHE_DIR", emptyCache.toString()), args);
    }

    static List<String> tree(Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted().toList()) {
                out.add(dir.relativize(p) + (Files.isRegularFile(p) ? ":" + Files.readString(p).hashCode() : "/"));
            }
        }
        return out;
    }

    @Test
    void initCreatesTheAgentFolderAndRefusesToOverwrite() throws Exception {
        CliHarness.Result r = run("init", "--model", "openai-codex:gpt-5.6-terra", "--memory", "journal");
        assertEquals(0, r.exit(), r.err());
        JsonNode cfg = new ObjectMapper().readTree(ws.resolve(ConfigLoader.CONFIG_FILE).toFile());
        assertEquals("openai-codex:gpt-5.6-terra", cfg.at("/runtime/model").asText());
        assertEquals("journal", cfg.at("/memory/mode").asText());
        assertTrue(Files.readString(ws.resolve("IDENTITY.md")).contains("## Role"));
        assertTrue(Files.isDirectory(ws.resolve(".mono-agent")));
        assertTrue(Files.readAllLines(ws.resolve(".gitignore")).contains(".mono-agent/"));

        List<String> before = tree(ws);
        CliHarness.Result again = run("init", "--model", "anthropic:claude-x", "--memory", "lite");
        assertEquals(1, again.exit());
        assertTrue(again.err().contains("already exists"), again.err());
        assertTrue(again.err().contains("--force"), again.err());
        assertEquals(before, tree(ws), "files untouched");

        CliHarness.Result forced = run("init", "--model", "anthropic:claude-x", "--force");
        assertEquals(0, forced.exit(), forced.err());
        assertTrue(Files.readString(ws.resolve("mono-agent.config.json.bak")).contains("openai-codex"));
        assertTrue(Files.readString(ws.resolve(ConfigLoader.CONFIG_FILE)).contains("anthropic:claude-x"));
    }

    /**
     * The code-sandbox preset writes exactly the playbook's configuration, its model included (the README promises
     * so; without it start refused); an explicit --model still wins over the preset's.
     */
    @Test
    void codeSandboxPresetWritesThePlaybookModelAndModelFlagWins() throws Exception {
        CliHarness.Result r = run("init", "--preset", "code-sandbox");
        assertEquals(0, r.exit(), r.err());
        JsonNode cfg = new ObjectMapper().readTree(ws.resolve(ConfigLoader.CONFIG_FILE).toFile());
        assertEquals("openai-codex:gpt-5.6-terra", cfg.at("/runtime/model").asText(), cfg.toString());
        assertEquals(List.of("runtime", "tools", "sandbox", "memory"), iter(cfg.fieldNames()));
        assertEquals("localhost", cfg.at("/sandbox/network/mode").asText());
        assertTrue(r.out().contains("Model: openai-codex:gpt-5.6-terra (from the preset; --model REF picks another)."),
                r.out());
        assertFalse(r.out().contains("No model set"), r.out());
        CliHarness.Result other = run("init", "--force", "--preset", "code-sandbox", "--model", "openai:gpt-5");
        assertEquals(0, other.exit(), other.err());
        JsonNode forced = new ObjectMapper().readTree(ws.resolve(ConfigLoader.CONFIG_FILE).toFile());
        assertEquals("openai:gpt-5", forced.at("/runtime/model").asText(), forced.toString());
        assertEquals("localhost", forced.at("/sandbox/network/mode").asText());
    }

    /**
     * A config without a model is no error: validate exits 0 with Runtime waiting (so start opens the window, whose
     * consoles work without a model), and only a prompt is refused, with a message naming runtime.model.
     */
    @Test
    void aMissingModelWaitsAndOnlyRunIsRefused() throws Exception {
        CliHarness.Result r = run("init");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("No model set (runtime.model): the window, its consoles and tools call work, "
                + "but prompts and mono-agent run are refused until one is. Set it with mono-agent init --force "
                + "--model <provider>:<model>"), r.out());
        assertFalse(Files.readString(ws.resolve(ConfigLoader.CONFIG_FILE)).contains("\"model\""));
        CliHarness.Result v = run("validate");
        assertEquals(0, v.exit(), v.out() + v.err());
        assertTrue(v.out().contains("Runtime: waiting\n  [WARN] runtime.model is not set: prompts and mono-agent run "
                + "are refused until it is"), v.out());
        CliHarness.Result ran = run("run", "hello");
        assertEquals(1, ran.exit(), ran.out() + ran.err());
        assertTrue(ran.err().contains("runtime.model is not set"), ran.err());
        assertFalse(ran.err().contains("Exception"), ran.err());
    }

    /** Playbook step 3 from the CLI: init --network sets sandbox.network.mode (there was no way but editing). */
    @Test
    void initNetworkSetsTheSandboxNetworkMode() throws Exception {
        CliHarness.Result r = run("init", "--model", "openai-codex:gpt-5.6-terra", "--memory", "journal",
                "--network", "localhost");
        assertEquals(0, r.exit(), r.err());
        JsonNode cfg = new ObjectMapper().readTree(ws.resolve(ConfigLoader.CONFIG_FILE).toFile());
        assertEquals("localhost", cfg.at("/sandbox/network/mode").asText(), cfg.toString());
        assertEquals("fail-closed", cfg.at("/sandbox/fallback").asText(), "the rest of the preset is kept");
        assertTrue(run("validate", "--preset", "code-sandbox").out().contains("mode: native, network: localhost"));
        CliHarness.Result bad = run("init", "--force", "--network", "internet");
        assertEquals(1, bad.exit());
        assertTrue(bad.err().contains("--network must be one of none|localhost|allowlist|all, got \"internet\"."),
                bad.err());
    }

    @Test
    void initDryRunWritesNothingAndBadFlagsAreNamed() throws Exception {
        CliHarness.Result r = run("init", "--preset", "code-sandbox", "--model", "openai:gpt-5", "--dry-run");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"mode\" : \"localhost\""), r.out());
        assertEquals(List.of("/"), tree(ws));
        CliHarness.Result bad = run("init", "--model", "codex:gpt-5.6-terra");
        assertEquals(1, bad.exit());
        assertTrue(bad.err().contains("--model `codex:gpt-5.6-terra` is not a valid runtime model reference: "
                + "codex is no longer a runtime backend; use openai-codex:gpt-5.6-terra"), bad.err());
        assertTrue(run("init", "--memory", "huge").err().contains("--memory must be one of lite|journal|bujo"));
        assertTrue(run("init", "--preset", "nope").err().contains("--preset nope is not a preset"));
        assertEquals(List.of("/"), tree(ws));
    }

    @Test
    void gitignoreIsAppendedNotReplaced() throws Exception {
        Files.writeString(ws.resolve(".gitignore"), "node_modules\n.env");
        assertEquals(0, run("init", "--model", "openai:gpt-5").exit());
        List<String> lines = Files.readAllLines(ws.resolve(".gitignore"));
        assertEquals(List.of("node_modules", ".env", ".mono-agent/", ".env.*"), lines);
    }

    @Test
    void validatePrintsEverySectionAndTheClosingLine() throws Exception {
        run("init", "--model", "openai-codex:gpt-5.6-terra", "--memory", "journal", "--preset", "code-sandbox");
        CliHarness.Result r = run("validate", "--preset", "code-sandbox");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("Loaded " + ws.resolve(ConfigLoader.CONFIG_FILE) + "."), r.out());
        for (String title : List.of("Runtime:", "Provider credentials:", "Config warnings:", "Memory:",
                "Tools & MCP:", "Sandbox:", "Runs health:", "Secret placement:", "Preset code-sandbox: ok")) {
            assertTrue(r.out().contains("\n" + title), title + " in\n" + r.out());
        }
        String last = r.out().strip().lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.equals("Config is ready to start.")
                || last.equals("Config is structurally valid, but needs attention before start."), last);
    }

    @Test
    void validateJsonIsExactlyOneObject() throws Exception {
        run("init", "--model", "openai:gpt-5", "--preset", "code-sandbox");
        CliHarness.Result r = run("validate", "--json", "--preset", "code-sandbox");
        assertEquals(0, r.exit(), r.err());
        ObjectMapper om = new ObjectMapper();
        var parser = om.getFactory().createParser(r.out());
        JsonNode node = om.readTree(parser);
        assertEquals(null, parser.nextToken(), "nothing after the object");
        assertEquals(List.of("ok", "sections", "preset"), iter(node.fieldNames()));
        assertEquals("code-sandbox", node.get("preset").asText());
        for (JsonNode s : node.get("sections")) {
            assertEquals(List.of("id", "status", "details"), iter(s.fieldNames()));
            assertTrue(List.of("ok", "waiting", "disabled", "error").contains(s.get("status").asText()));
        }
        assertEquals("waiting", section(node, "sandbox").get("status").asText());
        assertTrue(section(node, "sandbox").get("details").toString().contains("sandbox_unavailable"));
    }

    /**
     * A config error quotes the repository's own text (a tool name, an allowlist entry); a line break in it must not
     * add lines of the repository's making ("Sandbox: ok", "Config is valid.") to what validate and tools call print.
     */
    @Test
    void theRepositorysTextInAConfigErrorStaysOnItsLine() throws Exception {
        String forged = "x\\n\\nSandbox: ok\\n  mode: native, network: none\\r\\nConfig is valid.";
        for (String json : List.of("{\"tools\":{\"disallowedTools\":[\"" + forged + "\"]}}",
                "{\"sandbox\":{\"network\":{\"mode\":\"allowlist\",\"allowlist\":[\"" + forged + "\"]}}}")) {
            Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), json);
            for (String[] cmd : new String[][] {{"validate"}, {"tools", "call", "Read", "{\"file_path\":\"a\"}"}}) {
                CliHarness.Result r = run(cmd);
                assertEquals(1, r.exit(), json + r.out() + r.err());
                String all = r.out() + "\n" + r.err();
                assertTrue(all.contains("\"x\\n\\nSandbox: ok\\n  mode: native, network: none\\r\\nConfig is valid."),
                        all);
                assertFalse(all.lines().anyMatch(l -> l.startsWith("Sandbox: ok") || l.startsWith("Config is valid")
                        || l.equals("  mode: native, network: none")), all);
            }
        }
    }

    @Test
    void validateErrorSectionsExitOne() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE),
                "{\"tools\":{\"allowedTools\":[\"Bash\"],\"disallowedTools\":[\"bash\"]}}");
        CliHarness.Result r = run("validate", "--json");
        assertEquals(1, r.exit());
        JsonNode node = new ObjectMapper().readTree(r.out());
        assertFalse(node.get("ok").asBoolean());
        assertEquals("waiting", section(node, "runtime").get("status").asText(), "no model is no error");
        assertEquals("error", section(node, "tools").get("status").asText());
        assertTrue(section(node, "tools").toString().contains("invalid_tool_policy"));
    }

    /**
     * A readable root above the workspace is mounted read-only over it, so every command failed with bubblewrap's
     * "Read-only file system" after validate passed; it is refused naming the entry. A root beside it is fine.
     */
    @Test
    void aReadableRootContainingTheWorkspaceIsRefusedByName() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE),
                "{\"runtime\":{\"model\":\"ollama:qwen\"},\"sandbox\":{\"readableRoots\":[\".\",\"..\"]}}");
        String why = "sandbox.readableRoots[1] \"..\" (" + ws.getParent() + ") contains the workspace " + ws
                + ": a readable root is mounted read-only";
        for (String[] cmd : new String[][] {{"validate"}, {"tools", "call", "Bash", "{\"command\":\"true\"}"}}) {
            CliHarness.Result r = run(cmd);
            assertEquals(1, r.exit(), String.join(" ", cmd) + ": " + r.out() + r.err());
            assertTrue(r.err().contains("Config error: " + why), r.err());
            assertFalse(r.err().contains("Exception"), r.err());
        }
        // status still shows what it can, but a config that does not load is no success (it exited 0)
        CliHarness.Result status = run("status");
        assertEquals(1, status.exit(), status.out() + status.err());
        assertTrue(status.out().contains("instance\n") && status.out().contains("config error: " + why),
                status.out());
        assertTrue(status.out().contains("sandbox\n  unknown: the config could not be loaded"), status.out());
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE),
                "{\"runtime\":{\"model\":\"ollama:qwen\"},\"sandbox\":{\"readableRoots\":[\".\",\"../lib\"]}}");
        CliHarness.Result beside = run("validate");
        assertFalse((beside.out() + beside.err()).contains("readableRoots[1]"), beside.out() + beside.err());
    }

    @Test
    void sandboxOffIsDisabledAndUnsafeFallbackWarns() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE),
                "{\"runtime\":{\"model\":\"ollama:qwen\"},\"sandbox\":{\"mode\":\"off\"}}");
        run("trust");
        CliHarness.Result off = run("validate");
        assertTrue(off.out().contains("Sandbox: disabled\n  Sandbox is off; commands run without mono-agent sandbox "
                + "wrapping."), off.out());
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"ollama:qwen\"},"
                + "\"sandbox\":{\"fallback\":\"unsafe-host-process\",\"unsafeAllowHostProcess\":true}}");
        run("trust");
        assertTrue(run("validate").out().contains("WARNING: Unsafe sandbox fallback is active: all sandbox "
                + "roots/denyWrite entries are inert; commands run unsandboxed."));
    }

    @Test
    void trustShowListsWithoutAcceptingAndTrustPrintsWhatItAccepts() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"ollama:qwen\"},"
                + "\"sandbox\":{\"network\":{\"mode\":\"all\"}}}");
        CliHarness.Result show = run("trust", "--show");
        assertEquals(0, show.exit(), show.err());
        assertTrue(show.out().contains("Waiting for your acceptance (not in effect):\n  - sandbox.network = all "
                + "(from mono-agent.config.json: would widen the sandbox)"), show.out());
        CliHarness.Result v = run("validate");
        assertTrue(v.out().contains("Workspace trust: waiting") && v.err().contains("sandbox.network=all"),
                v.out() + v.err());
        assertFalse(v.out().contains("network all: commands reach any host"), "not in effect yet: " + v.out());
        CliHarness.Result t = run("trust");
        assertEquals(0, t.exit(), t.err());
        assertTrue(t.out().contains("Accepting 2 setting(s) from the workspace:\n") && t.out().contains(
                "  - sandbox.network = all (from mono-agent.config.json: would widen the sandbox)") && t.out().contains(
                "  - runtime.model = ollama:qwen (provider ollama)"), t.out());
        CliHarness.Result after = run("validate");
        assertTrue(after.out().contains("Workspace trust: ok") && after.out().contains("network all: commands reach "
                + "any host"), after.out());
        assertTrue(run("trust").out().contains("Nothing from the workspace waits for your acceptance."));
    }

    @Test
    void configShowsProvenanceAndSecretsAsSetOrUnset() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"openai:gpt-5\"}}");
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=sk-very-secret-value\n");
        run("trust");
        CliHarness.Result r = CliHarness.run(ws, Map.of("MONO_AGENT_SANDBOX_NETWORK", "localhost",
                "MONO_AGENT_CACHE_DIR", emptyCache.toString()), "config");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("runtime.model = \"openai:gpt-5\" [json]"), r.out());
        assertTrue(r.out().contains("sandbox.network.mode = \"localhost\" [env]"), r.out());
        assertTrue(r.out().contains("sandbox.fallback = \"fail-closed\" [default]"), r.out());
        assertTrue(r.out().contains("OPENAI_API_KEY: set"), r.out());
        assertTrue(r.out().contains("ANTHROPIC_API_KEY: unset"), r.out());
        assertFalse(r.out().contains("sk-very-secret-value"));
    }

    @Test
    void misspelledEnvVariablesAreWarnedButLauncherVariablesAreNot() throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"ollama:qwen\"}}");
        CliHarness.Result r = CliHarness.run(ws, Map.of("MONO_AGENT_SANDBOX_NETWRK", "localhost",
                "MONO_AGENT_WORKSPCE", "/elsewhere", "MONO_AGENT_JAVA", "/usr/bin/java", "MONO_AGENT_CACHE_DIR", emptyCache.toString()), "validate");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Config warnings: waiting\n  [WARN] MONO_AGENT_SANDBOX_NETWRK is not a mono-agent "
                + "setting and is ignored. Did you mean MONO_AGENT_SANDBOX_NETWORK?"), r.out());
        assertTrue(r.out().contains("[WARN] MONO_AGENT_WORKSPCE is not a mono-agent setting and is ignored. Did you "
                + "mean MONO_AGENT_WORKSPACE?"), r.out());
        assertFalse(r.out().contains("MONO_AGENT_JAVA is not"), r.out());
        assertFalse(r.out().contains("MONO_AGENT_CACHE_DIR is not"), r.out());
    }

    @Test
    void presetsListAndShow() {
        CliHarness.Result list = run("presets", "list");
        for (String id : List.of("starter", "telegram-assistant", "slack-bot", "local-private", "code-sandbox")) {
            assertTrue(list.out().contains(id), id);
        }
        CliHarness.Result show = run("presets", "show", "code-sandbox");
        assertEquals(0, show.exit());
        assertTrue(show.out().contains("sandbox.network.mode is localhost"));
        assertEquals(2, run("presets", "show", "nope").exit());
    }

    @Test
    void usageErrorsExitTwoAndHelpExitsZero() {
        CliHarness.Result unknown = run("frobnicate");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("Usage: mono-agent"), unknown.err());
        assertEquals(2, run("validate", "--nope").exit());
        assertEquals(2, run("validate", "--preset", "nope").exit());
        for (String[] help : new String[][] {{}, {"help"}, {"--help"}, {"-h"}}) {
            CliHarness.Result r = run(help);
            assertEquals(0, r.exit());
            assertTrue(r.out().contains("Usage: mono-agent"), r.out());
        }
        assertTrue(run("--version").out().startsWith("mono-agent "));
    }

    static List<String> iter(java.util.Iterator<String> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    static JsonNode section(JsonNode report, String id) {
        for (JsonNode s : report.get("sections")) {
            if (s.get("id").asText().equals(id)) {
                return s;
            }
        }
        throw new AssertionError("no section " + id);
    }
}
