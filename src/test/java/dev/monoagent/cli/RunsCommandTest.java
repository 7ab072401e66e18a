package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ToolCallReply;
import dev.monoagent.common.Event;
import dev.monoagent.common.RunStatus;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code runs list|show|report} over run logs made by real tool calls on the real sandbox: one run in the playbook's
 * shape (a Bash command that prints its environment, a write to {@code .env} refused by the engine and by the Write
 * tool, a {@code curl} to an external host blocked, a tool output carrying a {@code <script>} and terminal escapes),
 * a second finished run and a third that never finished. Provider keys are in the process environment and in
 * {@code .env} the whole time; no log and no report may hold them.
 */
class RunsCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OPENAI_KEY = "sk-runs-canary-openai-5e1f0c";
    private static final String ANTHROPIC_KEY = "sk-ant-runs-canary-77a2";
    private static final String DOTENV_KEY = "sk-dotenv-runs-canary-9b3d";
    /** A secret a repository could hold, printed by a tool: in the record, masked in reports. */
    private static final String PLANTED = "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345";
    private static final String XSS = "<script>alert(\"pwned\")</script>";

    @TempDir
    static Path tmp;
    static Path ws;
    static Map<String, String> env;

    @BeforeAll
    static void realRuns() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"),
                "{\"runtime\":{\"model\":\"openai:gpt-5\"},\"sandbox\":{\"network\":{\"mode\":\"localhost\"}}}");
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=" + DOTENV_KEY + "\n");
        Files.writeString(ws.resolve("README.md"), "# demo\n");
        HostEnv shared = TestEngine.env();
        env = new HashMap<>();
        env.put("PATH", shared.path());
        env.put("MONO_AGENT_CACHE_DIR", shared.cacheRoot().toString());
        env.put("OPENAI_API_KEY", OPENAI_KEY);
        env.put("ANTHROPIC_API_KEY", ANTHROPIC_KEY);
        Map<String, String> hostVars = new HashMap<>(shared.hostEnv());
        hostVars.putAll(env);
        HostEnv host = new HostEnv(shared.cacheRoot(), shared.home(), shared.path(), shared.tmpRoot(), hostVars,
                List.of());
        try (AgentService s = AgentService.of(dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, env)),
                host)) {
            s.startRun("r1");
            s.events().accept(new Event.UserMessage(Instant.now(), "r1", "Inspect the repo <b>now</b>"));
            call(s, "r1", "c-env-dump", "Bash", "{\"command\":\"ls -a; env; echo " + PLANTED + "\"}");
            call(s, "r1", "c-dotenv", "Bash", "{\"command\":\"echo x >> .env\"}");
            call(s, "r1", "c-write-env", "Write", "{\"file_path\":\".env\",\"content\":\"pwned\"}");
            ToolCallReply curl = call(s, "r1", "c-curl", "Bash",
                    "{\"command\":\"curl -sS -m 10 -o /dev/null -w '%{http_code}' http://example.com/\"}");
            assertFalse(curl.text().startsWith("200"), curl.text());
            String xss = "printf '%s\\n' '" + XSS + "' '```'; printf '\\033]0;retitled\\007\\033[31mred\\n'";
            call(s, "r1", "c-xss", "Bash", JSON.writeValueAsString(Map.of("command", xss)));
            s.events().accept(new Event.AssistantDelta(Instant.now(), "r1", "The repo has a README. "));
            s.events().accept(new Event.AssistantDelta(Instant.now(), "r1", "</pre><img src=x onerror=alert(1)>"));
            s.finishRun("r1", RunStatus.COMPLETED);
            Thread.sleep(20);
            s.startRun("r2");
            call(s, "r2", "c-read", "Read", "{\"file_path\":\"README.md\"}");
            call(s, "r2", "c-repl", "NodeRepl", "{\"code\":\"'repl-' + (40 + 2)\"}");
            s.finishRun("r2", RunStatus.FAILED);
            Thread.sleep(20);
            s.startRun("r3");
            call(s, "r3", "c-glob", "Glob", "{\"pattern\":\"*.md\"}");
            // r3 never finishes: the process "crashed"
        }
        assertEquals("OPENAI_API_KEY=" + DOTENV_KEY + "\n", Files.readString(ws.resolve(".env")));
    }

    private static ToolCallReply call(AgentService s, String run, String id, String tool, String args) {
        ToolCallReply r = s.callTool(tool, args, run, id);
        assertNotEquals(dev.monoagent.common.ToolOutcome.SANDBOX_PREPARE_FAILED, r.outcome(),
                () -> r.text() + "\n" + String.join("\n", s.sandboxStatus().lines()));
        return r;
    }

    private static CliHarness.Result cli(String... args) {
        return CliHarness.run(ws, env, args);
    }

    @Test
    void listIsNewestFirstWithCountsStatusAndDuration() throws Exception {
        CliHarness.Result r = cli("runs", "list", "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode arr = JSON.readTree(r.out());
        List<String> ids = new ArrayList<>();
        arr.forEach(n -> ids.add(n.path("runId").asText()));
        assertEquals(List.of("r3", "r2", "r1"), ids, r.out());
        JsonNode r1 = arr.get(2);
        assertEquals("completed", r1.path("status").asText());
        assertEquals(5, r1.path("toolCalls").asInt(), r1.toString());
        assertTrue(r1.path("violations").asInt() >= 3, "env write (engine), Write refusal, curl: " + r1);
        assertTrue(r1.path("durationMs").asLong() > 0, r1.toString());
        assertTrue(r1.path("failureKind").isNull() && r1.path("model").isNull(), r1.toString());
        assertEquals("failed", arr.get(1).path("status").asText());
        assertEquals("incomplete", arr.get(0).path("status").asText());
        assertEquals(1, arr.get(0).path("toolCalls").asInt());

        CliHarness.Result human = cli("runs", "list");
        assertEquals(0, human.exit(), human.err());
        List<String> lines = human.out().lines().toList();
        assertTrue(lines.get(0).startsWith("RUN"), human.out());
        assertTrue(lines.get(1).startsWith("r3 ") && lines.get(3).startsWith("r1 "), human.out());
        assertTrue(lines.get(3).contains("completed"), human.out());
    }

    @Test
    void showPrintsEveryEventWithViolationsAttributedToTheirCalls() throws Exception {
        CliHarness.Result r = cli("runs", "show", "r1", "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode o = JSON.readTree(r.out());
        assertEquals("r1", o.path("runId").asText());
        assertEquals(0, o.path("problems").size());
        JsonNode events = o.path("events");
        assertEquals("RunHeader", events.get(0).path("type").asText());
        List<String> violationCalls = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        for (JsonNode e : events) {
            if (e.path("type").asText().equals("ViolationObserved")) {
                violationCalls.add(e.path("violation").path("callId").asText());
                kinds.add(e.path("violation").path("kind").asText());
            }
        }
        assertTrue(violationCalls.contains("c-dotenv") && violationCalls.contains("c-curl")
                && violationCalls.contains("c-write-env"), violationCalls.toString());
        assertTrue(kinds.contains("network") && kinds.contains("write"), kinds.toString());
        assertEquals("RunFinished", events.get(events.size() - 1).path("type").asText());

        CliHarness.Result human = cli("runs", "show", "r1");
        assertEquals(0, human.exit(), human.err());
        assertTrue(human.out().contains("c-curl violation: observed network"), human.out());
        assertTrue(human.out().contains("c-dotenv Bash finished"), human.out());
        assertTrue(human.out().contains("user: Inspect the repo"), human.out());
        // tool output printed to a terminal cannot carry escape sequences
        assertFalse(human.out().contains("\u001b"), "raw ESC in show output");
        assertTrue(human.out().contains("\\x1b]0;retitled"), human.out());
    }

    @Test
    void showPrintsTheResultOfACallThatStreamsNoOutputAsABashOutputIsShown() {
        CliHarness.Result human = cli("runs", "show", "r2");
        assertEquals(0, human.exit(), human.err());
        assertTrue(human.out().lines().anyMatch(l -> l.contains("c-repl output: ") && l.contains("repl-42")),
                human.out());
        assertTrue(human.out().lines().anyMatch(l -> l.contains("c-read output: ") && l.contains("# demo")),
                human.out());
        // a streamed call's output is not shown twice
        CliHarness.Result r1 = cli("runs", "show", "r1");
        assertTrue(r1.out().lines().anyMatch(l -> l.contains("c-curl output: ")), r1.out());
        assertTrue(r1.out().lines().noneMatch(l -> l.contains("c-curl output: ") && l.contains("Exit code")),
                r1.out());
    }

    @Test
    void markdownReportHoldsPromptAnswerPolicyEngineCheckCallsAndViolations() throws Exception {
        CliHarness.Result r = cli("runs", "report", "r1");
        assertEquals(0, r.exit(), r.err());
        String md = r.out();
        assertTrue(md.startsWith("# mono-agent run report: r1"), md.substring(0, 80));
        assertTrue(md.contains("Inspect the repo \\<b\\>now\\</b\\>") || md.contains("Inspect the repo <b>now</b>"),
                "prompt");
        assertTrue(md.contains("The repo has a README."), "answer");
        assertTrue(md.contains("**workspace**: " + ws), "policy workspace");
        assertTrue(md.contains("**network**: localhost"), "policy network");
        assertTrue(md.contains("**Engine version**: 0.0.78") && md.contains("**Engine source**: managed"), "engine");
        // r1 began before this service proved the engine: its header holds the last proof on disk (if an earlier
        // one exists) and the proof made during the run is logged into it
        assertTrue(Pattern.compile("\\*\\*Last self-check\\*\\*: (passed at \\d{4}|not yet run when the run began)")
                .matcher(md).find(), md);
        assertTrue(Pattern.compile("\\| passed \\| \\d+ \\| none \\|").matcher(md).find(),
                () -> "self-check:\n" + md);
        String r2 = cli("runs", "report", "r2").out();
        assertTrue(Pattern.compile("\\*\\*Last self-check\\*\\*: passed at \\d{4}").matcher(r2).find(), r2);
        assertTrue(r2.contains("**Status**: failed"), r2);
        for (String id : List.of("c-env-dump", "c-dotenv", "c-write-env", "c-curl", "c-xss")) {
            assertTrue(Pattern.compile("\\| \\d \\| " + Pattern.quote(id) + " \\| \\w+ \\| [^|]+ \\| \\d+ ms \\| \\d+ \\|")
                    .matcher(md).find(), "tool call row for " + id + ":\n" + md);
        }
        assertTrue(Pattern.compile("\\| observed \\| network \\| c-curl \\| Bash \\|").matcher(md).find(),
                "network violation row with tier and callId");
        assertTrue(Pattern.compile("\\| \\w+ \\| write \\| c-dotenv \\| Bash \\|").matcher(md).find(),
                "engine write violation row");
        assertTrue(Pattern.compile("\\| \\w+ \\| write \\| c-write-env \\| Write \\|").matcher(md).find(),
                "Write tool refusal row");
        // the tool output's ``` cannot close the code block it sits in
        assertTrue(md.contains("````text\n"), "fence longer than the output's backtick run");
        assertFalse(md.contains("\u001b"), "raw ESC in the Markdown report");
    }

    @Test
    void htmlReportIsSelfContainedAndAScriptInToolOutputIsInert() throws Exception {
        Path out = tmp.resolve("reports/r1.html");
        CliHarness.Result r = cli("runs", "report", "r1", "--format", "html", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("written to " + out), r.out());
        String html = Files.readString(out);
        assertTrue(html.startsWith("<!DOCTYPE html>"), html.substring(0, 40));
        assertTrue(html.contains("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;"), "escaped tool output");
        assertTrue(html.contains("&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;"), "escaped answer");
        assertFalse(Pattern.compile("(?i)<script").matcher(html).find(), "a live script element");
        assertFalse(Pattern.compile("(?i)<[a-z][^>]*\\s(on\\w+|src|href)\\s*=").matcher(html).find(),
                "an element with an event handler or a resource reference");
        assertFalse(Pattern.compile("(?i)<(img|link|iframe|object|embed|base|form)\\b").matcher(html).find(),
                "an element that loads something");
        assertTrue(html.contains("Content-Security-Policy\" content=\"default-src 'none'"), "CSP");
        assertTrue(html.contains("<style>"), "inline CSS");
        assertTrue(html.contains("<td>c-curl</td>") && html.contains("<td>observed</td><td>network</td>"), "violation");
        assertFalse(html.contains("\u001b"), "raw ESC in the HTML report");
    }

    @Test
    void noCredentialReachesALogOrAReport() throws Exception {
        List<String> records = new ArrayList<>();
        try (Stream<Path> logs = Files.walk(ws.resolve(".mono-agent/runs"))) {
            for (Path p : logs.filter(Files::isRegularFile).toList()) {
                records.add(Files.readString(p, StandardCharsets.UTF_8));
            }
        }
        List<String> reports = new ArrayList<>();
        for (String id : List.of("r1", "r2", "r3")) {
            reports.add(cli("runs", "report", id).out());
            reports.add(cli("runs", "report", id, "--format", "html").out());
            records.add(cli("runs", "show", id, "--json").out());
        }
        String record = String.join("\n", records);
        String report = String.join("\n", reports);
        assertTrue(record.contains("c-env-dump") && report.contains("c-env-dump"), "the env dump call is recorded");
        assertTrue(record.contains("PATH=") && report.contains("PATH="), "the sandboxed env was printed and recorded");
        // provider credentials never reach the sandbox, so never a record: by construction, not by masking
        for (String secret : List.of(OPENAI_KEY, ANTHROPIC_KEY, DOTENV_KEY)) {
            assertFalse(record.contains(secret), "a provider credential reached a run record: " + secret);
            assertFalse(report.contains(secret), "a provider credential reached a report: " + secret);
        }
        // secret-shaped run content (a token a repo holds, srt's per-session proxy credentials in the sandbox's
        // env) is kept in the record and masked in the reports a reviewer shares
        java.util.regex.Matcher proxy = Pattern.compile("://(srt\\.[^:@\\s]+):([^@\\s]+)@").matcher(record);
        assertTrue(proxy.find(), "the sandbox env shows srt's proxy credentials");
        assertTrue(record.contains(PLANTED.substring(13)), "the record keeps what the tool printed");
        assertFalse(report.contains(proxy.group(2)), "proxy password in a report");
        assertFalse(report.contains(PLANTED.substring(13)), "planted token in a report");
        assertTrue(report.contains("redacted: "), "masked spans are marked");
    }

    @Test
    void unknownIdIsAClearErrorNamingIt() {
        for (String sub : List.of("show", "report")) {
            CliHarness.Result r = cli("runs", sub, "no-such-run");
            assertEquals(1, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("No run 'no-such-run'") && r.err().contains(".mono-agent"), r.err());
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        }
        CliHarness.Result dots = cli("runs", "show", "..");
        assertEquals(1, dots.exit(), dots.err());
        CliHarness.Result fmt = cli("runs", "report", "r1", "--format", "pdf");
        assertEquals(2, fmt.exit(), fmt.err());
        assertTrue(fmt.err().contains("--format must be md or html"), fmt.err());
    }

    @Test
    void aTornOrCorruptOrNewerLogIsReportedNotFatal() throws Exception {
        Path src = ws.resolve(".mono-agent/runs/r1/events.jsonl");
        Path dir = Files.createDirectories(tmp.resolve("ws2/.mono-agent/runs/r9"));
        List<String> lines = new ArrayList<>(Files.readAllLines(src).stream()
                .map(l -> l.replace("\"runId\":\"r1\"", "\"runId\":\"r9\"")).toList());
        lines.add(3, "this is not json {{{");
        lines.add(5, "{\"type\":\"ToolCallFinished\",\"time\":\"yesterday\",\"runId\":\"r9\"}");
        lines.add(lines.size() - 1, "{\"type\":\"ModelRequestFinished\",\"time\":\"" + Instant.now()
                + "\",\"runId\":\"r9\",\"model\":\"gpt-x\",\"provider\":\"openai\",\"usage\":{\"input\":12}}");
        lines.add("{\"type\":\"ToolCallStarted\",\"time\":\"2026-");
        Files.writeString(dir.resolve("events.jsonl"), String.join("\n", lines) + "\n");
        Path ws2 = tmp.resolve("ws2");
        dev.monoagent.common.TestSeals.seal(ws2, dir.resolve("events.jsonl"), env);

        CliHarness.Result show = CliHarness.run(ws2, env, "runs", "show", "r9");
        assertEquals(0, show.exit(), show.err());
        assertTrue(show.err().contains("line 4: not JSON"), show.err());
        assertTrue(show.err().contains("line 6: ToolCallFinished with unreadable fields"), show.err());
        assertTrue(show.err().contains("line " + lines.size() + ": not JSON"), show.err());
        assertTrue(show.out().contains("ModelRequestFinished (unknown event)")
                && show.out().contains("\"model\":\"gpt-x\""), show.out());
        assertTrue(show.out().contains("c-curl violation:"), "the rest still counts: " + show.out());

        CliHarness.Result list = CliHarness.run(ws2, env, "runs", "list", "--json");
        JsonNode row = JSON.readTree(list.out()).get(0);
        assertEquals("r9", row.path("runId").asText());
        assertEquals(3, row.path("problems").asInt());
        assertEquals("gpt-x", row.path("model").asText(), "a newer writer's model field is picked up");

        CliHarness.Result md = CliHarness.run(ws2, env, "runs", "report", "r9");
        assertEquals(0, md.exit(), md.err());
        assertTrue(md.out().contains("## Log problems (3)"), md.out());
        assertTrue(md.out().contains("ModelRequestFinished (unknown to this build)"), md.out());
        assertTrue(md.out().contains("**Model**: gpt-x (openai)"), md.out());
    }

    @Test
    void showReadsTheAgentLoopsTurnsOnceEach(@TempDir Path other) throws Exception {
        Path dir = Files.createDirectories(other.resolve(".mono-agent/runs/a1"));
        String t = "\"time\":\"2026-11-30T10:00:0";
        Files.writeString(dir.resolve("events.jsonl"), String.join("\n",
                "{\"type\":\"RunStarted\"," + t + "0Z\",\"runId\":\"a1\",\"workspace\":\"/w\"}",
                "{\"type\":\"ReasoningDelta\"," + t + "0Z\",\"runId\":\"a1\",\"text\":\"List the \"}",
                "{\"type\":\"ReasoningDelta\"," + t + "0Z\",\"runId\":\"a1\",\"text\":\"files.\"}",
                "{\"type\":\"AssistantDelta\"," + t + "1Z\",\"runId\":\"a1\",\"text\":\"README.md \"}",
                "{\"type\":\"AssistantDelta\"," + t + "1Z\",\"runId\":\"a1\",\"text\":\"is there.\"}",
                "{\"type\":\"ModelCallFinished\"," + t + "1Z\",\"runId\":\"a1\",\"turn\":1,\"provider\":\"openai\","
                        + "\"model\":\"gpt-5\",\"outcome\":\"stop\",\"inputTokens\":100,\"outputTokens\":20,"
                        + "\"retries\":1,\"durationMs\":300}",
                "{\"type\":\"AssistantMessage\"," + t + "1Z\",\"runId\":\"a1\",\"text\":\"README.md is there.\","
                        + "\"finalAnswer\":true}",
                "{\"type\":\"RunFinished\"," + t + "2Z\",\"runId\":\"a1\",\"status\":\"completed\"}") + "\n");
        dev.monoagent.common.TestSeals.seal(other, dir.resolve("events.jsonl"), env);
        CliHarness.Result r = CliHarness.run(other, env, "runs", "show", "a1");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("model turn 1 openai:gpt-5 stop, tokens 100 in / 20 out, 1 retries, 300 ms"),
                r.out());
        assertTrue(r.out().contains("answer: README.md is there."), r.out());
        assertFalse(r.out().contains("assistant: "), "streamed pieces are not repeated: " + r.out());
        assertTrue(r.out().contains("model gpt-5"), r.out());
        assertEquals(1, r.out().lines().filter(l -> l.contains("reasoning: ")).count(), r.out());
        assertTrue(r.out().contains("reasoning: List the files."), "its pieces joined on one line: " + r.out());
    }

    @Test
    void noRunsYetIsAnEmptyListNotAnError(@TempDir Path empty) throws Exception {
        CliHarness.Result r = CliHarness.run(empty, env, "runs", "list");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("No runs in "), r.out());
        CliHarness.Result j = CliHarness.run(empty, env, "runs", "list", "--json");
        assertEquals("[]", j.out().strip());
    }
}
