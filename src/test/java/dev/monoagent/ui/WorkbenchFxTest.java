package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.ui.model.ConsoleLine;
import dev.monoagent.ui.model.FileEntry;
import dev.monoagent.ui.model.ProbeRow;
import dev.monoagent.ui.model.ToolCard;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import dev.monoagent.ui.model.WorkbenchModel;
import javafx.scene.control.Labeled;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The real window, headless on Monocle, driven like a reviewer would: tree, Check, a denied write from the command
 * console, NodeRepl state, the engine going away. Runs against {@link FakeSandbox} until the engine facade is wired
 * into the workbench; the widget behaviour under test is the same.
 */
@ExtendWith(ApplicationExtension.class)
class WorkbenchFxTest {
    static {
        // Monocle's headless screen defaults to 1280x800; a window larger than the screen overflows its buffer
        System.setProperty("headless.geometry", "1280x800-32");
    }

    @TempDir
    static Path tmp;

    private Path ws;
    private FakeSandbox fake;
    private Workbench wb;
    private FxTaskExecutor executor;

    @Start
    void start(Stage stage) throws Exception {
        ws = Files.createTempDirectory(tmp, "ws");
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n");
        Files.writeString(ws.resolve(".env"), "API_TOKEN=do-not-leak\n");
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/app.js"), "// entry\nconst port = 8080;\nconsole.log(`listening ${port}`);\n");
        Files.writeString(ws.resolve("README.md"), "# demo repo\n");
        Files.writeString(ws.resolve("package.json"), "{\n  \"name\": \"demo\",\n  \"version\": \"1.0.0\"\n}\n");
        fake = new FakeSandbox(ws);
        executor = new FxTaskExecutor();
        wb = Workbench.open(stage, ws, fake, fake, executor, new RecordingDialogs(), false, null);
        stage.setWidth(1280);
        stage.setHeight(800);
        stage.show();
    }

    @AfterEach
    void tearDown() {
        executor.shutdown();
        WorkbenchRobot.closeStages();
    }

    @Test
    void reviewerFlowAgainstTheSandbox(FxRobot robot) throws Exception {
        // tree: files with protected badges, no engine mount-point litter
        WorkbenchRobot.waitUntil(10, () -> WorkbenchRobot.rootNames(robot).contains("README.md"));
        Path litter = Files.createFile(ws.resolve(".bashrc"));
        Files.setPosixFilePermissions(litter, PosixFilePermissions.fromString("r--r--r--"));
        robot.interact(() -> wb.model().tree().onChanges(List.of(litter)));
        WaitForAsyncUtils.waitForFxEvents();
        Thread.sleep(200);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(List.of(".git", "src", ".env", "package.json", "README.md"), WorkbenchRobot.rootNames(robot));
        TreeView<FileEntry> tree = robot.lookup("#repo-tree").queryAs(TreeView.class);
        TreeItem<FileEntry> git = tree.getRoot().getChildren().get(0);
        robot.interact(() -> git.setExpanded(true));
        WorkbenchRobot.waitUntil(10, () -> git.getChildren().size() == 2 && git.getChildren().get(0).getValue().size() != -2
                && !git.getChildren().get(0).getValue().name().equals("loading…"));
        assertEquals(List.of("hooks", "config"), git.getChildren().stream().map(i -> i.getValue().name()).toList());
        assertTrue(git.getChildren().stream().allMatch(i -> i.getValue().protectedPath()));
        // the whole .git is read-only to the agent, so .git itself carries a badge too
        assertEquals(4, robot.lookup(".protected-badge").queryAll().size(), "badges on .git, .env, .git/config, hooks");

        // Check: every probe row, badge ENFORCING
        robot.clickOn("#sandbox-check");
        ListView<ProbeRow> probes = robot.lookup("#probe-list").queryAs(ListView.class);
        try {
            WorkbenchRobot.waitUntil(10, () -> probes.getItems().size() == FakeSandbox.PROBES.size()
                    && !wb.model().sandbox().runningProperty().get());
        } catch (java.util.concurrent.TimeoutException e) {
            javafx.scene.control.Button b = robot.lookup("#sandbox-check").queryAs(javafx.scene.control.Button.class);
            throw new AssertionError("DIAG probes=" + probes.getItems().size() + " running="
                    + wb.model().sandbox().runningProperty().get() + " disabled=" + b.isDisabled() + " bounds="
                    + b.localToScreen(b.getBoundsInLocal()) + " windows=" + javafx.stage.Window.getWindows().stream()
                    .map(w -> w.getClass().getSimpleName() + "@" + w.getX() + "," + w.getY() + " " + w.getWidth()
                            + "x" + w.getHeight() + " showing=" + w.isShowing()).toList()
                    + " recorded=" + fake.lastCheck(), e);
        }
        Label badge = robot.lookup("#sandbox-badge").queryAs(Label.class);
        assertTrue(badge.getText().startsWith("Sandbox: ENFORCING (verified "), badge.getText());
        assertTrue(badge.getStyleClass().contains("badge-enforcing"));

        // denied write from the command console → violation row → transcript card links to it
        WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "echo x >> .env");
        TableView<Violation> table = robot.lookup("#violations-table").queryAs(TableView.class);
        WorkbenchRobot.waitUntil(10, () -> table.getItems().size() == 1);
        Violation v = table.getItems().get(0);
        assertEquals(".env", v.target());
        ToolCard card = wb.model().transcript().card(v.callId());
        assertEquals(List.of(v), card.violations());
        robot.interact(() -> table.getSelectionModel().select(0));
        robot.clickOn("#violation-jump");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(WorkbenchModel.Tab.TRANSCRIPT, wb.model().tabProperty().get());
        ListView<Object> transcript = robot.lookup("#transcript").queryAs(ListView.class);
        assertEquals(card, transcript.getSelectionModel().getSelectedItem());
        assertTrue(robot.lookup(".violation-marker").queryAll().stream()
                .anyMatch(n -> ((Labeled) n).getText().equals("write denied: .env")), "inline marker on the card");

