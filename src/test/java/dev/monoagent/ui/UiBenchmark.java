package dev.monoagent.ui;

import dev.monoagent.common.Event;
import dev.monoagent.ui.model.FileEntry;
import dev.monoagent.ui.model.ToolCard;
import dev.monoagent.ui.port.PolicyFactory;
import dev.monoagent.ui.port.UnavailableSandbox;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;

/**
 * Workbench speed, headless on Monocle. Not part of the normal test run (surefire excludes {@code *Benchmark});
 * run it with {@code mvn -B test -Dtest=UiBenchmark -Dsurefire.failIfNoSpecifiedTests=false} (an explicit -Dtest
 * overrides the exclude). Prints:
 * <ul>
 *   <li>cold start to interactive window, measured in a fresh child JVM from JVM start to the first rendered frame
 *       with the repo tree listed (goal ≤ 2 s);</li>
 *   <li>tree first paint for a generated 100,000-file workspace (100 dirs × 1,000 files, plus a flat
 *       10,000-file directory expanded), from opening to the first frame showing the rows (goal ≤ 300 ms);</li>
 *   <li>1,000,000 output lines streamed into one transcript card (10,000 chunks of 100 lines from a worker, as a
 *       process reader would deliver them, pausing 1 ms every 10,000 lines): total time and the longest gap between UI pulses (goal ≤ 100 ms).</li>
 * </ul>
 */
