package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.RecentWorkspaces;
import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.host.HostEnv;
import dev.monoagent.ui.model.ConsoleLine;
import dev.monoagent.ui.model.StartPageModel;
import dev.monoagent.ui.port.EngineSandbox;
import dev.monoagent.ui.port.LocalWorkspaces;
import dev.monoagent.ui.port.ToolsRunner;
import dev.monoagent.ui.task.FxTaskExecutor;
import dev.monoagent.ui.view.StartPageView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;
import javafx.geometry.Bounds;
import javafx.geometry.Rectangle2D;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.IndexedCell;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.skin.TableColumnHeader;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * What a reviewer sees on a 1366×768 laptop (the window sized for that screen on first run), judged by node bounds and
 * by the glyphs the fonts have, never by screenshots; the workbench runs over the REAL engine and its console's real
 * denied writes.
 */
@Tag("screen-sizes")
@ExtendWith(ApplicationExtension.class)
class LaptopScreenFxTest {
    static {
        // the 1366×768 window must fit Monocle's one headless screen (the screen-sizes surefire execution)
        System.setProperty("headless.geometry", "1920x1080-32");
    }

    private static Path root;
    private static HostEnv env;

    private dev.monoagent.agent.AgentService service;

    private Stage stage;
    private Workbench wb;
    private FxTaskExecutor executor;
    private Preferences prefs;

    @BeforeAll
    static void realEngine() throws Exception {
        root = Files.createTempDirectory("mono-ui-laptop-").toRealPath();
        env = RealEngine.env(root);
    }

    @Start
    void start(Stage s) {
        stage = s;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (wb != null) {
            wb.close();
        }
        if (service != null) {
            service.close();
        }
        if (executor != null) {
            executor.shutdown();
        }
        if (prefs != null) {
            WaitForAsyncUtils.asyncFx(() -> {
                stage.hide();
                stage.setOnHiding(null);
            }).get(10, TimeUnit.SECONDS);
            prefs.removeNode();
        }
        WorkbenchRobot.closeStages();
    }

