package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.ui.model.ConsoleLine;
import dev.monoagent.ui.model.ProbeRow;
import dev.monoagent.ui.model.ToolCard;
import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.port.EngineSandbox;
import dev.monoagent.ui.port.ToolsRunner;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.ListView;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The workbench over the REAL engine (srt + bubblewrap via the sandbox facade, the tools facade for the consoles),
 * headless on Monocle: the reviewer's flow end to end, including the engine's real mount points while the REPL runs
 * and the engine disappearing mid-session.
 */
@ExtendWith({WorkbenchEngineFxTest.PrepareEngine.class, ApplicationExtension.class})
class WorkbenchEngineFxTest {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    /**
     * Copies and proves the engine for each test before TestFX starts the window: that work (a full self-check) is
     * not the window's, and on a loaded machine it alone can exceed TestFX's setup timeout.
     */
    static final class PrepareEngine implements org.junit.jupiter.api.extension.BeforeEachCallback {
        static Path root;
        static HostEnv prepared;

        @Override
        public void beforeEach(org.junit.jupiter.api.extension.ExtensionContext context) throws Exception {
            root = Files.createTempDirectory("mono-ui-it-").toRealPath();
            prepared = RealEngine.env(root);
        }
    }

    private Path ws;
    private HostEnv env;
    private Workbench wb;
    private FxTaskExecutor executor;
    private EngineSandbox engine;
    private ToolsRunner tools;
    private dev.monoagent.agent.AgentService service;

    @Start
    void start(Stage stage) throws Exception {
        Path root = PrepareEngine.root;
        env = PrepareEngine.prepared;
        ws = Files.createDirectories(root.resolve("demo-repo"));
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n");
        Files.writeString(ws.resolve(".env"), "API_TOKEN=do-not-leak\n");
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/app.js"), "const port = 8080;\n");
        Files.writeString(ws.resolve("README.md"), "# demo\n");
        Files.createDirectories(ws.resolve(".mono-agent"));
        var cfg = RealEngine.config(ws);
        service = dev.monoagent.agent.AgentService.of(cfg, env);
        engine = new EngineSandbox(service);
        tools = new ToolsRunner(service);
        executor = new FxTaskExecutor();
        wb = Workbench.open(stage, ws, engine, tools, executor, new WorkbenchFxTest.RecordingDialogs(), true, null);
        stage.setWidth(1280);
        stage.setHeight(800);
        stage.show();
    }

    @AfterEach
    void tearDown() {
        // a setup that timed out leaves some of these unset; the engine's bridge must not outlive the test either way
        if (wb != null) {
            wb.close();
        }
        if (service != null) {
            service.close();
        }
        if (executor != null) {
            executor.shutdown();
        }
        WorkbenchRobot.closeStages();
    }

    private static ConsoleLine last(List<ConsoleLine> lines) {
        return lines.get(lines.size() - 1);
    }

    @Test
    void reviewerFlowWithTheRealSandbox(FxRobot robot) throws Exception {
        List<String> expected = List.of(".git", ".mono-agent", "src", ".env", "README.md");
        WorkbenchRobot.waitUntil(20, () -> WorkbenchRobot.rootNames(robot).equals(expected));
        assertTrue(robot.lookup(".protected-badge").queryAll().size() >= 2, "badges on .mono-agent and .env");

        // Check: every probe row, ENFORCING
        Label badge = robot.lookup("#sandbox-badge").queryAs(Label.class);
        WorkbenchRobot.waitUntil(30, () -> wb.model().sandbox().snapshotProperty().get() != null);
        robot.clickOn("#sandbox-check");
        ListView<ProbeRow> probes = robot.lookup("#probe-list").queryAs(ListView.class);
        WorkbenchRobot.waitUntil(60, () -> !wb.model().sandbox().runningProperty().get() && !probes.getItems().isEmpty());
        assertTrue(probes.getItems().size() >= 5, probes.getItems().toString());
        assertTrue(probes.getItems().stream().allMatch(p -> p.state() == ProbeRow.State.PASS),
                probes.getItems().toString());
        assertTrue(badge.getText().startsWith("Sandbox: ENFORCING (verified "), badge.getText());

        // denied write → violation row → transcript card with the inline marker
        WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "echo x >> .env");
        TableView<Violation> table = robot.lookup("#violations-table").queryAs(TableView.class);
        WorkbenchRobot.waitUntil(30, () -> table.getItems().stream().anyMatch(v -> v.target() != null
                && v.target().endsWith(".env")));
        Violation v = table.getItems().stream().filter(x -> x.target().endsWith(".env")).findFirst().orElseThrow();
        ToolCard card = wb.model().transcript().card(v.callId());
        assertTrue(card.violations().contains(v));
        assertEquals("API_TOKEN=do-not-leak\n", Files.readString(ws.resolve(".env")), "the secret is unchanged");
        robot.interact(() -> table.getSelectionModel().select(v));
        robot.clickOn("#violation-jump");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(WorkbenchModel.Tab.TRANSCRIPT, wb.model().tabProperty().get());
        assertTrue(robot.lookup(".violation-marker").queryAll().stream()
                .anyMatch(n -> ((Labeled) n).getText().contains(".env")));

