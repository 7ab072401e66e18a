package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.cli.CliHarness;
import dev.monoagent.common.Event;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.Seal;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.Violation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Run logs that arrived with the repository are never listed as runs of this machine: a committed
 * {@code .mono-agent/runs/<id>/} (hand-written, or written by mono-agent on the author's machine) shows in
 * {@code runs list} apart, as not recorded here, never as a completed run with 0 violations; {@code runs show} and
 * {@code runs report} refuse it; the inspector's violation history leaves it out. A run this machine's product wrote
 * ({@link RunLogs}, the real writer) is sealed and listed normally; one byte changed in it afterwards marks it.
 */
class ForeignRunsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private static final String PLANTED_LOG = String.join("\n",
            "{\"type\":\"RunStarted\",\"time\":\"2026-11-30T10:00:00Z\",\"runId\":\"run-planted\","
                    + "\"workspace\":\"/w\"}",
            "{\"type\":\"RunFinished\",\"time\":\"2026-11-30T10:00:05Z\",\"runId\":\"run-planted\","
                    + "\"status\":\"completed\"}") + "\n";

    private static Event.ViolationObserved violation(String runId, String callId) {
        return new Event.ViolationObserved(Instant.now(), new Violation(Instant.now(), Violation.Tier.OBSERVED,
                Violation.Kind.WRITE, runId, callId, "Bash", "echo x >> .env", "/w/.env", "write denied"));
    }

    /** A run as the product records it, through the real run-log writer with the key {@code cfg} locates. */
    private static void realRun(Path ws, String runId, Path cfg, boolean finish) {
        RunLogs logs = new RunLogs(ws, id -> new Event.RunHeader(Instant.now(), id, Map.of("mode", "native"), null,
                null), RunRecords.userSeal(Map.of("MONO_AGENT_CONFIG_DIR", cfg.toString())));
        logs.accept(new Event.RunStarted(Instant.now(), runId, ws.toString()));
        logs.accept(new Event.ToolCallStarted(Instant.now(), runId, "c1", "Bash", "{\"command\":\"echo x >> .env\"}"));
        logs.accept(violation(runId, "c1"));
        logs.accept(new Event.ToolCallFinished(Instant.now(), runId, "c1", "Bash", ToolOutcome.OK, "",
                JSON.createObjectNode().put("exitCode", 0), 5));
        if (finish) {
            logs.accept(new Event.RunFinished(Instant.now(), runId, RunStatus.COMPLETED));
            logs.close();
        } else {
            // still open (or the process died): a last event after the last seal
            logs.accept(new Event.ToolCallStarted(Instant.now(), runId, "c2", "Bash", "{\"command\":\"ls\"}"));
        }
    }

    private static JsonNode row(JsonNode list, String runId) {
        for (JsonNode r : list) {
            if (r.path("runId").asText().equals(runId)) {
                return r;
            }
        }
        throw new AssertionError("no " + runId + " in " + list);
    }

    @Test
    void plantedRunsAreListedApartAndNeverAsCleanRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path cfg = tmp.resolve("reviewer-cfg");
        Map<String, String> env = Map.of("MONO_AGENT_CONFIG_DIR", cfg.toString());
        // hand-written, no seal
        Files.writeString(Files.createDirectories(ws.resolve(".mono-agent/runs/run-planted"))
                .resolve("events.jsonl"), PLANTED_LOG);
        // written by mono-agent on the author's machine (the author's key), then committed
        realRun(ws, "run-author", tmp.resolve("author-cfg"), true);
        // this machine's own runs: one finished, one still open
        realRun(ws, "run-mine", cfg, true);
        realRun(ws, "run-open", cfg, false);
        assertTrue(Files.isRegularFile(Seal.sidecar(RunLogs.file(ws, "run-mine"))), "the product seals its log");

        JsonNode list = JSON.readTree(CliHarness.run(ws, env, "runs", "list", "--json").out());
        for (String foreign : new String[] {"run-planted", "run-author"}) {
            JsonNode r = row(list, foreign);
            assertEquals(RunRecords.NOT_RECORDED, r.path("status").asText(), r.toString());
            assertFalse(r.path("recorded").asBoolean(true), r.toString());
            assertTrue(r.path("violations").isNull(), "no count is claimed: " + r);
        }
        JsonNode mine = row(list, "run-mine");
        assertEquals("completed", mine.path("status").asText());
        assertTrue(mine.path("recorded").asBoolean());
        assertEquals(1, mine.path("violations").asInt());
        assertEquals(0, mine.path("ignoredLines").asInt());
        JsonNode open = row(list, "run-open");
        assertEquals("incomplete", open.path("status").asText(), open.toString());
        assertEquals(1, open.path("ignoredLines").asInt(), "the event after the last seal is left out: " + open);
        assertEquals(1, open.path("violations").asInt(), "the sealed violation still counts");

        CliHarness.Result text = CliHarness.run(ws, env, "runs", "list");
        String table = text.out().substring(0, text.out().indexOf("Not recorded here (ignored): 2 run log(s)"));
        assertTrue(table.contains("run-mine") && table.contains("run-open"), text.out());
        assertFalse(table.contains("run-planted") || table.contains("run-author"), text.out());
        String apart = text.out().substring(table.length());
        assertTrue(apart.contains("run-planted  not sealed"), apart);
        assertTrue(apart.contains("run-author  its seal does not match"), apart);

        CliHarness.Result show = CliHarness.run(ws, env, "runs", "show", "run-planted");
        assertNotEquals(0, show.exit(), show.out());
        assertTrue(show.err().contains("Run 'run-planted' was not recorded on this machine"), show.err());
        CliHarness.Result report = CliHarness.run(ws, env, "runs", "report", "run-author");
        assertNotEquals(0, report.exit(), report.out());
        assertFalse(report.out().contains("completed"), report.out());
        CliHarness.Result own = CliHarness.run(ws, env, "runs", "report", "run-open");
        assertEquals(0, own.exit(), own.err());
        assertTrue(own.out().contains("1 line(s) not sealed on this machine are ignored"), own.out());

        // the inspector's history: only this machine's violations
        assertEquals(2, RunLogs.violations(ws, RunRecords.userSeal(env)).size());
    }

    @Test
    void oneChangedByteMarksARealRunLog() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path cfg = tmp.resolve("reviewer-cfg");
        Map<String, String> env = Map.of("MONO_AGENT_CONFIG_DIR", cfg.toString());
        realRun(ws, "run-mine", cfg, true);
        assertEquals("completed", RunRecords.list(ws, env).get(0).status());
        Path log = RunLogs.file(ws, "run-mine");
        String s = Files.readString(log);
        // one byte of the recorded command changed
        Files.writeString(log, s.replaceFirst("echo x", "echo y"), StandardCharsets.UTF_8);
        assertNotEquals(s, Files.readString(log));
        RunRecords.Summary r = RunRecords.list(ws, env).get(0);
        assertEquals(RunRecords.NOT_RECORDED, r.status());
        assertTrue(r.seal().startsWith("its seal does not match"), r.seal());
        assertTrue(RunLogs.violations(ws, RunRecords.userSeal(env)).isEmpty());
        CliHarness.Result show = CliHarness.run(ws, env, "runs", "show", "run-mine");
        assertNotEquals(0, show.exit());
        assertTrue(show.err().contains("was not recorded on this machine"), show.err());
    }
}
