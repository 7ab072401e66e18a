package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.LoadedConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.ui.model.ProbeRow;
import dev.monoagent.ui.model.SandboxPanelModel;
import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.port.CheckReport;
import dev.monoagent.ui.port.EngineSandbox;
import dev.monoagent.ui.port.ToolsRunner;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;
import javafx.geometry.Rectangle2D;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The window on the screens reviewers have (a 1366×768 laptop, 1440×900, 1920×1080), over the REAL engine, opened the
 * way the application opens it (first run: {@link WindowState} sizes it for the screen). The Setup and Check buttons,
 * the sandbox state word, the status-bar badge and the prompt box must be inside the window and uncut, before and
 * after the engine is proven; on open, the probe list must hold the last self-check the port knows: for the first
 * window the one recorded in the engine's private cache (the engine is held closed until checked), later the proof
 * the open engine holds. One engine serves the three windows (proving it is the slow part). Writes the README
 * screenshots at 1366×768 and 1920×1080.
 */
@Tag("screen-sizes")
@ExtendWith(ApplicationExtension.class)
class WorkbenchLayoutFxTest {
    static {
        // the largest window these tests open must fit Monocle's one headless screen (its own surefire execution)
        System.setProperty("headless.geometry", "1920x1080-32");
    }

    private static HostEnv env;
    private static Path ws;
    private static EngineSandbox engine;
    private static ToolsRunner tools;
    private static dev.monoagent.agent.AgentService service;
    private static final CountDownLatch gate = new CountDownLatch(1);

    private Stage stage;
    private Workbench wb;
    private FxTaskExecutor executor;
    private Preferences prefs;

