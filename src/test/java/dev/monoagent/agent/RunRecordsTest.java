package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading run logs written by the agent loop (its events as JSON lines: the run's model, model-request metadata with
 * token usage, the final answer, the failure kind), whether or not this build knows those event types, and logs
 * that are not clean UTF-8 or JSON.
 */
class RunRecordsTest {
    @TempDir
    Path ws;

    private void log(String runId, String... lines) throws Exception {
        Path dir = Files.createDirectories(ws.resolve(".mono-agent/runs").resolve(runId));
        Files.writeString(dir.resolve("events.jsonl"), String.join("\n", lines) + "\n");
        dev.monoagent.common.TestSeals.seal(ws, dir.resolve("events.jsonl"));
    }

    @Test
    void agentLoopEventsGiveModelTokensAnswerAndFailureKind() throws Exception {
        log("a1",
                "{\"type\":\"RunStarted\",\"time\":\"2026-11-30T10:00:00Z\",\"runId\":\"a1\",\"workspace\":\"/w\"}",
                "{\"type\":\"AgentRunStarted\",\"time\":\"2026-11-30T10:00:00.100Z\",\"runId\":\"a1\","
                        + "\"conversationId\":\"c1\",\"continued\":false,\"provider\":\"openai\","
                        + "\"model\":\"gpt-5\",\"maxTurns\":8}",
                "{\"type\":\"UserMessage\",\"time\":\"2026-11-30T10:00:00.200Z\",\"runId\":\"a1\",\"text\":\"ls\"}",
                "{\"type\":\"AssistantMessage\",\"time\":\"2026-11-30T10:00:01Z\",\"runId\":\"a1\","
                        + "\"text\":\"calling Bash\",\"finalAnswer\":false}",
                "{\"type\":\"ModelCallFinished\",\"time\":\"2026-11-30T10:00:01Z\",\"runId\":\"a1\",\"turn\":1,"
                        + "\"provider\":\"openai\",\"model\":\"gpt-5\",\"outcome\":\"tool_use\",\"inputTokens\":100,"
                        + "\"cachedInputTokens\":40,\"outputTokens\":20,\"reasoningTokens\":5,\"retries\":1,"
                        + "\"firstEventMs\":90,\"durationMs\":300}",
                "{\"type\":\"AssistantMessage\",\"time\":\"2026-11-30T10:00:02Z\",\"runId\":\"a1\","
                        + "\"text\":\"README.md is there.\",\"finalAnswer\":true}",
                "{\"type\":\"ModelCallFinished\",\"time\":\"2026-11-30T10:00:02Z\",\"runId\":\"a1\",\"turn\":2,"
                        + "\"provider\":\"openai\",\"model\":\"gpt-5\",\"outcome\":\"stop\",\"inputTokens\":150,"
                        + "\"cachedInputTokens\":100,\"outputTokens\":10,\"reasoningTokens\":0,\"retries\":0,"
                        + "\"firstEventMs\":80,\"durationMs\":200}",
                "{\"type\":\"NetworkAllowed\",\"time\":\"2026-11-30T10:00:02.100Z\",\"runId\":\"a1\","
                        + "\"callId\":\"c1\",\"tool\":\"Bash\",\"command\":\"curl 127.0.0.1:5432\","
                        + "\"host\":\"127.0.0.1\",\"port\":5432,\"listener\":\"postgres (pid 77)\"}",
                "{\"type\":\"RunFinished\",\"time\":\"2026-11-30T10:00:02.500Z\",\"runId\":\"a1\","
                        + "\"status\":\"completed\"}");
        RunRecords.Run run = RunRecords.read(ws, "a1");
        assertEquals("gpt-5", run.model());
        assertEquals("openai", run.provider());
        assertEquals("README.md is there.", run.answer(), "the final message, not the tool-calling turn's");
        assertArrayEquals(new long[] {250, 140, 30, 5}, run.tokens());
        assertEquals(2500L, run.durationMs());
        assertNull(run.failureKind());
        assertEquals(List.of("ls"), run.prompts());
        String md = RunReport.render(run, RunReport.Format.MD);
        assertTrue(md.contains("**Model requests**: 2 (tokens: 250 in, 140 cached, 30 out, 5 reasoning)"), md);
        assertTrue(md.contains("| 1 | openai | gpt-5 | tool\\_use | 100 / 40 | 20 / 5 | 1 | 90 ms | 300 ms |"), md);
        assertFalse(md.contains("ModelCallFinished"), "model requests have their own table, not 'other events'");
        assertTrue(md.contains("Allowed traffic (1)") && md.contains("127.0.0.1:5432")
                && md.contains("postgres (pid 77)") && md.contains("Violations (0)"), md);

        log("a2",
                "{\"type\":\"RunStarted\",\"time\":\"2026-11-30T11:00:00Z\",\"runId\":\"a2\",\"workspace\":\"/w\"}",
                "{\"type\":\"AssistantDelta\",\"time\":\"2026-11-30T11:00:01Z\",\"runId\":\"a2\",\"text\":\"part\"}",
                "{\"type\":\"RunFailed\",\"time\":\"2026-11-30T11:00:02Z\",\"runId\":\"a2\","
                        + "\"kind\":\"provider_unavailable\",\"message\":\"503 after 3 retries\"}",
                "{\"type\":\"RunFinished\",\"time\":\"2026-11-30T11:00:02Z\",\"runId\":\"a2\",\"status\":\"failed\"}");
        RunRecords.Run failed = RunRecords.read(ws, "a2");
        assertEquals("provider_unavailable", failed.failureKind());
        assertEquals("failed", failed.status());
        assertEquals("part", failed.answer(), "an older writer's streamed text still counts");
        String html = RunReport.render(failed, RunReport.Format.HTML);
        assertTrue(html.contains("Failure provider_unavailable: 503 after 3 retries"), html);

        List<RunRecords.Summary> list = RunRecords.list(ws);
        assertEquals(List.of("a2", "a1"), list.stream().map(RunRecords.Summary::runId).toList());
        assertEquals("provider_unavailable", list.get(0).failureKind());
        assertEquals("gpt-5", list.get(1).model());
    }