        // allowed host-loopback traffic: its own list in the inspector, not a violation row
        fake.publish(new dev.monoagent.common.Event.NetworkAllowed(java.time.Instant.now(), null, v.callId(), "Bash",
                "curl http://127.0.0.1:5432/", "127.0.0.1", 5432, "postgres (pid 77)"));
        ListView<dev.monoagent.common.Event.NetworkAllowed> allowedList = robot.lookup("#allowed-traffic")
                .queryAs(ListView.class);
        WorkbenchRobot.waitUntil(10, () -> allowedList.getItems().size() == 1);
        assertEquals(1, table.getItems().size(), "allowed traffic is not a violation row");
        assertEquals(5432, allowedList.getItems().get(0).port());

        // NodeRepl: state persists
        WorkbenchRobot.runInConsole(robot, "NodeRepl", "#noderepl-input", "const n = 40");
        WorkbenchRobot.waitUntil(10, () -> !wb.model().replConsole().busyProperty().get()
                && wb.model().replConsole().history().size() == 1);
        WorkbenchRobot.runInConsole(robot, "NodeRepl", "#noderepl-input", "n + 2");
        WorkbenchRobot.waitUntil(10, () -> wb.model().replConsole().lines().stream().anyMatch(l -> l.text().equals("42")));

        robot.interact(() -> {
            try {
                Snapshots.writePng(wb.scene().getRoot(), screenshotPath());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertTrue(Files.size(screenshotPath()) > 10_000);

        // engine goes away: red badge, console fails closed
        fake.setAvailable(false);
        WorkbenchRobot.waitUntil(10, () -> badge.getText().startsWith("BLOCKED"));
        assertTrue(badge.getStyleClass().contains("badge-blocked"));
        WorkbenchRobot.runInConsole(robot, "Command console", "#bash-input", "echo hi");
        WorkbenchRobot.waitUntil(10, () -> wb.model().commandConsole().lines().stream()
                .anyMatch(l -> l.kind() == ConsoleLine.Kind.ERROR && l.text().startsWith("sandbox_prepare_failed")));
        ConsoleLine last = wb.model().commandConsole().lines().get(wb.model().commandConsole().lines().size() - 1);
        assertEquals("sandbox_prepare_failed: " + ExecOutcome.FAIL_CLOSED_TEXT, last.text());
        assertFalse(wb.model().commandConsole().busyProperty().get());
    }

    @Test
    void themeToggleSwapsStylesheets(FxRobot robot) {
        Theme before = wb.theme();
        robot.interact(wb::toggleTheme);
        assertEquals(before.other(), wb.theme());
        assertTrue(wb.scene().getStylesheets().get(1).endsWith(wb.theme() == Theme.DARK ? "dark.css" : "light.css"));
    }

    /** The fake-engine screenshot goes to target/; the README one is made by {@link WorkbenchEngineFxTest}. */
    static Path screenshotPath() {
        String base = System.getProperty("monoagent.projectDir", ".");
        return Path.of(base, "target", "screenshots", "workbench-fake.png");
    }

    /** Records instead of showing dialogs. */
    static final class RecordingDialogs implements DialogService {
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void showError(String title, Throwable error) {
            errors.add(error);
        }

        @Override
        public Optional<Path> askSaveFile(String title, String initialName) {
            return Optional.empty();
        }
    }
}
