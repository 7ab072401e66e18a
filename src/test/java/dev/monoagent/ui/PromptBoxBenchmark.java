package dev.monoagent.ui;

import dev.monoagent.agent.AgentService;
import dev.monoagent.common.Event;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Scripts;
import dev.monoagent.sandbox.HostEnv;
import dev.monoagent.ui.model.MessageEntry;
import dev.monoagent.ui.model.PromptModel;
import dev.monoagent.ui.model.TranscriptEntry;
import dev.monoagent.ui.port.PolicyFactory;
import dev.monoagent.ui.port.ServiceAgent;
import dev.monoagent.ui.port.UnavailableSandbox;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;

/**
 * The prompt box's speed, headless on Monocle. Not in the normal run (surefire excludes {@code *Benchmark}); run
 * {@code mvn -B test -Dtest=PromptBoxBenchmark -Dsurefire.failIfNoSpecifiedTests=false}. Prints:
 * <ul>
 *   <li>text delta arrival → transcript update: 3,000 deltas published from a worker (one every 2 ms, a fast model)
 *       into the window's event pump; per delta, the time until the transcript's text holds it (p50/p95) and until
 *       the pulse that laid it out ended (what the screen shows; goal ≤ 16 ms p95);</li>
 *   <li>a 300-turn conversation sent from the prompt box against a scripted zero-latency model on a local fake
 *       Responses server (the real loop, conversation continued each turn): per-turn wall time (Send → the box idle
 *       again), medians of turns 1–50 vs 251–300, and the used heap after a GC at turns 50, 150 and 300.</li>
 * </ul>
 */
class PromptBoxBenchmark {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    @Test
    void run() throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        try {
            Platform.startup(up::countDown);
        } catch (IllegalStateException alreadyRunning) {
            up.countDown();
        }
        up.await();
        Platform.setImplicitExit(false);
        Path tmp = Files.createTempDirectory("mono-prompt-bench-").toRealPath();
        String load = uptime();
        long[][] delta = deltaLatency(tmp.resolve("delta-ws"));
        Conversation conv = conversation(tmp.resolve("conv-ws"), 300);
        String report = String.join("\n",
                "PromptBoxBenchmark (" + System.getProperty("java.version") + ", " + Runtime.getRuntime()
                        .availableProcessors() + " cores, Monocle headless, prism sw)",
                "load before: " + load,
                String.format("delta → transcript text     : p50 %5.1f ms  p95 %5.1f ms  (%d deltas, %d text updates)",
                        pct(delta[0], 50), pct(delta[0], 95), delta[0].length, delta[2][0]),
                String.format("delta → laid out in a pulse : p50 %5.1f ms  p95 %5.1f ms  (goal p95 <= 16)",
                        pct(delta[1], 50), pct(delta[1], 95)),
                String.format("300-turn conversation       : turn median %5.1f ms (turns 1-50) vs %5.1f ms "
                        + "(turns 251-300), ratio %.2f", conv.firstMedian, conv.lastMedian,
                        conv.lastMedian / conv.firstMedian),
                String.format("used heap after GC          : %.1f MB @50, %.1f MB @150, %.1f MB @300 turns "
                        + "(%.1f KB per turn from 50 to 300); transcript entries %d",
                        conv.heap[0] / 1e6, conv.heap[1] / 1e6, conv.heap[2] / 1e6,
                        (conv.heap[2] - conv.heap[0]) / 250.0 / 1e3, conv.entries),
                "load after: " + uptime());
        System.out.println(report);
        Path out = Path.of(System.getProperty("monoagent.projectDir", "."), "target", "prompt-box-benchmark.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, report + "\n");
    }

    private static String uptime() {
        try {
            Process p = new ProcessBuilder("uptime").redirectErrorStream(true).start();
            String s = new String(p.getInputStream().readAllBytes()).strip();
            p.waitFor();
            return s;
        } catch (Exception e) {
            return "load average " + ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }
    }

