package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.ui.model.SandboxPanelModel;
import dev.monoagent.ui.task.FxTaskExecutor;
import dev.monoagent.ui.view.SandboxPanelView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.prefs.Preferences;
import javafx.geometry.Rectangle2D;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.input.KeyCode;
import javafx.stage.Screen;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The window's size, place and keyboard, over the scripted engine: state saved on a bigger monitor opens fully on
 * the screen there is now (simulated laptop screen and the real headless one), a narrow screen gets the compact
 * sandbox strip with nothing cut, and a reviewer reaches every panel and runs Check and Setup without a mouse.
 */
@Tag("screen-sizes")
@ExtendWith(ApplicationExtension.class)
class WorkbenchWindowFxTest {
    static {
        // the largest window these tests open must fit Monocle's one headless screen (its own surefire execution)
        System.setProperty("headless.geometry", "1920x1080-32");
    }

    @TempDir
    static Path tmp;

    private Stage stage;
    private Workbench wb;
    private FakeSandbox fake;
    private FxTaskExecutor executor;
    private Preferences prefs;

    @Start
    void start(Stage s) {
        stage = s;
    }

    @AfterEach
    void tearDown() throws Exception {
        WaitForAsyncUtils.asyncFx(() -> {
            stage.hide();
            stage.setOnHiding(null);
        }).get(10, TimeUnit.SECONDS);
        if (executor != null) {
            executor.shutdown();
        }
        if (prefs != null) {
            prefs.removeNode();
        }
    }

