package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.Instance;
import dev.monoagent.agent.InstanceHandler;
import dev.monoagent.agent.InstanceStatus;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Reply;
import dev.monoagent.model.Scripts;
import dev.monoagent.model.Scripts.Call;
import dev.monoagent.model.Scripts.Turn;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mono-agent run} from a shell against a fake Responses server configured through
 * {@code providers.openai.baseUrl} (README's offline try-out): the answer streamed, the tool lines, {@code --json}
 * lines equal to the run log's, exit 0 on an answer and 1 with the failure kind otherwise, bad input named, and a
 * running instance serving the run (its bus sees the run live).
 */
class RunCommandTest {
    @TempDir
    Path tmp;
    Path ws;
    FakeModelServer fake;
    Map<String, String> env;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        fake = FakeModelServer.start();
        HostEnv shared = TestEngine.env();
        env = new HashMap<>();
        env.put("PATH", shared.path());
        env.put("MONO_AGENT_CACHE_DIR", shared.cacheRoot().toString());
        env.put("OPENAI_API_KEY", "sk-cli-test");
        env.put("HOME", shared.home().toString());
    }

    @AfterEach
    void tearDown() {
        fake.close();
    }

    void config(String extra) throws Exception {
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                 "providers": {"openai": {"baseUrl": "%s"}}%s}
                """.formatted(fake.baseUrl(), extra));
        // the reviewer's own endpoint, accepted once as the playbook's one trust step
        CliHarness.Result t = CliHarness.run(ws, env, "trust");
        assertEquals(0, t.exit(), t.out() + t.err());
    }

    static Reply turn(Turn t) {
        return Scripts.turn(Scripts.Wire.RESPONSES, t);
    }

    @Test
    void answersInTheSandboxWithExitZeroAndJsonLinesEqualToTheRunLog() throws Exception {
        config(", \"sandbox\": {\"network\": {\"mode\": \"localhost\"}}");
        fake.enqueue(turn(Turn.calls(new Call("c_ls", "Bash", "{\"command\":\"echo hi-from-sandbox\"}"))),
                turn(Turn.text("All done.")));
        CliHarness.Result r = CliHarness.run(ws, env, "run", "say hi from the sandbox");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("All done."), r.out());
        assertTrue(r.err().contains("▸ Bash echo hi-from-sandbox"), r.err());
        assertTrue(r.err().contains("✓ ok"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());

        fake.enqueue(turn(Turn.text("Second answer.")));
        CliHarness.Result j = CliHarness.run(ws, env, "run", "--json", "--continue", "and again");
        assertEquals(0, j.exit(), j.out() + j.err());
        List<Event> printed = j.out().lines().map(EventJson::read).toList();
        String runId = Event.runIdOf(printed.get(0));
        Path log = ws.resolve(".mono-agent/runs").resolve(runId).resolve("events.jsonl");
        List<Event> logged;
        try (Stream<String> lines = Files.lines(log)) {
            logged = lines.map(EventJson::read).toList();
        }
        assertInstanceOf(Event.RunHeader.class, logged.get(0));
        assertEquals(logged.subList(1, logged.size()), printed, "--json prints exactly the run log's events");
        assertTrue(assertInstanceOf(Event.AgentRunStarted.class, printed.get(1)).continued());
        assertEquals(RunStatus.COMPLETED, assertInstanceOf(Event.RunFinished.class,
                printed.get(printed.size() - 1)).status());
        // the continued conversation carried the first turn to the model
        assertTrue(fake.request(2).body().contains("say hi from the sandbox"));
    }

    @Test
    void theReasoningSummaryIsDimOnStderrAndAnEventInJson() throws Exception {
        config(", \"tools\": {\"allowedTools\": []}, \"sandbox\": {\"mode\": \"off\"}");
        fake.enqueue(turn(new Turn("Read the notes first.", "Notes read.", List.of())),
                turn(new Turn("Again the notes.", "Read again.", List.of())));
        env.put("TERM", "xterm-256color");
        CliHarness.Result r = CliHarness.run(ws, env, "run", "what do the notes say?");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals("Notes read.", r.out().strip(), "stdout holds the answer only");
        assertTrue(r.err().contains("\u001b[2mreasoning: Read the notes first.\u001b[0m\n"), r.err());

        env.remove("TERM");
        CliHarness.Result j = CliHarness.run(ws, env, "run", "--json", "again");
        assertEquals(0, j.exit(), j.out() + j.err());
        String summary = j.out().lines().map(EventJson::read).filter(e -> e instanceof Event.ReasoningDelta)
                .map(e -> ((Event.ReasoningDelta) e).text()).collect(java.util.stream.Collectors.joining());
        assertEquals("Again the notes.", summary);
    }

    @Test
    void failuresExitOneWithTheirKind() throws Exception {
        config(", \"agent\": {\"maxTurns\": 1}, \"tools\": {\"allowedTools\": [\"Read\"]}, "
                + "\"sandbox\": {\"mode\": \"off\"}");
        Files.writeString(ws.resolve("a.txt"), "a");
        fake.enqueue(turn(Turn.calls(new Call("c1", "Read", "{\"file_path\":\"a.txt\"}"))));
        CliHarness.Result r = CliHarness.run(ws, env, "run", "read forever");
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("[max_turns]"), r.err());

        fake.enqueue(Reply.json(401, "{\"error\":{\"message\":\"Incorrect API key provided\","
                + "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"));
        CliHarness.Result a = CliHarness.run(ws, env, "run", "hello");
        assertEquals(1, a.exit(), a.out() + a.err());
        assertTrue(a.err().contains("[auth_required]"), a.err());
        assertFalse(a.err().contains("sk-cli-test"), a.err());
    }

    @Test
    void badInputIsNamedWithoutAStackTrace() throws Exception {
        config(", \"sandbox\": {\"mode\": \"off\"}");
        CliHarness.Result blank = CliHarness.run(ws, env, "run", "  ");
        assertEquals(2, blank.exit());
        assertTrue(blank.err().contains("PROMPT is empty"), blank.err());

        CliHarness.Result model = CliHarness.run(ws, env, "run", "--model", "codex:gpt-5", "hi");
        assertEquals(1, model.exit());
        assertTrue(model.err().contains("--model") && model.err().contains("openai-codex:gpt-5"), model.err());

        CliHarness.Result cont = CliHarness.run(ws, env, "run", "--continue", "hi");
        assertEquals(2, cont.exit());
        assertTrue(cont.err().contains("--continue: there is no earlier conversation"), cont.err());

        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\": {}}");
        CliHarness.Result none = CliHarness.run(ws, env, "run", "hi");
        assertEquals(1, none.exit());
        assertTrue(none.err().contains("runtime.model"), none.err());
        for (CliHarness.Result x : List.of(blank, model, cont, none)) {
            assertFalse(x.err().contains("Exception") || x.err().contains("\tat "), x.err());
        }
        assertEquals(0, fake.requests().size(), "nothing was sent");
    }

    @Test
    void aRunningInstanceServesTheRunAndSeesItLive() throws Exception {
        config(", \"tools\": {\"allowedTools\": [\"Read\"]}, \"sandbox\": {\"mode\": \"off\"}");
        Files.writeString(ws.resolve("notes.md"), "instance-notes\n");
        fake.enqueue(turn(Turn.calls(new Call("c_r", "Read", "{\"file_path\":\"notes.md\"}"))),
                turn(Turn.text("Read it in the instance.")));
        List<Event> seenByInstance = new CopyOnWriteArrayList<>();
        try (TaskExecutor pool = TaskExecutor.create("instance-test");
             AgentService service = AgentService.of(dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, env)),
                     HostEnv.from(env), pool)) {
            service.events().subscribe(seenByInstance::add);
            InstanceHandler handler = new InstanceHandler() {
                @Override
                public InstanceStatus status() {
                    return service.instanceStatus("now", "test");
                }

                @Override
                public void focus() { }

                @Override
                public void stop() { }

                @Override
                public AgentService agentService() {
                    return service;
                }
            };
            Instance.Acquisition acq = Instance.acquire(ws, handler, pool.executor());
            try (Instance instance = assertInstanceOf(Instance.Acquired.class, acq).instance()) {
                CliHarness.Result r = CliHarness.run(ws, env, "run", "--json", "read the notes");
                assertEquals(0, r.exit(), r.out() + r.err());
                List<Event> printed = r.out().lines().map(EventJson::read).filter(e -> Event.runIdOf(e) != null)
                        .toList();
                List<Event> instanceRun = seenByInstance.stream()
                        .filter(e -> Event.runIdOf(printed.get(0)).equals(Event.runIdOf(e)))
                        .map(e -> EventJson.read(EventJson.line(e))).toList(); // as the wire carries them
                assertEquals(instanceRun, printed, "the instance ran it and streamed every event back");
                assertTrue(printed.stream().anyMatch(e -> e instanceof Event.ToolCallFinished f
                        && f.text().contains("instance-notes")));
                assertTrue(printed.stream().anyMatch(e -> e instanceof Event.AssistantMessage m && m.finalAnswer()
                        && m.text().equals("Read it in the instance.")));

                CliHarness.Result bad = CliHarness.run(ws, env, "run", "--model", "nope:x", "hi");
                assertEquals(1, bad.exit(), bad.out() + bad.err());
                assertTrue(bad.err().contains("nope"), bad.err());
            }
        }
    }

    @Test
    void ctrlCStopsTheRunExits130AndLogsItCancelled() throws Exception {
        config(", \"tools\": {\"allowedTools\": []}, \"sandbox\": {\"mode\": \"off\"}");
        fake.enqueue(Reply.sse(Scripts.responses().text("partial answer ").build()).thenHang());
        List<String> argv = new java.util.ArrayList<>(List.of("env", "--default-signal=INT")); // even under a
        // background shell that ignores SIGINT, the child gets the default disposition (the JVM then handles it)
        argv.addAll(dev.monoagent.agent.InstanceLauncher.relaunchCommand("dev.monoagent.cli.Main",
                List.of("run", "think slowly")));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(ws.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            StringBuilder out = new StringBuilder();
            java.util.concurrent.CompletableFuture<Void> reader = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try (var in = new java.io.InputStreamReader(p.getInputStream(),
                        java.nio.charset.StandardCharsets.UTF_8)) {
                    char[] buf = new char[256];
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        synchronized (out) {
                            out.append(buf, 0, n);
                        }
                    }
                } catch (java.io.IOException e) {
                    // the process ended
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!snapshot(out).contains("partial answer") && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(50);
            }
            assertTrue(snapshot(out).contains("partial answer"), "the answer started streaming: " + snapshot(out)
                    + new String(p.getErrorStream().readNBytes(p.isAlive() ? 0 : 100_000)));
            new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the run ended after Ctrl-C");
            String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(130, p.exitValue(), err);
            assertTrue(fake.awaitClientGone(2000), "the HTTP stream was closed");
            reader.get(5, TimeUnit.SECONDS);
            Path runs = ws.resolve(".mono-agent/runs");
            Path log;
            try (Stream<Path> dirs = Files.list(runs)) {
                log = dirs.findFirst().orElseThrow().resolve("events.jsonl");
            }
            List<Event> logged;
            try (Stream<String> lines = Files.lines(log)) {
                logged = lines.map(EventJson::read).toList();
            }
            assertTrue(logged.stream().anyMatch(e -> e instanceof Event.RunFailed f && f.kind().equals("cancelled")),
                    logged.toString());
            assertEquals(RunStatus.CANCELLED, assertInstanceOf(Event.RunFinished.class,
                    logged.get(logged.size() - 1)).status());
        } finally {
            p.destroyForcibly();
        }
    }

    private static String snapshot(StringBuilder sb) {
        synchronized (sb) {
            return sb.toString();
        }
    }
}