    @Test
    void htmlTablesWrapPathsAtSeparatorsAndNeverBreakWordsMidWord() throws Exception {
        String path = "/home/reviewer/projects/very-long-repository-name/config/secrets/production.env";
        log("w1",
                "{\"type\":\"RunStarted\",\"time\":\"2026-11-30T10:00:00Z\",\"runId\":\"w1\",\"workspace\":\"/w\"}",
                dev.monoagent.common.EventJson.line(new dev.monoagent.common.Event.ViolationObserved(
                        java.time.Instant.parse("2026-11-30T10:00:01Z"), new dev.monoagent.common.Violation(
                        java.time.Instant.parse("2026-11-30T10:00:01Z"), dev.monoagent.common.Violation.Tier.OBSERVED,
                        dev.monoagent.common.Violation.Kind.WRITE, "w1", "c1", "Bash", "echo x >> " + path, path,
                        "write refused by the sandbox"))),
                "{\"type\":\"RunFinished\",\"time\":\"2026-11-30T10:00:02Z\",\"runId\":\"w1\","
                        + "\"status\":\"completed\"}");
        String html = RunReport.render(RunRecords.read(ws, "w1"), RunReport.Format.HTML);
        String css = html.substring(html.indexOf("<style>"), html.indexOf("</style>"));
        java.util.regex.Matcher cell = java.util.regex.Pattern.compile("th,td\\{([^}]*)}").matcher(css);
        assertTrue(cell.find(), css);
        assertFalse(cell.group(1).contains("anywhere") || cell.group(1).contains("break-all"), cell.group(1));
        assertFalse(css.contains("break-all"), css);
        // the path wraps at its separators; the words of the reason and the tier have no break inside them
        assertTrue(html.contains("<td>/<wbr>home/<wbr>reviewer/<wbr>projects/<wbr>very-long-repository-name/<wbr>"),
                html);
        assertTrue(html.contains("<td>observed</td>") && html.contains("<td>write refused by the sandbox</td>"), html);
    }

    @Test
    void invalidUtf8AndNonObjectLinesAreProblemsNotFailures() throws Exception {
        Path dir = Files.createDirectories(ws.resolve(".mono-agent/runs/b1"));
        byte[] good = ("{\"type\":\"RunStarted\",\"time\":\"2026-11-30T10:00:00Z\",\"runId\":\"b1\","
                + "\"workspace\":\"/w\"}\n").getBytes(StandardCharsets.UTF_8);
        byte[] bad = {(byte) 0xff, (byte) 0xfe, '{', '\n'};
        byte[] arr = "[1,2]\n\"text\"\n".getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve("events.jsonl"), concat(good, bad, arr));
        dev.monoagent.common.TestSeals.seal(ws, dir.resolve("events.jsonl"));
        RunRecords.Run run = RunRecords.read(ws, "b1");
        assertEquals(1, run.lines().size());
        assertEquals(3, run.problems().size(), run.problems().toString());
        assertEquals(List.of(2, 3, 4), run.problems().stream().map(RunRecords.Problem::line).toList());
        assertEquals("incomplete", run.status());
    }

    @Test
    void idsThatLeaveTheRunsFolderAreNotFound() {
        for (String id : List.of("..", ".", "", " ")) {
            RunRecords.NotFound e = assertThrows(RunRecords.NotFound.class, () -> RunRecords.read(ws, id));
            assertTrue(e.getMessage().contains("No run '" + id + "'"), e.getMessage());
        }
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