    @BeforeAll
    static void realEngine() throws Exception {
        Path root = Files.createTempDirectory("mono-ui-layout-").toRealPath();
        env = RealEngine.env(root);
        ws = workspace(root.resolve("demo-repo"));
        LoadedConfig cfg = RealEngine.config(ws);
        // the engine stays closed until the gate opens: what the first window shows meanwhile comes from the record
        service = dev.monoagent.agent.AgentService.withOpener(cfg, env, sink -> {
            try {
                gate.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Sandbox.open(cfg, sink, env);
        });
        engine = new EngineSandbox(service);
        tools = new ToolsRunner(service);
    }

    @AfterAll
    static void closeEngine() {
        gate.countDown();
        service.close();
    }

    @Start
    void start(Stage s) {
        stage = s;
    }

    @AfterEach
    void tearDown() throws Exception {
        gate.countDown();
        if (wb != null) {
            wb.close();
        }
        if (executor != null) {
            executor.shutdown();
        }
        if (prefs != null) {
            // hiding saves the window state; only then may the test's preferences go
            WaitForAsyncUtils.asyncFx(() -> {
            stage.hide();
            stage.setOnHiding(null);
        }).get(10, TimeUnit.SECONDS);
            prefs.removeNode();
        }
    }

    @ParameterizedTest(name = "{0}x{1}")
    @CsvSource({"1366, 768", "1440, 900", "1920, 1080"})
    void everythingThatProvesTheSandboxIsOnScreenAndUncut(int w, int h, FxRobot robot) throws Exception {
        boolean firstOpen = gate.getCount() > 0;
        CheckReport last = engine.lastCheck();
        assertTrue(last != null && !last.results().isEmpty(), "a self-check is recorded: " + last);
        if (firstOpen) {
            assertEquals(Sandbox.quickStatus(RealEngine.config(ws), env).probes(), last.results(),
                    "before the engine opens, the last check is the one recorded on disk");
        }
        executor = new FxTaskExecutor();
        prefs = Preferences.userRoot().node("dev/monoagent/test/" + UUID.randomUUID());
        Rectangle2D screen = new Rectangle2D(0, 0, w, h);
        WindowState state = new WindowState(prefs, () -> List.of(screen));
        robot.interact(() -> {
            wb = Workbench.open(stage, ws, engine, tools, new dev.monoagent.ui.port.ServiceAgent(service), executor,
                    new WorkbenchFxTest.RecordingDialogs(), false, state);
            stage.show();
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertWithin(screen);
        if (w > WindowState.FIRST_RUN_MAX_W) {
            // a big screen gets a moderate first-run window; the same must hold with it sized to the whole screen
            assertEquals(WindowState.FIRST_RUN_MAX_W, stage.getWidth());
            robot.interact(() -> {
                stage.setX(0);
                stage.setY(0);
                stage.setWidth(w);
                stage.setHeight(h);
            });
            WaitForAsyncUtils.waitForFxEvents();
        }
        assertEquals(w, stage.getWidth());
        assertEquals(h, stage.getHeight());
        assertFalse(wb.view().isCompact(), "the full sandbox panel fits at " + w);

        // on open: the last self-check's rows and its time (the record on disk while the engine is not open yet)
        ListView<ProbeRow> probes = robot.lookup("#probe-list").queryAs(ListView.class);
        WorkbenchRobot.waitUntil(20, () -> probes.getItems().size() == last.results().size());
        assertEquals(last.results().stream().map(p -> p.id() + " " + p.passed() + " " + p.detail()).toList(),
                probes.getItems().stream().map(r -> r.id() + " " + (r.state() == ProbeRow.State.PASS) + " "
                        + r.detail()).toList());
        Label proof = robot.lookup("#probe-status").queryAs(Label.class);
        String lastAt = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
                .withZone(java.time.ZoneId.systemDefault()).format(last.at());
        assertTrue(proof.getText().contains(lastAt), proof.getText());
        assertEquals(last.passed() ? SandboxPanelModel.Proof.PASSED : SandboxPanelModel.Proof.FAILED,
                wb.model().sandbox().proofProperty().get());
        if (firstOpen && last.passed()) {
            assertTrue(proof.getText().contains("proving the engine now"), proof.getText());
        }
        assertProofVisible();

        // the engine opens and proves itself: ENFORCING, rows from the engine, still nothing cut
        gate.countDown();
        Label badge = robot.lookup("#sandbox-badge").queryAs(Label.class);
        WorkbenchRobot.waitUntil(60, () -> badge.getText().startsWith("Sandbox: ENFORCING"));
        WorkbenchRobot.waitUntil(10, () -> proof.getText().startsWith("Passed at")
                && !proof.getText().contains("proving"));
        assertTrue(probes.getItems().size() >= 5 && probes.getItems().stream()
                .allMatch(p -> p.state() == ProbeRow.State.PASS), probes.getItems().toString());
        assertProofVisible();

        if (w == 1366 || w == 1920) {
            // a denied write so the screenshot shows what the workbench is for
            WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "echo x >> .env");
            WorkbenchRobot.waitUntil(30, () -> wb.model().violations().rows().stream()
                    .anyMatch(v -> v.target() != null && v.target().endsWith(".env")));
            robot.interact(() -> {
                wb.model().tabProperty().set(WorkbenchModel.Tab.TRANSCRIPT);
                wb.model().violations().select(wb.model().violations().rows().get(0));
            });
            WaitForAsyncUtils.waitForFxEvents();
            assertProofVisible();
            Path shot = screenshot("workbench-" + w + "x" + h + ".png");
            robot.interact(() -> {
                try {
                    Snapshots.writePng(wb.scene().getRoot(), shot);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertTrue(Files.size(shot) > 20_000, shot.toString());
        }
    }

    private void assertWithin(Rectangle2D screen) {
        String where = stage.getX() + "," + stage.getY() + " " + stage.getWidth() + "x" + stage.getHeight();
        assertTrue(stage.getX() >= screen.getMinX() && stage.getY() >= screen.getMinY()
                && stage.getX() + stage.getWidth() <= screen.getMaxX()
                && stage.getY() + stage.getHeight() <= screen.getMaxY(), where + " not within " + screen);
    }

    /** What a reviewer must always see, inside the window and uncut: the sandbox's proof and the prompt box. */
    private void assertProofVisible() {
        for (String id : List.of("#sandbox-setup", "#sandbox-check", "#sandbox-effective", "#sandbox-badge",
                "#prompt-box", "#prompt-send", "#prompt-stop", "#prompt-model", "#prompt-continue")) {
            Node n = wb.scene().lookup(id);
            WorkbenchRobot.assertShownInFull(n);
        }
    }

    /** README copies only on request ({@code -Dscreenshots.update=true}); target/ on every run. */
    private static Path screenshot(String name) {
        Path base = Path.of(System.getProperty("monoagent.projectDir", "."));
        return Boolean.getBoolean("screenshots.update") ? base.resolve("docs/screenshots/" + name)
                : base.resolve("target/screenshots/" + name);
    }

    private static Path workspace(Path dir) throws Exception {
        Path ws = Files.createDirectories(dir);
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n");
        Files.writeString(ws.resolve(".env"), "API_TOKEN=do-not-leak\n");
        Files.createDirectories(ws.resolve("src/main/resources"));
        Files.writeString(ws.resolve("src/app.js"), "const port = 8080;\n");
        Files.writeString(ws.resolve("README.md"), "# demo\n");
        Files.writeString(ws.resolve("IDENTITY.md"), "# who\n");
        Files.writeString(ws.resolve("deployment-credentials-rotation-runbook.md"), "# rotate\n");
        Files.createDirectories(ws.resolve(".mono-agent"));
        return ws;
    }
}