    private void open(FxRobot robot, Supplier<List<Rectangle2D>> screens) throws Exception {
        Path ws = Files.createTempDirectory(tmp, "ws");
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".env"), "API_TOKEN=do-not-leak\n");
        Files.writeString(ws.resolve("README.md"), "# demo\n");
        fake = new FakeSandbox(ws);
        fake.record(FakeSandbox.report(Instant.now().minus(10, ChronoUnit.MINUTES), null));
        executor = new FxTaskExecutor();
        WindowState state = screens == null ? new WindowState(prefs) : new WindowState(prefs, screens);
        robot.interact(() -> {
            wb = Workbench.open(stage, ws, fake, fake, executor, new WorkbenchFxTest.RecordingDialogs(), false, state);
            stage.show();
        });
        WaitForAsyncUtils.waitForFxEvents();
        WorkbenchRobot.waitUntil(10, () -> wb.model().sandbox().snapshotProperty().get() != null
                && !wb.model().sandbox().probes().isEmpty());
    }

    /** Window state as a 2560×1440 monitor at x=1920 left it, splits pushed to the edges. */
    private void savedOnABiggerMonitor(double x, double y, double w, double h) {
        prefs = Preferences.userRoot().node("dev/monoagent/test/" + UUID.randomUUID());
        prefs.putDouble("x", x);
        prefs.putDouble("y", y);
        prefs.putDouble("w", w);
        prefs.putDouble("h", h);
        prefs.put("split-h", "0.02,0.99");
        prefs.put("split-v", "0.9");
    }

    private void assertOn(Rectangle2D screen) {
        String where = stage.getX() + "," + stage.getY() + " " + stage.getWidth() + "x" + stage.getHeight();
        assertTrue(stage.getX() >= screen.getMinX() && stage.getY() >= screen.getMinY()
                && stage.getX() + stage.getWidth() <= screen.getMaxX()
                && stage.getY() + stage.getHeight() <= screen.getMaxY(), where + " is not fully on " + screen);
    }

    private void assertProofVisible(String... ids) {
        for (String id : ids) {
            Node n = wb.scene().lookup(id);
            assertNotNull(n, id);
            WorkbenchRobot.assertShownInFull(n);
        }
    }

    @Test
    void stateFromABiggerMonitorOpensFullyOnALaptopScreen(FxRobot robot) throws Exception {
        savedOnABiggerMonitor(2100, 300, 2560, 1440);
        // a 1366×768 laptop whose panel takes 40 px at the bottom
        Rectangle2D laptop = new Rectangle2D(0, 0, 1366, 728);
        open(robot, () -> List.of(laptop));
        assertOn(laptop);
        assertEquals(1366, stage.getWidth());
        assertEquals(728, stage.getHeight());
        // the saved splits would squeeze the tree and the sandbox panel to nothing: minimum widths hold
        Node tree = wb.scene().lookup("#repo-tree");
        Node panel = wb.scene().lookup("#sandbox-panel");
        assertTrue(tree.getLayoutBounds().getWidth() >= 170, "tree " + tree.getLayoutBounds());
        assertTrue(panel.getLayoutBounds().getWidth() >= SandboxPanelView.MIN_WIDTH - 1, "panel "
                + panel.getLayoutBounds());
        assertProofVisible("#sandbox-setup", "#sandbox-check", "#sandbox-effective", "#sandbox-badge", "#prompt-box");
    }

    @Test
    void stateFromABiggerMonitorOpensFullyOnTheRealScreen(FxRobot robot) throws Exception {
        Rectangle2D screen = Screen.getPrimary().getVisualBounds();
        savedOnABiggerMonitor(screen.getMaxX() - 200, screen.getMinY() - 500, 3840, 2160);
        open(robot, null);
        assertOn(screen);
        assertEquals(screen.getWidth(), stage.getWidth());
        assertEquals(screen.getHeight(), stage.getHeight());
        assertProofVisible("#sandbox-setup", "#sandbox-check", "#sandbox-effective", "#sandbox-badge", "#prompt-box");
    }

    @Test
    void narrowScreenGetsTheCompactStripWithNothingCut(FxRobot robot) throws Exception {
        prefs = Preferences.userRoot().node("dev/monoagent/test/" + UUID.randomUUID());
        Rectangle2D small = new Rectangle2D(0, 0, 1024, 768);
        open(robot, () -> List.of(small));
        assertOn(small);
        assertTrue(wb.view().isCompact(), "the sandbox panel is a strip at 1024 px");
        assertProofVisible("#sandbox-setup", "#sandbox-check", "#sandbox-effective", "#sandbox-badge",
                "#sandbox-strip-badge", "#prompt-box");
        robot.interact(() -> {
            try {
                Snapshots.writePng(wb.scene().getRoot(), Path.of(System.getProperty("monoagent.projectDir", "."),
                        "target", "screenshots", "workbench-1024x768-compact.png"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // widening the window brings the full panel back, probes included
        robot.interact(() -> stage.setWidth(1366));
        WaitForAsyncUtils.waitForFxEvents();
        assertFalse(wb.view().isCompact());
        assertProofVisible("#sandbox-setup", "#sandbox-check", "#sandbox-effective", "#probe-list");
    }

    @Test
    void everyPanelAndBothButtonsWorkFromTheKeyboard(FxRobot robot) throws Exception {
        prefs = Preferences.userRoot().node("dev/monoagent/test/" + UUID.randomUUID());
        open(robot, () -> List.of(new Rectangle2D(0, 0, 1366, 768)));
        robot.interact(() -> wb.view().focusTree());
        List<String> reached = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            robot.push(KeyCode.F6);
            WaitForAsyncUtils.waitForFxEvents();
            reached.add(panelOf(wb.scene().getFocusOwner()));
        }
        assertTrue(reached.containsAll(List.of("tabs", "sandbox-panel", "violations", "status-bar", "tree")),
                "F6 reaches every panel: " + reached);

        // F6 into the sandbox panel lands on Setup; Tab to Check; Space runs it
        while (!"sandbox-panel".equals(panelOf(wb.scene().getFocusOwner()))) {
            robot.push(KeyCode.F6);
            WaitForAsyncUtils.waitForFxEvents();
        }
        Button setup = robot.lookup("#sandbox-setup").queryAs(Button.class);
        Button check = robot.lookup("#sandbox-check").queryAs(Button.class);
        assertEquals(setup, wb.scene().getFocusOwner());
        robot.push(KeyCode.TAB);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(check, wb.scene().getFocusOwner());
        assertTrue(check.getBorder() != null && !check.getBorder().getStrokes().isEmpty(), "focus is drawn");
        Instant before = wb.model().sandbox().shownCheckProperty().get().at();
        robot.push(KeyCode.SPACE);
        WorkbenchRobot.waitUntil(10, () -> !wb.model().sandbox().runningProperty().get()
                && wb.model().sandbox().shownCheckProperty().get() != null
                && wb.model().sandbox().shownCheckProperty().get().at().isAfter(before));
        assertEquals(SandboxPanelModel.Proof.PASSED, wb.model().sandbox().proofProperty().get());

        // Setup by its shortcut, from anywhere
        robot.interact(() -> wb.view().focusTree());
        Instant afterCheck = wb.model().sandbox().shownCheckProperty().get().at();
        robot.press(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.S).release(KeyCode.S, KeyCode.SHIFT, KeyCode.CONTROL);
        WorkbenchRobot.waitUntil(10, () -> !wb.model().sandbox().runningProperty().get()
                && wb.model().sandbox().shownCheckProperty().get() != null
                && wb.model().sandbox().shownCheckProperty().get().at().isAfter(afterCheck));
        assertTrue(wb.model().sandbox().stepProperty().get().startsWith("All "), wb.model().sandbox()
                .stepProperty().get());
    }

    /** Which panel holds {@code n}: the id of the nearest known ancestor. */
    private static String panelOf(Node n) {
        for (Node p = n; p != null; p = p.getParent()) {
            if (p.getStyleClass().contains("tab-pane")) {
                return "tabs";
            }
            if (p.getStyleClass().contains("status-bar")) {
                return "status-bar";
            }
            if (p.getStyleClass().contains("tree-pane")) {
                return "tree";
            }
            if ("sandbox-panel".equals(p.getId()) || "violations".equals(p.getId())) {
                return p.getId();
            }
        }
        return String.valueOf(n);
    }
}