        // NodeRepl: state persists in the run's sandboxed REPL
        WorkbenchRobot.runInConsole(robot, "NodeRepl", "#noderepl-input", "const n = 40");
        WorkbenchRobot.waitUntil(60, () -> !wb.model().replConsole().busyProperty().get()
                && wb.model().replConsole().lines().size() >= 2);
        WorkbenchRobot.runInConsole(robot, "NodeRepl", "#noderepl-input", "n + 2");
        WorkbenchRobot.waitUntil(60, () -> wb.model().replConsole().lines().stream().anyMatch(l -> l.text().trim().equals("42")));

        // README screenshot: the transcript with the denied write's card, the probes, the violation selected
        robot.interact(() -> {
            wb.model().tabProperty().set(WorkbenchModel.Tab.TRANSCRIPT);
            table.getSelectionModel().select(v);
            wb.model().transcript().reveal(v.callId());
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            try {
                // target/ on every run; the committed README copy only on request (-Dscreenshots.update=true),
                // so a test run never dirties the work tree
                Path base = Path.of(System.getProperty("monoagent.projectDir", "."));
                Snapshots.writePng(wb.scene().getRoot(), Boolean.getBoolean("screenshots.update")
                        ? base.resolve("docs/screenshots/workbench.png")
                        : base.resolve("target/screenshots/workbench.png"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        // the REPL keeps srt's mount points on the host: the tree still shows no litter
        robot.interact(() -> wb.model().tree().onChanges(List.of(ws.resolve(".bashrc"), ws.resolve(".vscode"))));
        Thread.sleep(300);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(expected, WorkbenchRobot.rootNames(robot));

        // the engine disappears: the console fails closed and the badge turns red
        RealEngine.remove(env);
        WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "echo hi");
        WorkbenchRobot.waitUntil(30, () -> wb.model().commandConsole().lines().stream()
                .anyMatch(l -> l.kind() == ConsoleLine.Kind.ERROR && l.text().startsWith("sandbox_prepare_failed")));
        assertEquals("sandbox_prepare_failed: " + ExecOutcome.FAIL_CLOSED_TEXT,
                last(wb.model().commandConsole().lines()).text());
        WorkbenchRobot.waitUntil(30, () -> badge.getText().startsWith("BLOCKED"));
        assertTrue(badge.getStyleClass().contains("badge-blocked"));
        assertFalse(wb.model().commandConsole().busyProperty().get());
    }

    @Test
    void longCommandKeepsTheWindowResponsiveAndStopEndsIt(FxRobot robot) throws Exception {
        WorkbenchRobot.waitUntil(30, () -> wb.model().sandbox().snapshotProperty().get() != null);
        WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "sleep 10");
        WorkbenchRobot.waitUntil(10, () -> wb.model().commandConsole().busyProperty().get());
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            robot.interact(() -> { });
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 500, "UI thread answered in " + ms + " ms while the command runs");
            Thread.sleep(100);
        }
        long t0 = System.nanoTime();
        robot.clickOn("Stop");
        WorkbenchRobot.waitUntil(10, () -> !wb.model().commandConsole().busyProperty().get());
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 8000, "stopped before the command would have ended");
        ToolCard card = (ToolCard) wb.model().transcript().entries().stream().filter(e -> e instanceof ToolCard)
                .reduce((a, b) -> b).orElseThrow();
        assertFalse(ToolCard.RUNNING.equals(card.statusProperty().get()));
    }
}