class UiBenchmark {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--cold-child")) {
            coldChild();
            return;
        }
        new UiBenchmark().run();
        Platform.exit();
    }

    @Test
    void run() throws Exception {
        long cold = coldStartMillis();
        startToolkit();
        Path tmp = Files.createTempDirectory("mono-ui-bench-").toRealPath();
        Path ws = generate(tmp.resolve("ws100k"));
        long[] first = treeFirstPaint(ws);
        long[] tree = treeFirstPaint(ws);
        long treeOnly = treeOnlyPaint(ws);
        long[] flood = flood(tmp.resolve("flood-ws"));
        String report = String.join("\n",
                "UiBenchmark (" + System.getProperty("java.version") + ", " + Runtime.getRuntime()
                        .availableProcessors() + " cores, load average " + String.format("%.1f",
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
                        + ", Monocle headless, prism sw)",
                String.format("cold start to interactive window : %5d ms   (goal <= 2000)", cold),
                String.format("tree first paint, 100k-file ws   : %5d ms   (goal <= 300; tree in a shown window)",
                        treeOnly),
                String.format("open 100k-file ws, whole window  : %5d ms   (first in JVM: %d ms)", tree[0], first[0]),
                String.format("expand a 10,000-file directory   : %5d ms   (first in JVM: %d ms)", tree[1], first[1]),
                String.format("1,000,000 lines into a card      : %5d ms total, longest pulse gap %d ms (goal <= 100),"
                        + " %d pulses", flood[0], flood[1], flood[2]));
        System.out.println(report);
        Path out = Path.of(System.getProperty("monoagent.projectDir", "."), "target", "ui-benchmark.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, report + "\n");
    }

    private static void startToolkit() throws InterruptedException {
        CountDownLatch up = new CountDownLatch(1);
        try {
            Platform.startup(up::countDown);
        } catch (IllegalStateException alreadyRunning) {
            up.countDown();
        }
        up.await();
        Platform.setImplicitExit(false);
    }

    // ---- cold start (child JVM) ----

    private static long coldStartMillis() throws Exception {
        Path ws = Files.createTempDirectory("mono-ui-cold-");
        Files.writeString(ws.resolve("README.md"), "# cold\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dglass.platform=Monocle", "-Dmonocle.platform=Headless", "-Dprism.order=sw",
                "-Dheadless.geometry=1280x800-32", "-Djava.awt.headless=true",
                "-Dmonoagent.bench.ws=" + ws, "-cp", System.getProperty("java.class.path"),
                UiBenchmark.class.getName(), "--cold-child"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("cold-start child failed:\n" + out);
        }
        for (String line : out.split("\n")) {
            if (line.startsWith("COLD ")) {
                return Long.parseLong(line.substring(5).trim());
            }
        }
        throw new IllegalStateException("no figure from the cold-start child:\n" + out);
    }

    /** In the child JVM: JVM start → window shown with the tree listed and a frame rendered after that. */
    private static void coldChild() throws Exception {
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        Path ws = Path.of(System.getProperty("monoagent.bench.ws"));
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong at = new AtomicLong();
        Platform.startup(() -> {
            Stage stage = new Stage();
            FxTaskExecutor ex = new FxTaskExecutor();
            Workbench wb = Workbench.open(stage, ws, new UnavailableSandbox(PolicyFactory.defaults(ws), "bench"),
                    UnavailableSandbox.tools(), ex, new WorkbenchFxTest.RecordingDialogs(), false, null);
            stage.show();
            TreeView<FileEntry> tree = (TreeView<FileEntry>) wb.scene().lookup("#repo-tree");
            onFirstFrameWhen(() -> !tree.getRoot().getChildren().isEmpty()
                    && !tree.getRoot().getChildren().get(0).getValue().name().equals("loading…"), () -> {
                at.set(System.currentTimeMillis());
                done.countDown();
            });
        });
        done.await(30, TimeUnit.SECONDS);
        System.out.println("COLD " + (at.get() - jvmStart));
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /** Runs {@code then} on the first pulse after {@code cond} became true (i.e. once it is on screen). */
    private static void onFirstFrameWhen(java.util.function.BooleanSupplier cond, Runnable then) {
        new AnimationTimer() {
            private boolean seen;

            @Override
            public void handle(long now) {
                if (seen) {
                    stop();
                    then.run();
                } else if (cond.getAsBoolean()) {
                    seen = true;
                }
            }
        }.start();
    }

    // ---- tree ----

    private static Path generate(Path ws) throws IOException {
        Files.createDirectories(ws);
        for (int d = 0; d < 100; d++) {
            Path dir = Files.createDirectories(ws.resolve(String.format("module-%03d", d)));
            for (int f = 0; f < 1000; f++) {
                Files.writeString(dir.resolve("File" + f + ".java"), "");
            }
        }
        Path flat = Files.createDirectories(ws.resolve("flat"));
        for (int f = 0; f < 10_000; f++) {
            Files.writeString(flat.resolve("gen-" + f + ".txt"), "");
        }
        Files.writeString(ws.resolve(".env"), "X=1\n");
        Files.writeString(ws.resolve("README.md"), "# big\n");
        return ws;
    }

    private static long[] treeFirstPaint(Path ws) throws Exception {
        long[] out = new long[2];
        CountDownLatch painted = new CountDownLatch(1);
        AtomicReference<Workbench> ref = new AtomicReference<>();
        AtomicLong t0 = new AtomicLong();
        Platform.runLater(() -> {
            Stage stage = new Stage();
            t0.set(System.nanoTime());
            Workbench wb = Workbench.open(stage, ws, new UnavailableSandbox(PolicyFactory.defaults(ws), "bench"),
                    UnavailableSandbox.tools(), new FxTaskExecutor(), new WorkbenchFxTest.RecordingDialogs(), false,
                    null);
            ref.set(wb);
            stage.show();
            TreeView<FileEntry> tree = (TreeView<FileEntry>) wb.scene().lookup("#repo-tree");
            onFirstFrameWhen(() -> tree.getRoot().getChildren().size() > 100, () -> {
                out[0] = (System.nanoTime() - t0.get()) / 1_000_000;
                painted.countDown();
            });
        });
        painted.await(30, TimeUnit.SECONDS);
        CountDownLatch expanded = new CountDownLatch(1);
        Platform.runLater(() -> {
            TreeView<FileEntry> tree = (TreeView<FileEntry>) ref.get().scene().lookup("#repo-tree");
            TreeItem<FileEntry> flat = tree.getRoot().getChildren().stream()
                    .filter(i -> i.getValue().name().equals("flat")).findFirst().orElseThrow();
            long s = System.nanoTime();
            flat.setExpanded(true);
            onFirstFrameWhen(() -> flat.getChildren().size() == 10_000, () -> {
                out[1] = (System.nanoTime() - s) / 1_000_000;
                expanded.countDown();
            });
        });
        expanded.await(60, TimeUnit.SECONDS);
        Platform.runLater(() -> ref.get().scene().getWindow().hide());
        return out;
    }

    /** A new tree for the workspace placed in an already shown window: opening → first frame with its rows. */
    private static long treeOnlyPaint(Path ws) throws Exception {
        CountDownLatch shown = new CountDownLatch(1);
        AtomicReference<Stage> stage = new AtomicReference<>();
        Platform.runLater(() -> {
            Stage s = new Stage();
            s.setScene(new javafx.scene.Scene(new javafx.scene.layout.StackPane(), 400, 700));
            s.show();
            stage.set(s);
            shown.countDown();
        });
        shown.await();
        Thread.sleep(200);
        CountDownLatch painted = new CountDownLatch(1);
        AtomicLong ms = new AtomicLong();
        Platform.runLater(() -> {
            long t0 = System.nanoTime();
            var model = new dev.monoagent.ui.model.RepoTreeModel(ws, () -> PolicyFactory.defaults(ws),
                    new FxTaskExecutor());
            var tree = new dev.monoagent.ui.view.RepoTreeView(model, f -> { }, d -> { });
            stage.get().getScene().setRoot(tree);
            onFirstFrameWhen(() -> tree.getRoot().getChildren().size() > 100, () -> {
                ms.set((System.nanoTime() - t0) / 1_000_000);
                painted.countDown();
            });
        });
        painted.await(30, TimeUnit.SECONDS);
        Platform.runLater(() -> stage.get().hide());
        return ms.get();
    }

    // ---- output flood ----

    private static long[] flood(Path ws) throws Exception {
        Files.createDirectories(ws);
        CountDownLatch open = new CountDownLatch(1);
        AtomicReference<Workbench> ref = new AtomicReference<>();
        FxTaskExecutor ex = new FxTaskExecutor();
        Platform.runLater(() -> {
            Stage stage = new Stage();
            Workbench wb = Workbench.open(stage, ws, new UnavailableSandbox(PolicyFactory.defaults(ws), "bench"),
                    UnavailableSandbox.tools(), ex, new WorkbenchFxTest.RecordingDialogs(), false, null);
            ref.set(wb);
            stage.show();
            open.countDown();
        });
        open.await();
        Workbench wb = ref.get();
        String run = wb.model().runId();
        wb.model().events().accept(new Event.ToolCallStarted(Instant.now(), run, "flood", "Bash",
                "{\"command\":\"seq 1000000\"}"));
        AtomicLong maxGap = new AtomicLong();
        AtomicLong pulses = new AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean measuring = new java.util.concurrent.atomic.AtomicBoolean();
        List<Long> gaps = java.util.Collections.synchronizedList(new ArrayList<>());
        AnimationTimer[] timer = new AnimationTimer[1];
        CountDownLatch timerUp = new CountDownLatch(1);
        Platform.runLater(() -> {
            timer[0] = new AnimationTimer() {
                private long last;

                @Override
                public void handle(long now) {
                    long t = System.nanoTime();
                    if (last != 0 && measuring.get()) {
                        maxGap.accumulateAndGet((t - last) / 1_000_000, Math::max);
                        gaps.add((t - last) / 1_000_000);
                        pulses.incrementAndGet();
                    }
                    last = t;
                }
            };
            timer[0].start();
            timerUp.countDown();
        });
        timerUp.await();
        Thread.sleep(200);
        long t0 = System.nanoTime();
        measuring.set(true);
        CountDownLatch produced = new CountDownLatch(1);
        ex.background().execute(() -> {
            StringBuilder sb = new StringBuilder();
            int n = 1;
            for (int chunk = 0; chunk < 10_000; chunk++) {
                sb.setLength(0);
                for (int i = 0; i < 100; i++) {
                    sb.append(n++).append('\n');
                }
                wb.model().events().accept(new Event.ToolOutput(Instant.now(), run, "flood", sb.toString()));
                if (chunk % 100 == 99) {
                    // a pipe reader blocks on read now and then; without this the producer alone saturates a core
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                }
            }
            produced.countDown();
        });
        produced.await();
        ToolCard card = wb.model().transcript().card("flood");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            AtomicLong size = new AtomicLong();
            CountDownLatch read = new CountDownLatch(1);
            Platform.runLater(() -> {
                size.set(card == null ? wb.model().transcript().card("flood").outputLines().size()
                        : card.outputLines().size());
                read.countDown();
            });
            read.await();
            if (size.get() >= 1_000_000) {
                break;
            }
            Thread.sleep(20);
        }
        long total = (System.nanoTime() - t0) / 1_000_000;
        Thread.sleep(100);
        measuring.set(false);
        Platform.runLater(() -> timer[0].stop());
        wb.model().events().accept(new Event.ToolCallFinished(Instant.now(), run, "flood", "Bash", dev.monoagent.common.ToolOutcome.OK, "", null, total));
        System.out.println("pulse gaps during the flood (ms): " + gaps);
        return new long[] {total, maxGap.get(), pulses.get()};
    }
}