    private static double pct(long[] nanos, int p) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)] / 1e6;
    }

    private static <T> T onFx(java.util.concurrent.Callable<T> c) throws Exception {
        AtomicReference<T> r = new AtomicReference<>();
        AtomicReference<Exception> err = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Platform.runLater(() -> {
            try {
                r.set(c.call());
            } catch (Exception e) {
                err.set(e);
            } finally {
                done.countDown();
            }
        });
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("FX thread stuck");
        }
        if (err.get() != null) {
            throw err.get();
        }
        return r.get();
    }

    private static Workbench open(Path ws, dev.monoagent.ui.port.AgentPort agent, FxTaskExecutor ex) throws Exception {
        return onFx(() -> {
            Stage stage = new Stage();
            Workbench wb = Workbench.open(stage, ws, new UnavailableSandbox(PolicyFactory.defaults(ws), "bench"),
                    UnavailableSandbox.tools(), agent, ex, new WorkbenchFxTest.RecordingDialogs(), false, null);
            stage.setWidth(1280);
            stage.setHeight(800);
            stage.show();
            return wb;
        });
    }

    // ---- delta latency ----

    private static long[][] deltaLatency(Path ws) throws Exception {
        Files.createDirectories(ws);
        FxTaskExecutor ex = new FxTaskExecutor();
        Workbench wb = open(ws, dev.monoagent.ui.port.AgentPort.NONE, ex);
        int n = 3000;
        String word = "token ";
        long[] arrival = new long[n];
        long[] toText = new long[n];
        long[] toPulse = new long[n];
        long[] updates = new long[1];
        int[] textSeen = {0};
        int[] pulseSeen = {0};
        AtomicReference<MessageEntry> entry = new AtomicReference<>();
        CountDownLatch all = new CountDownLatch(1);
        Runnable pulse = () -> {
            MessageEntry m = entry.get();
            if (m == null) {
                return;
            }
            long now = System.nanoTime();
            int shown = m.textProperty().get().length() / word.length();
            while (pulseSeen[0] < shown) {
                toPulse[pulseSeen[0]] = now - arrival[pulseSeen[0]];
                pulseSeen[0]++;
            }
            if (pulseSeen[0] == n) {
                all.countDown();
            }
        };
        onFx(() -> {
            wb.scene().addPostLayoutPulseListener(pulse);
            wb.model().transcript().entries().addListener(
                    (javafx.collections.ListChangeListener<TranscriptEntry>) c -> {
                        while (c.next()) {
                            for (TranscriptEntry e : c.getAddedSubList()) {
                                if (e instanceof MessageEntry m && m.role() == MessageEntry.Role.ASSISTANT) {
                                    entry.set(m);
                                    m.textProperty().addListener((o, a, b) -> {
                                        long now = System.nanoTime();
                                        updates[0]++;
                                        int k = b.length() / word.length();
                                        while (textSeen[0] < k) {
                                            toText[textSeen[0]] = now - arrival[textSeen[0]];
                                            textSeen[0]++;
                                        }
                                    });
                                }
                            }
                        }
                    });
            return null;
        });
        var sink = wb.model().events();
        sink.accept(new Event.UserMessage(Instant.now(), "bench", "go"));
        Thread.sleep(300);
        long next = System.nanoTime();
        for (int i = 0; i < n; i++) {
            next += 2_000_000;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait); // never spin: the FX thread needs the core
            }
            arrival[i] = System.nanoTime();
            sink.accept(new Event.AssistantDelta(Instant.now(), "bench", word));
        }
        if (!all.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("only " + pulseSeen[0] + " of " + n + " deltas shown");
        }
        onFx(() -> {
            wb.scene().removePostLayoutPulseListener(pulse);
            wb.scene().getWindow().hide();
            return null;
        });
        ex.shutdown();
        return new long[][] {toText, toPulse, updates};
    }

    // ---- 300-turn conversation ----

    record Conversation(double firstMedian, double lastMedian, long[] heap, int entries) {}

    private static Conversation conversation(Path ws, int turns) throws Exception {
        Files.createDirectories(ws);
        try (FakeModelServer fake = FakeModelServer.start()) {
            Files.writeString(ws.resolve("mono-agent.config.json"), """
                    {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                     "providers": {"openai": {"baseUrl": "%s"}},
                     "memory": {"mode": "lite"},
                     "sandbox": {"mode": "native", "network": {"mode": "localhost"}, "fallback": "fail-closed"}}
                    """.formatted(fake.baseUrl()));
            LoadedConfig cfg = ConfigLoader.load(new ConfigLoader.Options(ws, null, null,
                    Map.of("OPENAI_API_KEY", "sk-bench")));
            FxTaskExecutor ex = new FxTaskExecutor();
            HostEnv env = RealEngine.env(ws.resolveSibling("engine"));
            try (AgentService service = AgentService.of(cfg, env)) {
                // the window follows the service's bus through its sandbox port, as the application's does
                Workbench wb = onFx(() -> {
                    Stage stage = new Stage();
                    Workbench w = Workbench.open(stage, ws, new dev.monoagent.ui.port.EngineSandbox(service),
                            new dev.monoagent.ui.port.ToolsRunner(service), new ServiceAgent(service), ex,
                            new WorkbenchFxTest.RecordingDialogs(), false, null);
                    stage.setWidth(1280);
                    stage.setHeight(800);
                    stage.show();
                    return w;
                });
                PromptModel prompt = wb.model().prompt();
                long[] perTurn = new long[turns];
                long[] heap = new long[3];
                for (int i = 0; i < turns; i++) {
                    fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.text("Answer " + i
                            + ": the file lists the ports, the config and the tests; nothing else stands out here.")));
                    CountDownLatch idle = new CountDownLatch(1);
                    javafx.beans.value.ChangeListener<PromptModel.State> l = (o, a, b) -> {
                        if (b == PromptModel.State.IDLE) {
                            idle.countDown();
                        }
                    };
                    int turn = i;
                    long t0 = System.nanoTime();
                    onFx(() -> {
                        prompt.stateProperty().addListener(l);
                        prompt.textProperty().set("Question " + turn + ": what does this repo do?");
                        if (!prompt.send()) {
                            throw new IllegalStateException("not sent: " + prompt.statusProperty().get());
                        }
                        return null;
                    });
                    if (!idle.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("turn " + turn + " did not end: "
                                + prompt.statusProperty().get());
                    }
                    perTurn[i] = System.nanoTime() - t0;
                    fake.forgetRequests(); // the fake's request log would grow with the history, not the window
                    onFx(() -> {
                        prompt.stateProperty().removeListener(l);
                        if (!prompt.statusProperty().get().startsWith("Answered")) {
                            throw new IllegalStateException("turn " + turn + ": " + prompt.statusProperty().get());
                        }
                        return null;
                    });
                    if (i + 1 == 50 || i + 1 == 150 || i + 1 == 300) {
                        heap[i + 1 == 50 ? 0 : i + 1 == 150 ? 1 : 2] = usedAfterGc();
                    }
                }
                int entries = onFx(() -> wb.model().transcript().entries().size());
                onFx(() -> {
                    wb.scene().getWindow().hide();
                    return null;
                });
                return new Conversation(median(perTurn, 0, 50), median(perTurn, turns - 50, turns), heap, entries);
            } finally {
                ex.shutdown();
            }
        }
    }

    private static double median(long[] v, int from, int to) {
        long[] s = Arrays.copyOfRange(v, from, to);
        Arrays.sort(s);
        return s[s.length / 2] / 1e6;
    }

    private static long usedAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
