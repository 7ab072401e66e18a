package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.memory.MemoryStore;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Item;
import dev.monoagent.model.Reply;
import dev.monoagent.model.Scripts;
import dev.monoagent.model.Scripts.Call;
import dev.monoagent.model.Scripts.Turn;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop's limits and edges against a scripted model on a local fake Responses server: maxTurns, the stop button
 * reaching the HTTP stream and a running sandboxed tool, continuing a conversation, eliding old tool outputs near the
 * context window, provider failures on the run, bad requests naming their field, and the memory hooks.
 */
class AgentLoopTest {
    @TempDir
    Path tmp;
    Path ws;
    FakeModelServer fake;
    TaskExecutor pool;
    AgentService service;
    final List<Event> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        fake = FakeModelServer.start();
        pool = TaskExecutor.create("loop-test");
    }

    @AfterEach
    void tearDown() {
        if (service != null) {
            service.close();
        }
        pool.close();
        fake.close();
    }

    /** A service over {@code extra} config JSON (merged into runtime/providers defaults for the fake). */
    AgentService service(String extraJson, HostEnv env) throws Exception {
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                 "providers": {"openai": {"baseUrl": "%s"}}%s}
                """.formatted(fake.baseUrl(), extraJson));
        service = AgentService.of(dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null,
                Map.of("OPENAI_API_KEY", "sk-test"))), env, pool);
        service.events().subscribe(events::add);
        return service;
    }

    /** File tools only, no engine needed. */
    AgentService readOnly(String extraJson) throws Exception {
        return service(", \"tools\": {\"allowedTools\": [\"Read\", \"Glob\"]}, \"sandbox\": {\"mode\": \"off\"}"
                + extraJson, TestEngine.env());
    }

    <T extends Event> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static Reply turn(Turn t) {
        return Scripts.turn(Scripts.Wire.RESPONSES, t);
    }

    @Test
    void maxTurnsEndsTheRunWithMaxTurnsAndAPairedHistory() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "alpha\n");
        readOnly(", \"agent\": {\"maxTurns\": 2}");
        for (int i = 0; i < 3; i++) {
            fake.enqueue(turn(Turn.calls(new Call("c" + i, "Read", "{\"file_path\":\"a.txt\"}"))));
        }
        RunResult r = service.agent().start(AgentRuns.Request.of("loop forever")).result().get(60, TimeUnit.SECONDS);
        assertEquals(RunStatus.FAILED, r.status());
        assertEquals("max_turns", r.failureKind());
        assertEquals(2, fake.requests().size(), "no third model turn");
        assertEquals("max_turns", of(Event.RunFailed.class).get(0).kind());
        assertEquals(RunStatus.FAILED, of(Event.RunFinished.class).get(0).status());
        List<Item> items = Conversation.load(ws, r.conversationId()).items();
        assertEquals(5, items.size(), items.toString()); // user + 2 × (call + output)
    }

    @Test
    void anUnknownToolNameIsAToolErrorAndTheRunGoesOn() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "alpha\n");
        readOnly("");
        // beside a read-only call (grouping asks whether each name is read-only: an unknown one must not crash it)
        fake.enqueue(turn(Turn.calls(new Call("c0", "Read", "{\"file_path\":\"a.txt\"}"),
                new Call("c1", "NoSuchTool", "{}"))));
        fake.enqueue(turn(Turn.text("done")));
        RunResult r = service.agent().start(AgentRuns.Request.of("try a tool that does not exist")).result()
                .get(60, TimeUnit.SECONDS);
        assertEquals(RunStatus.COMPLETED, r.status(), r.message());
        assertEquals("done", r.answer());
        String seen = AgentRunSandboxTest.outputSeen(fake, 1, "c1");
        assertTrue(seen.toLowerCase(java.util.Locale.ROOT).contains("nosuchtool"), seen);
        assertTrue(AgentRunSandboxTest.outputSeen(fake, 1, "c0").contains("alpha"));
    }

    @Test
    void stopReachesTheModelStreamWithinOneSecond() throws Exception {
        readOnly("");
        fake.enqueue(Reply.sse(Scripts.responses().text("thinking about it").build()).thenHang());
        CountDownLatch streaming = new CountDownLatch(1);
        service.events().subscribe(e -> {
            if (e instanceof Event.AssistantDelta) {
                streaming.countDown();
            }
        });
        AgentRun run = service.agent().start(AgentRuns.Request.of("take your time"));
        assertTrue(streaming.await(60, TimeUnit.SECONDS), "the answer started streaming");
        long t0 = System.nanoTime();
        run.cancel();
        RunResult r = run.result().get(10, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(fake.awaitClientGone(1000), "the HTTP stream was closed");
        assertEquals(RunStatus.CANCELLED, r.status(), r.toString());
        assertEquals("cancelled", r.failureKind());
        assertTrue(ms <= 1000, "cancel took " + ms + " ms");
        assertEquals("cancelled", of(Event.ModelCallFinished.class).get(0).outcome());
        assertEquals(RunStatus.CANCELLED, of(Event.RunFinished.class).get(0).status());
    }

    @Test
    void stopKillsARunningSandboxedToolWithinOneSecond() throws Exception {
        service("", TestEngine.env());
        fake.enqueue(turn(Turn.calls(new Call("c_sleep", "Bash",
                "{\"command\":\"echo started; sleep 30; touch after-sleep\"}"))));
        CountDownLatch running = new CountDownLatch(1);
        service.events().subscribe(e -> {
            if (e instanceof Event.ToolOutput o && o.text().contains("started")) {
                running.countDown();
            }
        });
        AgentRun run = service.agent().start(AgentRuns.Request.of("sleep"));
        assertTrue(running.await(120, TimeUnit.SECONDS), "the command started in the sandbox");
        long t0 = System.nanoTime();
        run.cancel();
        RunResult r = run.result().get(15, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(RunStatus.CANCELLED, r.status(), r.toString());
        Event.ToolCallFinished f = of(Event.ToolCallFinished.class).get(0);
        long toolEnd = java.time.Duration.between(of(Event.ToolOutput.class).get(0).time(), f.time()).toMillis();
        assertTrue(ms <= 1000, "cancel → run end took " + ms + " ms (tool ended " + toolEnd + " ms after start)");
        assertEquals(1, fake.requests().size(), "the model is not asked again after a stop");
        Thread.sleep(300);
        assertFalse(Files.exists(ws.resolve("after-sleep")), "the command was killed");
        // the history stays valid for a later --continue: the stopped call has an output
        List<Item> items = Conversation.load(ws, r.conversationId()).items();
        assertTrue(items.get(items.size() - 1) instanceof Item.ToolOutput o && o.isError(), items.toString());
    }

    @Test
    void continueSendsTheEarlierTurnsAndKeepsRecallOutOfTheHistory() throws Exception {
        service(", \"tools\": {\"allowedTools\": []}, \"sandbox\": {\"mode\": \"off\"}", TestEngine.env());
        fake.enqueue(turn(Turn.text("The secret word is heron.")), turn(Turn.text("You asked about heron.")));
        RunResult first = service.agent().start(AgentRuns.Request.of("remember the word heron"))
                .result().get(60, TimeUnit.SECONDS);
        assertTrue(first.ok(), first.toString());
        RunResult second = service.agent().start(new AgentRuns.Request("what about the heron word?", true, null, null))
                .result().get(60, TimeUnit.SECONDS);
        assertTrue(second.ok(), second.toString());
        assertEquals(first.conversationId(), second.conversationId());
        JsonNode input = fake.request(1).json().path("input");
        String all = input.toString();
        assertTrue(all.contains("remember the word heron") && all.contains("The secret word is heron."), all);
        // the second turn recalled the first one's journal entry: the block is in the request, not the history
        String lastUser = input.get(input.size() - 1).toString();
        assertTrue(lastUser.contains(MemoryStore.RECALL_HEADER), lastUser);
        Conversation conv = Conversation.load(ws, second.conversationId());
        assertEquals(List.of(first.runId(), second.runId()), conv.runs());
        assertTrue(conv.items().stream().noneMatch(i -> i instanceof Item.UserText u
                && u.text().contains(MemoryStore.RECALL_HEADER)), conv.items().toString());
        assertEquals(4, conv.items().size());
        assertTrue(of(Event.AgentRunStarted.class).get(1).continued());
        Event.MemoryRecalled recalled = of(Event.MemoryRecalled.class).get(1);
        assertTrue(recalled.items() >= 1, recalled.toString());
    }

    @Test
    void reasoningSummariesArePublishedLoggedAndInTheReport() throws Exception {
        service(", \"tools\": {\"allowedTools\": []}, \"sandbox\": {\"mode\": \"off\"}", TestEngine.env());
        fake.enqueue(turn(new Turn("Check the config, then answer.", "It is configured.", List.of())));
        RunResult r = service.agent().start(AgentRuns.Request.of("is it configured?")).result()
                .get(60, TimeUnit.SECONDS);
        assertTrue(r.ok(), r.toString());
        List<Event.ReasoningDelta> pieces = of(Event.ReasoningDelta.class);
        assertTrue(pieces.size() >= 2, "streamed in pieces: " + pieces);
        assertEquals("Check the config, then answer.", pieces.stream().map(Event.ReasoningDelta::text)
                .collect(java.util.stream.Collectors.joining()));
        assertTrue(events.indexOf(pieces.get(pieces.size() - 1)) < events.indexOf(of(Event.AssistantDelta.class)
                .get(0)), "the summary streams before the text");
        RunRecords.Run run = RunRecords.read(ws, r.runId());
        assertEquals(pieces.size(), run.lines().stream().filter(l -> "ReasoningDelta".equals(l.type())).count(),
                "every piece is in the run log");
        String md = RunReport.render(run, RunReport.Format.MD);
        assertTrue(md.contains("Reasoning summary") && md.contains("Check the config, then answer."), md);
        assertFalse(md.contains("Other events") && md.contains("ReasoningDelta"), "not listed piece by piece: " + md);
    }

    @Test
    void nearTheContextWindowOldToolOutputsAreElidedFirstAndTheRunSaysSo() throws Exception {
        String big = ("x".repeat(60) + "\n").repeat(100);
        for (int i = 0; i < 3; i++) {
            Files.writeString(ws.resolve("f" + i + ".txt"), big);
        }
        readOnly(", \"context\": {\"maxTokens\": 4096, \"reserveTokens\": 0}");
        for (int i = 0; i < 3; i++) {
            fake.enqueue(turn(Turn.calls(new Call("c" + i, "Read", "{\"file_path\":\"f" + i + ".txt\"}"))));
        }
        fake.enqueue(turn(Turn.text("read them all")));
        RunResult r = service.agent().start(AgentRuns.Request.of("read the files")).result()
                .get(60, TimeUnit.SECONDS);
        assertTrue(r.ok(), r.toString());
        List<Event.ContextElided> elided = of(Event.ContextElided.class);
        assertFalse(elided.isEmpty(), "the run says it elided");
        assertTrue(elided.get(0).tokensAfter() < elided.get(0).tokensBefore());
        String last = fake.request(3).json().path("input").toString();
        assertTrue(last.contains(ContextWindow.ELIDED_PREFIX), "an old output was elided");
        // the newest output is intact, and the elided one's full text is on disk
        JsonNode input = fake.request(3).json().path("input");
        assertTrue(input.get(input.size() - 1).path("output").asText().contains("xxxx"));
        String note = input.toString();
        String path = note.substring(note.indexOf("full text: ") + 11, note.indexOf("]", note.indexOf("full text: ")));
        assertTrue(Files.readString(Path.of(path)).contains("100\t" + "x".repeat(60)), path);
    }

    @Test
    void providerFailuresEndTheRunWithTheirKind() throws Exception {
        readOnly("");
        fake.enqueue(Reply.json(401, "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":"
                + "\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"));
        RunResult r = service.agent().start(AgentRuns.Request.of("hi")).result().get(60, TimeUnit.SECONDS);
        assertEquals("auth_required", r.failureKind(), r.toString());
        assertEquals("auth_required", of(Event.ModelCallFinished.class).get(0).outcome());
        assertFalse(r.message().contains("sk-test"), r.message());
    }

    @Test
    void badRequestsNameTheirField() throws Exception {
        readOnly("");
        AgentRuns runs = service.agent();
        assertTrue(assertThrows(AgentRuns.BadRequest.class, () -> runs.start(AgentRuns.Request.of("  ")))
                .getMessage().startsWith("prompt:"));
        ConfigException bad = assertThrows(ConfigException.class,
                () -> runs.start(new AgentRuns.Request("hi", false, null, "codex:gpt-5")));
        assertTrue(bad.getMessage().contains("--model"), bad.getMessage());
        assertTrue(assertThrows(AgentRuns.BadRequest.class,
                () -> runs.start(new AgentRuns.Request("hi", true, null, null))).getMessage()
                .startsWith("--continue:"));
        assertTrue(events.stream().noneMatch(e -> e instanceof Event.RunStarted), "nothing ran");
    }
}
