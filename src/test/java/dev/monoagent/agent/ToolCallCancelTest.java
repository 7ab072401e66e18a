package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.TaskExecutor;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Scripts;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tools call} runs its call in the workspace's instance; when that client goes away (Ctrl-C,
 * SIGTERM, a closed socket) the command must stop there too, not run on until its timeout or {@code stop}. The
 * client is a real child JVM; the instance serves calls through a real {@link AgentService} over the real srt
 * sandbox; the command ignores TERM/INT/HUP itself, so only the instance killing its process group stops it.
 */
class ToolCallCancelTest {
    @TempDir
    Path tmp;

    private static final String TICKER = "{\"command\":\"trap '' TERM INT HUP; for i in $(seq 1 120); do echo $i >> "
            + "%s; sleep 0.5; done\",\"timeout_ms\":120000}";

    @Test
    void aClientThatIsInterruptedOrTerminatedStopsItsCommandInTheInstance() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test"},
                 "sandbox": {"mode": "native", "network": {"mode": "none"}, "fallback": "fail-closed"}}
                """);
        LoadedConfig lc = dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, Map.of()));
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try (TaskExecutor exec = TaskExecutor.create("cancel-test");
             AgentService service = AgentService.of(lc, TestEngine.env(), exec)) {
            InstanceHandler h = new InstanceHandler() {
                @Override public InstanceStatus status() {
                    return null;
                }
                @Override public void focus() { }
                @Override public void stop() { }
                @Override public ToolCallReply callTool(String name, String argsJson, String runId) {
                    return service.callTool(name, argsJson, runId);
                }
            };
            try (Instance i = ((Instance.Acquired) Instance.acquire(ws, h, pool)).instance()) {
                for (String sig : List.of("INT", "TERM")) {
                    Path tick = ws.resolve("tick-" + sig + ".txt");
                    Process client = child(ws.toString(), "Bash", TICKER.formatted(tick.getFileName()), "rk-" + sig);
                    killAndWatch(client, sig, tick);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * {@code mono-agent run} through the instance: the model asks for the same command; SIGTERM on the client must
     * stop the run and its command (the instance's op {@code run} cancels on the client's end of stream).
     */
    @Test
    void aRunWhoseClientIsTerminatedStopsItsCommandInTheInstance() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path tick = ws.resolve("tick-run.txt");
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try (FakeModelServer fake = FakeModelServer.start();
             TaskExecutor exec = TaskExecutor.create("cancel-run-test")) {
            fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.calls(new Scripts.Call("call_tick", "Bash",
                    TICKER.formatted(tick.getFileName())))));
            fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.text("stopped?")));
            Files.writeString(ws.resolve("mono-agent.config.json"), """
                    {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                     "providers": {"openai": {"baseUrl": "%s"}},
                     "sandbox": {"mode": "native", "network": {"mode": "none"}, "fallback": "fail-closed"}}
                    """.formatted(fake.baseUrl()));
            LoadedConfig lc = dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null,
                    Map.of("OPENAI_API_KEY", "sk-test-cancel")));
            try (AgentService service = AgentService.of(lc, TestEngine.env(), exec)) {
                InstanceHandler h = new InstanceHandler() {
                    @Override public InstanceStatus status() {
                        return null;
                    }
                    @Override public void focus() { }
                    @Override public void stop() { }
                    @Override public AgentService agentService() {
                        return service;
                    }
                };
                try (Instance i = ((Instance.Acquired) Instance.acquire(ws, h, pool)).instance()) {
                    killAndWatch(child(ws.toString(), "--run", "tick"), "TERM", tick);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The client starts as the launcher starts the CLI: SIGINT and SIGQUIT at their defaults whatever this JVM
     * inherited (a test run started with {@code nohup ... &} from a script has both ignored, and a JVM started with
     * SIGINT ignored installs no handler for it); {@code LauncherSignalsTest} checks the launcher does so.
     */
    private static final List<String> DEFAULT_SIGNALS = defaultSignals();

    private static List<String> defaultSignals() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT", "true").start();
            return p.waitFor() == 0 ? List.of("env", "--default-signal=INT,QUIT") : List.of();
        } catch (java.io.IOException | InterruptedException e) {
            return List.of();
        }
    }

    private static Process child(String... args) throws java.io.IOException {
        List<String> cmd = new java.util.ArrayList<>(DEFAULT_SIGNALS);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), ToolCallClientMain.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Waits for the command to tick, signals the client, and checks the ticks stop within a few seconds. */
    private static void killAndWatch(Process client, String sig, Path tick) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lines(tick) < 3 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        if (lines(tick) < 3) {
            client.destroyForcibly();
            throw new AssertionError("the command never ran: " + new String(client.getInputStream().readAllBytes()));
        }
        long t0 = System.nanoTime();
        int atKill = lines(tick);
        new ProcessBuilder("kill", "-" + sig, Long.toString(client.pid())).start().waitFor();
        assertTrue(client.waitFor(20, TimeUnit.SECONDS), "the client did not exit on SIG" + sig);
        // give the instance time to see the closed socket and kill the group, then watch it stay still
        Thread.sleep(3000);
        int settled = lines(tick);
        Thread.sleep(3000);
        assertEquals(settled, lines(tick), "SIG" + sig + " on the client: the command kept running in the instance ("
                + settled + " -> " + lines(tick) + " ticks)");
        assertTrue(settled < atKill + 20, "ran on for " + (settled - atKill) + " ticks after SIG" + sig + " ("
                + atKill + " at the signal, " + settled + " after " + (System.nanoTime() - t0) / 1_000_000 + " ms)");
    }

    private static int lines(Path f) throws java.io.IOException {
        return Files.exists(f) ? Files.readAllLines(f).size() : 0;
    }
}
