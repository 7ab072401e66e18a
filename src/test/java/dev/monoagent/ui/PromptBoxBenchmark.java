package dev.monoagent.ui;

import dev.monoagent.agent.AgentService;
import dev.monoagent.common.Event;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Scripts;
import dev.monoagent.host.HostEnv;
import dev.monoagent.ui.model.MessageEntry;
import dev.monoagent.ui.model.PromptModel;
import dev.monoagent.ui.model.TranscriptEntry;
import dev.monoagent.ui.port.ServiceAgent;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *   <li>text delta arrival → transcript update: 3,000 deltas a round published from a worker (one every 2 ms, a fast model)
 *       into the window's event pump; per delta, the time until the transcript's text holds it, until the laid-out
 *       transcript node displays it (the text node inside the message's label, set by its layout; a label laid out
 *       at a stale size would display a clipped text and not count; goal ≤ 16 ms p95), and until the end of the
 *       next pulse's layout that finds it there (the frame that draws it). The transcript's streaming rows grow
 *       in steps (the product) and, in alternating rounds in the same process, by each line with a scroll per line
 *       (the baseline, {@code TranscriptView.stepStreamingRows(false)}): both are printed and their ratio.
 *       {@code -Dprompt.bench.baseline=false} runs the product's rounds only, {@code =only} the baseline's only
 *       (one of them under the pulse logger: add
 *       {@code "-Dsurefire.extraArgs=-Djavafx.pulseLogger=true -Djavafx.pulseLogger.threshold=0"});
 *       {@code -Dprompt.bench.rounds=N} (2) rounds of each; {@code -Dprompt.bench.slow=true} lists the late deltas;</li>
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
        // -Dprompt.bench.busy=N: N threads spinning in this JVM during the delta phase (the UI thread gets a share of
        // the cores, as on a loaded machine)
        int busy = Integer.getInteger("prompt.bench.busy", 0);
        // the product's streaming rows (grown in steps) against the per-line scroll they replaced, in alternating
        // rounds (ABBA...) in this process so both meet the same machine; -Dprompt.bench.baseline=false runs the
        // product's only, =only the baseline's only (e.g. one of them under the pulse logger), -Dprompt.bench.rounds=N
        // sets the rounds (2)
        String mode = System.getProperty("prompt.bench.baseline", "true");
        boolean withBaseline = !mode.equals("false");
        boolean withStepped = !mode.equals("only");
        int rounds = Integer.getInteger("prompt.bench.rounds", 2);
        List<long[][]> stepped = new ArrayList<>();
        List<long[][]> perLine = new ArrayList<>();
        try {
            for (int r = 0; r < rounds; r++) {
                for (boolean step : r % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                    if (step ? !withStepped : !withBaseline) {
                        continue;
                    }
                    dev.monoagent.ui.view.TranscriptView.stepStreamingRows(step);
                    Path ws = tmp.resolve("delta-ws-" + r + (step ? "-stepped" : "-per-line"));
                    (step ? stepped : perLine).add(withBusyThreads(busy, () -> deltaLatency(ws)));
                }
            }
        } finally {
            dev.monoagent.ui.view.TranscriptView.stepStreamingRows(true);
        }
        long[][] delta = merge(withStepped ? stepped : perLine);
        long[][] base = withBaseline && withStepped ? merge(perLine) : null;
        // -Dprompt.bench.turns=0 measures the deltas only
        int turns = Integer.getInteger("prompt.bench.turns", 300);
        Conversation conv = turns == 0 ? new Conversation(Double.NaN, Double.NaN, new long[3], 0)
                : conversation(tmp.resolve("conv-ws"), turns);
        String report = String.join("\n",
                "PromptBoxBenchmark (" + System.getProperty("java.version") + ", " + Runtime.getRuntime()
                        .availableProcessors() + " cores, Monocle headless, prism sw)",
                "load before: " + load + (busy > 0 ? "; " + busy + " busy threads during the delta phase" : ""),
                String.format("delta → transcript text     : p50 %5.1f ms  p95 %5.1f ms  (%d deltas, %d text updates)",
                        pct(delta[0], 50), pct(delta[0], 95), delta[0].length, delta[2][0]),
                String.format("delta → laid-out node shows : p50 %5.1f ms  p95 %5.1f ms  (goal p95 <= 16; %d "
                        + "layouts that changed it)", pct(delta[3], 50), pct(delta[3], 95), delta[2][1]),
                String.format("delta → pulse that draws it : p50 %5.1f ms  p95 %5.1f ms  (frame-bound: pulses come "
                        + "at 60 Hz)", pct(delta[1], 50), pct(delta[1], 95)),
                String.format("deltas laid out after > 16 ms: %d, of which %d waited through a pulse (%d pulses)",
                        delta[4][0], delta[4][1], delta[4][2]),
                base == null ? "baseline (per-line scroll)  : " + (withStepped ? "not run" : "ALL THE FIGURES ABOVE ARE "
                        + "IT") + " (-Dprompt.bench.baseline=" + mode + ")" : String.join(
                        "\n",
                        String.format("baseline (per-line scroll)  : laid-out p50 %5.1f ms  p95 %5.1f ms; > 16 ms: "
                                + "%d, of which %d waited through a pulse (%d pulses)", pct(base[3], 50),
                                pct(base[3], 95), base[4][0], base[4][1], base[4][2]),
                        String.format("stepped / per-line          : laid-out p50 %.2f  p95 %.2f  (%d rounds of %d "
                                + "deltas each, alternating)", pct(delta[3], 50) / pct(base[3], 50),
                                pct(delta[3], 95) / pct(base[3], 95), rounds, base[3].length / rounds)),
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

    /** The rounds' samples as one run's: each array concatenated (the counters, {@code [2]} and {@code [4]}, added). */
    private static long[][] merge(List<long[][]> runs) {
        long[][] all = new long[runs.get(0).length][];
        for (int i = 0; i < all.length; i++) {
            int k = i;
            if (i == 2 || i == 4) {
                all[i] = new long[runs.get(0)[i].length];
                for (long[][] r : runs) {
                    for (int j = 0; j < all[i].length; j++) {
                        all[i][j] += r[k][j];
                    }
                }
            } else {
                all[i] = runs.stream().flatMapToLong(r -> Arrays.stream(r[k])).toArray();
            }
        }
        return all;
    }

    private static <T> T withBusyThreads(int n, java.util.concurrent.Callable<T> c) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean on = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.List<Thread> spinners = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = Thread.ofPlatform().daemon().name("busy-" + i).start(() -> {
                long x = 0;
                while (on.get()) {
                    x += System.nanoTime() % 7;
                }
                if (x == 42) {
                    System.out.print("");
                }
            });
            spinners.add(t);
        }
        try {
            return c.call();
        } finally {
            on.set(false);
            for (Thread t : spinners) {
                t.join();
            }
        }
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
        return onFx(() -> WorkbenchRobot.openWithoutEngine(new Stage(), ws, agent, ex));
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
        long[] toLaid = new long[n];
        long[] updates = new long[2];
        int[] textSeen = {0};
        int[] pulseSeen = {0};
        int[] laidSeen = {0};
        // the answer's blocks (one transcript row each), in order; a delta is shown once the text up to its end is
        List<MessageEntry> blocks = new ArrayList<>();
        java.util.function.ToIntFunction<MessageEntry> before = m -> {
            int chars = 0;
            for (MessageEntry b : blocks) {
                if (b == m) {
                    return chars;
                }
                chars += b.textProperty().get().length();
            }
            return -1;
        };
        CountDownLatch all = new CountDownLatch(1);
        long[] pulseStarts = new long[20_000];
        int[] pulses = {0};
        Runnable pulseStart = () -> {
            if (pulses[0] < pulseStarts.length) {
                pulseStarts[pulses[0]++] = System.nanoTime();
            }
        };
        // what a laid-out block label displays (its skin's text node, set by the label's layout): the deltas shown
        // for the first time are timed now
        java.util.function.BiConsumer<javafx.scene.text.Text, Long> laidOut = (t, now) -> {
            if (!(t.getParent() instanceof javafx.scene.control.Label l)
                    || !(l.getParent() instanceof javafx.scene.control.ListCell<?> cell)
                    || !(cell.getItem() instanceof MessageEntry m) || before.applyAsInt(m) < 0) {
                return;
            }
            int k = Math.min(n, (before.applyAsInt(m) + t.getText().length()) / word.length());
            if (k > laidSeen[0]) {
                updates[1]++;
            }
            while (laidSeen[0] < k) {
                toLaid[laidSeen[0]] = now - arrival[laidSeen[0]];
                laidSeen[0]++;
            }
        };
        java.util.Set<javafx.scene.text.Text> watched = java.util.Collections.newSetFromMap(
                new java.util.IdentityHashMap<>());
        javafx.scene.Node transcript = onFx(() -> wb.scene().getRoot().lookup(".transcript"));
        Runnable pulse = () -> {
            if (blocks.isEmpty()) {
                return;
            }
            long now = System.nanoTime();
            // block labels the pulse has laid out: watch their text nodes (a label first shown by a layout outside a
            // pulse is found here, and what it shows is timed at this pulse: late, never early)
            for (javafx.scene.Node l : transcript.lookupAll(".message-assistant")) {
                if (l.lookup(".text") instanceof javafx.scene.text.Text t && watched.add(t)) {
                    t.textProperty().addListener((o, x, y) -> laidOut.accept(t, System.nanoTime()));
                    laidOut.accept(t, now);
                }
            }
            int shown = 0;
            for (MessageEntry b : blocks) {
                shown += b.textProperty().get().length();
            }
            shown /= word.length();
            while (pulseSeen[0] < shown) {
                toPulse[pulseSeen[0]] = now - arrival[pulseSeen[0]];
                pulseSeen[0]++;
            }
            if (pulseSeen[0] == n && laidSeen[0] == n) {
                all.countDown();
            }
        };
        onFx(() -> {
            wb.scene().addPostLayoutPulseListener(pulse);
            wb.scene().addPreLayoutPulseListener(pulseStart);
            wb.model().transcript().entries().addListener(
                    (javafx.collections.ListChangeListener<TranscriptEntry>) c -> {
                        while (c.next()) {
                            for (TranscriptEntry e : c.getAddedSubList()) {
                                if (e instanceof MessageEntry m && m.role() == MessageEntry.Role.ASSISTANT) {
                                    blocks.add(m);
                                    m.textProperty().addListener((o, a, b) -> {
                                        long now = System.nanoTime();
                                        updates[0]++;
                                        int k = (before.applyAsInt(m) + b.length()) / word.length();
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
        if (!all.await(Integer.getInteger("prompt.bench.wait", 60), TimeUnit.SECONDS)) {
            throw new IllegalStateException("only " + pulseSeen[0] + " / " + laidSeen[0] + " of " + n
                    + " deltas shown in a pulse / on the laid-out node");
        }
        onFx(() -> {
            wb.scene().removePostLayoutPulseListener(pulse);
            wb.scene().removePreLayoutPulseListener(pulseStart);
            wb.scene().getWindow().hide();
            return null;
        });
        ex.shutdown();
        // the deltas that took longer than a frame: how many waited through a pulse (the UI thread was in it)
        long slow = 0;
        long spanned = 0;
        for (int i = 0; i < n; i++) {
            if (toLaid[i] > 16_000_000L) {
                slow++;
                for (int k = 0; k < pulses[0]; k++) {
                    if (pulseStarts[k] >= arrival[i] && pulseStarts[k] <= arrival[i] + toLaid[i]) {
                        spanned++;
                        break;
                    }
                }
            }
        }
        if (Boolean.getBoolean("prompt.bench.slow")) {
            // which deltas were late, and by how much (index@ms): they cluster where the answer starts a new block
            // (every ~170 deltas here), or a step of the streaming row
            StringBuilder sb = new StringBuilder("late deltas (index@ms):");
            for (int i = 0; i < n; i++) {
                if (toLaid[i] > 16_000_000L) {
                    sb.append(' ').append(i).append('@').append(toLaid[i] / 1_000_000);
                }
            }
            System.out.println(sb);
        }
        return new long[][] {toText, toPulse, updates, toLaid, {slow, spanned, pulses[0]}};
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
            LoadedConfig cfg = dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null,
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
        if (v.length == 0) {
            return Double.NaN;
        }
        from = Math.max(0, from);
        to = Math.min(v.length, to);
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
