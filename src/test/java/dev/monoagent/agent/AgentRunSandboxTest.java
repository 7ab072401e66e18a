package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.Violation;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Scripts;
import dev.monoagent.model.Scripts.Call;
import dev.monoagent.model.Scripts.Turn;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Playbook step 7 as one conversation, end to end: a scripted model on a local fake Responses server (configured
 * through {@code providers.openai.baseUrl}, the way README's offline try-out does it) drives the real loop over the
 * real srt sandbox — Read and Grep (in parallel), {@code ls} in Bash, {@code const n = 40} then {@code n + 2} in
 * NodeRepl (42: the REPL keeps its state for the run), {@code curl} to an external host (blocked, the violation
 * attributed to that call), a Write to {@code .env} (refused) — and the final answer. The run log must hold all of
 * it, the model must have seen each result, and the API key must appear nowhere on disk. The same conversation with
 * the engine unavailable completes with {@code sandbox_prepare_failed} results and nothing run on the host.
 */
class AgentRunSandboxTest {
    static final String KEY = "sk-test-CANARY-4f1d9e";

    @TempDir
    Path tmp;

    static List<Turn> stepSeven() {
        return List.of(
                Turn.calls(new Call("call_read", "Read", "{\"file_path\":\"README.md\"}"),
                        new Call("call_grep", "Grep", "{\"pattern\":\"reviewer\"}")),
                Turn.calls(new Call("call_ls", "Bash", "{\"command\":\"ls > listing.txt && cat listing.txt\"}")),
                Turn.calls(new Call("call_n40", "NodeRepl", "{\"code\":\"const n = 40\"}")),
                Turn.calls(new Call("call_n42", "NodeRepl", "{\"code\":\"n + 2\"}")),
                Turn.calls(new Call("call_curl", "Bash",
                        "{\"command\":\"curl -s -o /dev/null -w '%{http_code}' -m 5 http://example.com/\"}")),
                Turn.calls(new Call("call_env", "Write", "{\"file_path\":\".env\",\"content\":\"PWNED=1\\n\"}")),
                Turn.text("The repo has a README; n + 2 is 42; the network and .env are protected."));
    }

    Path workspace(FakeModelServer fake) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "# demo\nA repo for a security reviewer.\n");
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        Files.writeString(ws.resolve("IDENTITY.md"), "## Role\nYou review code for leaks (IDENTITY-MARK).\n");
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                 "providers": {"openai": {"baseUrl": "%s"}},
                 "sandbox": {"mode": "native", "network": {"mode": "localhost"}, "fallback": "fail-closed"}}
                """.formatted(fake.baseUrl()));
        return ws;
    }

    static LoadedConfig load(Path ws) throws Exception {
        return dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, Map.of("OPENAI_API_KEY", KEY)));
    }

    static List<Event> log(Path ws, String runId) throws Exception {
        try (Stream<String> lines = Files.lines(RunLogs.file(ws, runId))) {
            return lines.map(EventJson::read).toList();
        }
    }

    static <T extends Event> List<T> of(List<Event> events, Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static Event.ToolCallFinished finished(List<Event> events, String callId) {
        return of(events, Event.ToolCallFinished.class).stream().filter(f -> f.callId().equals(callId)).findFirst()
                .orElseThrow(() -> new AssertionError("no ToolCallFinished for " + callId));
    }

    /** The tool output the model got back for {@code callId} in request {@code i}. */
    static String outputSeen(FakeModelServer fake, int i, String callId) {
        for (JsonNode item : fake.request(i).json().path("input")) {
            if ("function_call_output".equals(item.path("type").asText())
                    && callId.equals(item.path("call_id").asText())) {
                return item.path("output").asText();
            }
        }
        throw new AssertionError("request " + i + " has no output for " + callId);
    }

    @Test
    void playbookStepSevenOverTheRealSandbox() throws Exception {
        try (FakeModelServer fake = FakeModelServer.start();
             TaskExecutor pool = TaskExecutor.create("loop-test")) {
            stepSeven().forEach(t -> fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, t)));
            Path ws = workspace(fake);
            try (AgentService service = AgentService.of(load(ws), TestEngine.env(), pool)) {
                AgentRun run = service.agent().start(AgentRuns.Request.of("Inspect the repo, run ls, evaluate "
                        + "const n = 40 then n + 2 in NodeRepl, try curl example.com and write .env."));
                RunResult r = run.result().get(240, TimeUnit.SECONDS);
                assertEquals(RunStatus.COMPLETED, r.status(), r.toString());
                assertEquals("The repo has a README; n + 2 is 42; the network and .env are protected.", r.answer());
                assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")), ".env must be untouched");
                assertTrue(Files.exists(ws.resolve("listing.txt")), "ls ran in the sandbox");

                // what the model saw
                assertEquals(7, fake.requests().size());
                JsonNode first = fake.request(0).json();
                assertEquals("gpt-test", first.path("model").asText());
                assertTrue(first.path("instructions").asText().contains("IDENTITY-MARK"), "IDENTITY.md in the prompt");
                List<String> offered = new ArrayList<>();
                first.path("tools").forEach(t -> offered.add(t.path("name").asText()));
                assertTrue(offered.containsAll(List.of("Read", "Bash", "NodeRepl", "MemoryRecall", "MemoryJournal",
                        "Remember")), offered.toString());
                assertTrue(first.path("instructions").asText().contains("network localhost"), first.path("instructions").asText());
                assertTrue(outputSeen(fake, 1, "call_read").contains("A repo for a security reviewer."));
                assertTrue(outputSeen(fake, 1, "call_grep").contains("README.md"), outputSeen(fake, 1, "call_grep"));
                assertTrue(outputSeen(fake, 2, "call_ls").contains("README.md"), outputSeen(fake, 2, "call_ls"));
                assertTrue(outputSeen(fake, 4, "call_n42").contains("42"), outputSeen(fake, 4, "call_n42"));
                assertTrue(outputSeen(fake, 5, "call_curl").contains("403"), outputSeen(fake, 5, "call_curl"));
                assertTrue(outputSeen(fake, 6, "call_env").startsWith("[denied_by_policy]"),
                        outputSeen(fake, 6, "call_env"));
                assertEquals("Bearer " + KEY, fake.request(0).header("authorization"));

                // what the run log holds
                List<Event> log = log(ws, r.runId());
                assertInstanceOf(Event.RunHeader.class, log.get(0));
                assertEquals("Inspect the repo, run ls, evaluate const n = 40 then n + 2 in NodeRepl, try curl "
                        + "example.com and write .env.", of(log, Event.UserMessage.class).get(0).text());
                Event.AgentRunStarted started = of(log, Event.AgentRunStarted.class).get(0);
                assertEquals("openai", started.provider());
                assertEquals(r.conversationId(), started.conversationId());
                List<Event.ModelCallFinished> calls = of(log, Event.ModelCallFinished.class);
                assertEquals(7, calls.size());
                assertEquals("tool_use", calls.get(0).outcome());
                assertEquals("stop", calls.get(6).outcome());
                assertTrue(calls.stream().allMatch(c -> c.inputTokens() == 10 && c.outputTokens() == 5), calls + "");
                for (String id : List.of("call_read", "call_grep", "call_ls", "call_n40", "call_n42", "call_curl")) {
                    assertEquals(ToolOutcome.OK, finished(log, id).outcome(), id + ": " + finished(log, id).text());
                }
                assertTrue(finished(log, "call_n42").text().contains("42"));
                assertEquals(ToolOutcome.DENIED_BY_POLICY, finished(log, "call_env").outcome());
                List<Violation> curl = of(log, Event.ViolationObserved.class).stream()
                        .map(Event.ViolationObserved::violation).filter(v -> "call_curl".equals(v.callId())).toList();
                assertFalse(curl.isEmpty(), "the blocked connection is attributed to the curl call");
                assertTrue(curl.stream().anyMatch(v -> v.kind() == Violation.Kind.NETWORK
                        && String.valueOf(v.target()).contains("example.com")), curl.toString());
                assertTrue(of(log, Event.ViolationObserved.class).stream()
                        .anyMatch(v -> "call_env".equals(v.violation().callId())), "the .env refusal is recorded");
                Event.AssistantMessage answer = of(log, Event.AssistantMessage.class).stream()
                        .filter(Event.AssistantMessage::finalAnswer).findFirst().orElseThrow();
                assertEquals(r.answer(), answer.text());
                assertTrue(of(log, Event.RunFailed.class).isEmpty());
                // the run ends with RunFinished; only a violation the engine's feed reported late may follow it
                // (appended as it is, never dropped, no second header)
                int end = log.size() - 1;
                while (end > 0 && log.get(end) instanceof Event.ViolationObserved) {
                    end--;
                }
                assertEquals(RunStatus.COMPLETED, assertInstanceOf(Event.RunFinished.class, log.get(end),
                        log.subList(Math.max(0, log.size() - 4), log.size()).toString()).status());
                assertEquals(1, of(log, Event.RunHeader.class).size(), "one header per run log");
                assertEquals(1, of(log, Event.MemoryRecalled.class).size(), "memory was consulted before the turn");

                // the conversation is on disk, the credential nowhere under the state dir
                Conversation conv = Conversation.load(ws, r.conversationId());
                assertEquals(List.of(r.runId()), conv.runs());
                assertEquals(16, conv.items().size(), conv.items().toString());
                assertNoCanary(ws.resolve(".mono-agent"));

                // what a reviewer gets from it: runs list and the Markdown/HTML report hold all of it
                StepSevenReport.check(ws, r.runId(), "Inspect the repo, run ls, evaluate const n = 40 then n + 2 in "
                        + "NodeRepl, try curl example.com and write .env.", r.answer(), "gpt-test", 7,
                        List.of("call_read", "call_grep", "call_ls", "call_n40", "call_n42", "call_curl", "call_env"),
                        "call_curl", "call_env", KEY);
            }
        }
    }

    @Test
    void engineUnavailableTheConversationCompletesWithSandboxPrepareFailedAndNothingOnTheHost() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        for (String t : List.of("node", "socat", "rg", "bash", "setsid")) { // no bwrap: the engine cannot start
            Path real = Path.of("/usr/bin").resolve(t);
            if (Files.exists(real)) {
                Files.createSymbolicLink(bin.resolve(t), real.toRealPath());
            }
        }
        HostEnv broken = TestEngine.env().withPath(bin.toString());
        try (FakeModelServer fake = FakeModelServer.start();
             TaskExecutor pool = TaskExecutor.create("loop-test")) {
            stepSeven().forEach(t -> fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, t)));
            Path ws = workspace(fake);
            try (AgentService service = AgentService.of(load(ws), broken, pool)) {
                RunResult r = service.agent().start(AgentRuns.Request.of("Same again.")).result()
                        .get(240, TimeUnit.SECONDS);
                assertEquals(RunStatus.COMPLETED, r.status(), r.toString());
                List<Event> log = log(ws, r.runId());
                for (String id : List.of("call_ls", "call_n40", "call_n42", "call_curl")) {
                    Event.ToolCallFinished f = finished(log, id);
                    assertEquals(ToolOutcome.SANDBOX_PREPARE_FAILED, f.outcome(), id);
                    assertEquals("Error: Sandbox engine is unavailable and policy is fail-closed.", f.text());
                }
                assertTrue(outputSeen(fake, 2, "call_ls").startsWith("[sandbox_prepare_failed] Error: Sandbox "
                        + "engine is unavailable"), outputSeen(fake, 2, "call_ls"));
                assertEquals(ToolOutcome.OK, finished(log, "call_read").outcome(), "file tools keep working");
                assertEquals(ToolOutcome.DENIED_BY_POLICY, finished(log, "call_env").outcome());
                assertFalse(Files.exists(ws.resolve("listing.txt")), "nothing may run on the host");
                assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")));
                assertEquals(7, fake.requests().size());
                assertTrue(fake.request(0).json().path("instructions").asText().contains("effective blocked"),
                        "the session block states the sandbox as it is");
            }
        }
    }

    static void assertNoCanary(Path dir) throws Exception {
        List<Path> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1).contains(KEY)) {
                    hits.add(f);
                }
            }
        }
        assertTrue(hits.isEmpty(), "credential found in " + hits);
        assertNotNull(dir);
    }
}