    @Test
    @SuppressWarnings("unchecked")
    void consoleViolationLinesUseOnlyGlyphsItsFontHas(FxRobot robot) throws Exception {
        openWorkbench(robot, "console-repo");
        deniedWrites(robot, 1);
        // every character of a violation line is one the console's font draws (no missing-glyph box)
        ListView<?> console = robot.lookup(".console-output").queryAllAs(ListView.class).stream()
                .filter(l -> l.getItems().stream().anyMatch(x -> ((ConsoleLine) x).kind() == ConsoleLine.Kind.VIOLATION))
                .findFirst().orElseThrow();
        List<Text> drawn = console.lookupAll(".line-violation").stream()
                .flatMap(c -> c.lookupAll(".text").stream()).filter(Text.class::isInstance).map(Text.class::cast)
                .filter(t -> t.getText() != null && !t.getText().isEmpty()).toList();
        assertTrue(!drawn.isEmpty(), "violation lines are drawn");
        for (Text t : drawn) {
            java.awt.Font awt = new java.awt.Font(t.getFont().getFamily(), java.awt.Font.PLAIN, 12);
            assertEquals(t.getFont().getFamily(), awt.getFamily(), "the console font is installed");
            int bad = awt.canDisplayUpTo(t.getText());
            assertEquals(-1, bad, "'" + t.getText() + "' has a character " + t.getFont().getFamily()
                    + " lacks (a missing-glyph box) at " + bad);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void inspectorShowsNewestRowsEveryColumnTheDetailAndAllowedTraffic(FxRobot robot) throws Exception {
        openWorkbench(robot, "inspector-repo");
        // more real denied writes than the inspector has room for, and more allowed connections
        TableView<Violation> table = deniedWrites(robot, 5);
        for (int i = 0; i < 6; i++) {
            Event.NetworkAllowed a = new Event.NetworkAllowed(Instant.now(), null, "call_allowed_" + i, "Bash",
                    "curl http://127.0.0.1:5432/", "127.0.0.1", 5432, "postgres (pid 7" + i + ")");
            robot.interact(() -> wb.model().violations().addAllowed(a));
        }
        WaitForAsyncUtils.waitForFxEvents();

        // the newest violation is in view, in the first row
        Violation newest = table.getItems().stream().max(Comparator.comparing(Violation::time)).orElseThrow();
        IndexedCell<?> newestRow = visibleRows(table).stream().filter(r -> r.getItem() == newest).findFirst()
                .orElseThrow(() -> new AssertionError("the newest violation is below the fold: " + visibleRows(table)
                        .stream().map(r -> String.valueOf(r.getItem())).toList()));
        assertEquals(newest, table.getItems().get(0), "newest first");

        // every column fits in the table: headers inside it, the call id drawn in full
        Bounds tb = table.localToScene(table.getLayoutBounds());
        for (Node n : table.lookupAll(".column-header")) {
            if (n instanceof TableColumnHeader h && h.getTableColumn() != null) {
                Bounds hb = h.localToScene(h.getLayoutBounds());
                assertTrue(hb.getMaxX() <= tb.getMaxX() + 0.5, "column " + h.getTableColumn().getText()
                        + " ends at " + hb.getMaxX() + ", the table at " + tb.getMaxX());
            }
        }
        // the short columns keep their words: time, tier, kind, tool and the call id are drawn in full
        for (TableCell<?, ?> cell : newestRow.lookupAll(".table-cell").stream().map(TableCell.class::cast).toList()) {
            String column = cell.getTableColumn().getText();
            if (List.of("Time", "Tier", "Kind", "Tool", "Call id").contains(column)) {
                assertEquals(cell.getText(), WorkbenchRobot.shownText(cell), column + " is elided at "
                        + cell.getWidth());
            }
        }
        assertTrue(newestRow.lookupAll(".table-cell").stream().map(TableCell.class::cast)
                .anyMatch(c -> newest.callId().equals(c.getText())), "a column shows the call id");

        // the selected row's detail is inside the window with room to read
        robot.interact(() -> table.getSelectionModel().select(newest));
        WaitForAsyncUtils.waitForFxEvents();
        TextArea detail = robot.lookup(".violation-detail").queryAs(TextArea.class);
        WorkbenchRobot.assertShownInFull(detail);
        assertTrue(detail.getText().contains(newest.callId()), detail.getText());
        // its short lines (not target, command, reason: free text that may scroll) fit the visible width
        javafx.scene.control.ScrollPane pane = (javafx.scene.control.ScrollPane) detail.lookup(".scroll-pane");
        double room = pane.getViewportBounds().getWidth();
        for (String line : detail.getText().split("\n")) {
            if (line.matches("(Time|Tier|Kind|Tool|Call|Run): .*")) {
                Text probe = new Text(line);
                probe.setFont(detail.getFont());
                assertTrue(probe.getLayoutBounds().getWidth() <= room, "detail line '" + line + "' is "
                        + probe.getLayoutBounds().getWidth() + " px wide, the detail shows " + room);
            }
        }

        // allowed traffic: at least three of its rows are in view
        ListView<Event.NetworkAllowed> allowed = robot.lookup("#allowed-traffic").queryAs(ListView.class);
        int shown = visibleRows(allowed).size();
        assertTrue(shown >= 3, shown + " allowed-traffic rows in view, list " + allowed.getLayoutBounds());
        WorkbenchRobot.assertShownInFull(robot.lookup("#allowed-traffic-title").queryAs(Label.class));
    }

    @Test
    void startPageRecentHeaderIsWholeAt1366x768(FxRobot robot) throws Exception {
        Path base = Files.createTempDirectory(root, "start");
        RecentWorkspaces recent = new RecentWorkspaces(base.resolve("config"));
        Path deep = Files.createDirectories(base.resolve("clients/acme-payments/services/settlement-gateway"
                + "/review-2026-q4-with-a-rather-long-folder-name"));
        recent.opened(deep);
        // a deep monorepo folder: its path alone is wider than the window
        Path fresh = Files.createDirectories(base.resolve("src/github.com/acme-corporation/payments-platform"
                + "/services/settlement-gateway/integrations/legacy-clearing-house-adapter/review-checkout-2026-q4"
                + "/packages/a-repository-that-is-not-set-up-for-review-yet"));
        executor = new FxTaskExecutor();
        StartPageModel model = new StartPageModel(new LocalWorkspaces(recent, Map.of(), env, p -> { }), executor);
        robot.interact(() -> {
            StartPageView view = new StartPageView(model, () -> Optional.of(fresh));
            Scene scene = new Scene(view, 1366, 768);
            Theme.LIGHT.apply(scene);
            stage.setScene(scene);
            model.load(null);
            stage.show();
        });
        robot.clickOn("#openFolder");
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#setUpRow").query().isVisible(), "the folder is offered for set-up");
        Label title = robot.lookup("#recentTitle").queryAs(Label.class);
        WorkbenchRobot.assertShownInFull(title);
        for (String id : List.of("#openFolder", "#setUpButton", "#modelBox")) {
            WorkbenchRobot.assertShownInFull(robot.lookup(id).query());
        }
        ListView<Path> list = robot.lookup("#recentList").queryAs(ListView.class);
        assertTrue(list.getWidth() >= 300, "the recent list keeps its width: " + list.getWidth());
    }

    /** Opens the workbench over a fresh workspace on a simulated 1366×768 screen, sized for it (first run). */
    private void openWorkbench(FxRobot robot, String name) throws Exception {
        Path ws = Files.createDirectories(root.resolve(name));
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n");
        Files.writeString(ws.resolve(".env"), "API_TOKEN=do-not-leak\n");
        Files.createDirectories(ws.resolve(".mono-agent"));
        service = dev.monoagent.agent.AgentService.of(RealEngine.config(ws), env);
        executor = new FxTaskExecutor();
        prefs = Preferences.userRoot().node("dev/monoagent/test/" + UUID.randomUUID());
        WindowState state = new WindowState(prefs, () -> List.of(new Rectangle2D(0, 0, 1366, 768)));
        robot.interact(() -> {
            wb = Workbench.open(stage, ws, new EngineSandbox(service), new ToolsRunner(service),
                    new dev.monoagent.ui.port.ServiceAgent(service), executor, new WorkbenchFxTest.RecordingDialogs(),
                    false, state);
            stage.show();
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(1366, stage.getWidth());
        assertEquals(768, stage.getHeight());
    }

    /** Runs {@code n} real denied writes from the command console; returns the violations table. */
    @SuppressWarnings("unchecked")
    private TableView<Violation> deniedWrites(FxRobot robot, int n) throws Exception {
        TableView<Violation> table = robot.lookup("#violations-table").queryAs(TableView.class);
        for (int i = 1; i <= n; i++) {
            WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "echo " + i + " >> .env");
            int rows = i;
            try {
                WorkbenchRobot.waitUntil(60, () -> table.getItems().size() >= rows
                        && !wb.model().commandConsole().busyProperty().get());
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("denied write " + i + ": rows " + table.getItems() + ", console "
                        + wb.model().commandConsole().lines().stream().map(ConsoleLine::text).toList(), e);
            }
        }
        return table;
    }

    /** The cells of {@code control} holding an item and lying wholly inside its bounds (what a reviewer sees). */
    private static List<IndexedCell<?>> visibleRows(javafx.scene.control.Control control) {
        Bounds v = control.localToScene(control.getLayoutBounds());
        return control.lookupAll(".indexed-cell").stream().filter(IndexedCell.class::isInstance)
                .<IndexedCell<?>>map(n -> (IndexedCell<?>) n)
                .filter(c -> c.isVisible() && !c.isEmpty() && c.getItem() != null
                        && (c.getStyleClass().contains("list-cell") || c.getStyleClass().contains("table-row-cell")))
                .filter(c -> {
                    Bounds b = c.localToScene(c.getLayoutBounds());
                    return b.getHeight() > 0 && b.getMinY() >= v.getMinY() - 0.5 && b.getMaxY() <= v.getMaxY() + 0.5;
                })
                .toList();
    }
}
