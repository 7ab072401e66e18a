package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolsCommandTest {
    @TempDir
    Path tmp;

    private Path ws(String tools) throws Exception {
        Path ws = tmp.toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"}"
                + (tools == null ? "" : ",\"tools\":" + tools) + "}");
        Files.writeString(ws.resolve("notes.txt"), "hello\n");
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        return ws;
    }

    /** The exported HOME lies outside the workspace: a workspace holding it is refused. */
    @TempDir
    Path homeParent;

    private Map<String, String> env(Path ws) {
        return Map.of("HOME", homeParent.resolve("home").toString(), "MONO_AGENT_CACHE_DIR",
                ws.resolve("cache").toString());
    }

    @Test
    void listShowsPolicySummaryAndTools() throws Exception {
        Path ws = ws("{\"allowedTools\":[\"Read\",\"Grep\"]}");
        CliHarness.Result r = CliHarness.run(ws, env(ws), "tools", "list");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("Allowed tools: Read, Grep.\n"), r.out());
        assertTrue(r.out().contains("  Read ") && r.out().contains("  Grep ") && !r.out().contains("Bash"));
        CliHarness.Result j = CliHarness.run(ws, env(ws), "tools", "list", "--json");
        var arr = new ObjectMapper().readTree(j.out());
        assertEquals("Read", arr.get(0).get("name").asText());
        assertEquals("object", arr.get(0).get("schema").get("type").asText());
    }

    @Test
    void invalidToolPolicyIsAConfigError() throws Exception {
        Path ws = ws("{\"allowedTools\":[\"Bash\"],\"disallowedTools\":[\"Bash\"]}");
        CliHarness.Result r = CliHarness.run(ws, env(ws), "tools", "list");
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("Tools cannot be both allowed and disallowed."), r.err());
    }

    @Test
    void callRunsOneToolAndReportsRefusals() throws Exception {
        Path ws = ws(null);
        CliHarness.Result r = CliHarness.run(ws, env(ws), "tools", "call", "Read", "{\"file_path\":\"notes.txt\"}");
        assertEquals(0, r.exit(), r.err());
        assertEquals("     1\thello\n\n", r.out());
        CliHarness.Result w = CliHarness.run(ws, env(ws), "tools", "call", "Write",
                "{\"file_path\":\".env\",\"content\":\"x\"}", "--json");
        assertEquals(1, w.exit());
        // --json: the call's events, one per line, in the run log's format
        var events = w.out().lines().map(dev.monoagent.common.EventJson::read).toList();
        var finished = (dev.monoagent.common.Event.ToolCallFinished) events.get(events.size() - 1);
        assertEquals("denied_by_policy", finished.outcome().wire());
        var violation = events.stream().filter(e -> e instanceof dev.monoagent.common.Event.ViolationObserved)
                .map(e -> ((dev.monoagent.common.Event.ViolationObserved) e).violation()).findFirst().orElseThrow();
        assertEquals(dev.monoagent.common.Violation.Kind.WRITE, violation.kind());
        assertEquals(finished.callId(), violation.callId());
        assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")));
    }

    /** Each tool's argument names are listed, optional ones marked (the list showed descriptions only). */
    @Test
    void listShowsEachToolsArgumentNames() throws Exception {
        Path ws = ws("{\"allowedTools\":[\"Read\",\"Bash\"]}");
        CliHarness.Result r = CliHarness.run(ws, env(ws), "tools", "list");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\n                args: file_path, offset?, limit?\n"), r.out());
        assertTrue(r.out().contains("args: command, "), r.out());
    }

    /**
     * A failed call's message goes to stderr with its [kind] (it went to stdout, the kind to stderr); a command that
     * failed still "ran" (exit 0, as documented in the help), and --exit-code makes the command's own code the exit.
     */
    @Test
    void errorsGoToStderrAndExitCodeGivesTheCommandsCode() throws Exception {
        Path ws = ws(null);
        CliHarness.Result w = CliHarness.run(ws, env(ws), "tools", "call", "Write",
                "{\"file_path\":\".env\",\"content\":\"x\"}");
        assertEquals(1, w.exit());
        assertEquals("", w.out(), "an error is not output");
        assertTrue(w.err().contains("[denied_by_policy]"), w.err());
        assertTrue(w.err().contains(".env"), w.err());

        Path off = tmp.resolve("off");
        Files.createDirectories(off);
        Files.writeString(off.resolve("mono-agent.config.json"), "{\"runtime\":{\"model\":\"openai:gpt-5\"},"
                + "\"sandbox\":{\"mode\":\"off\"}}");
        assertEquals(0, CliHarness.run(off, env(off), "trust").exit(), "the reviewer's own choice, accepted");
        CliHarness.Result ran = CliHarness.run(off, env(off), "tools", "call", "Bash", "{\"command\":\"exit 3\"}");
        assertEquals(0, ran.exit(), ran.out() + ran.err());
        assertTrue(ran.out().contains("Exit code: 3"), ran.out());
        CliHarness.Result coded = CliHarness.run(off, env(off), "tools", "call", "Bash", "{\"command\":\"exit 3\"}",
                "--exit-code");
        assertEquals(3, coded.exit(), coded.out() + coded.err());
        CliHarness.Result help = CliHarness.run(off, env(off), "tools", "call", "--help");
        assertTrue(help.out().contains("Exit status:") && help.out().contains("--exit-code"), help.out());
    }
}
