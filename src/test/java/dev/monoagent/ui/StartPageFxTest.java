package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.RecentWorkspaces;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.Scaffold;
import dev.monoagent.sandbox.TestEngine;
import dev.monoagent.ui.model.StartPageModel;
import dev.monoagent.ui.port.LocalWorkspaces;
import dev.monoagent.ui.task.FxTaskExecutor;
import dev.monoagent.ui.view.StartPageView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The start page, headless on Monocle, driven like a reviewer who started the app from the menu: a recent workspace
 * opens with one click; "Open folder…" on a folder without a config offers "Set up for review", refuses a malformed
 * model, then writes the code-sandbox config with the chosen model, installs and proves the real sandbox (16 probes,
 * streamed into the progress list) and opens the workspace. Opening is recorded instead of building a workbench.
 */
@ExtendWith(ApplicationExtension.class)
class StartPageFxTest {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    @TempDir
    static Path tmp;

    private final List<Path> opened = new CopyOnWriteArrayList<>();
    private final AtomicReference<Path> chooserAnswer = new AtomicReference<>();
    private RecentWorkspaces recent;
    private Path configured;
    private FxTaskExecutor executor;

    private static dev.monoagent.host.HostEnv host;

    /** The engine install takes longer than TestFX allows a @Start method: do it first, off the FX thread. */
    @BeforeAll
    static void engine() {
        host = TestEngine.env();
    }

    @Start
    void start(Stage stage) throws Exception {
        Path root = Files.createTempDirectory(tmp, "start");
        configured = Files.createDirectories(root.resolve("reviewed-repo"));
        Scaffold.apply(Scaffold.plan(new Scaffold.Request(configured, "openai-codex:gpt-5.6-terra", null,
                "code-sandbox", null, false)));
        recent = new RecentWorkspaces(root.resolve("config"));
        recent.opened(configured);
        executor = new FxTaskExecutor();
        LocalWorkspaces port = new LocalWorkspaces(recent, Map.of(), host, opened::add);
        StartPageModel model = new StartPageModel(port, executor);
        StartPageView view = new StartPageView(model, () -> Optional.ofNullable(chooserAnswer.get()));
        stage.setScene(new Scene(view, 960, 600));
        model.load(null);
        stage.show();
    }

    @AfterEach
    void tearDown() {
        executor.shutdown();
        WorkbenchRobot.closeStages();
    }

    @Test
    void recentWorkspaceOpensWithOneClick(FxRobot robot) {
        ListView<Path> list = robot.lookup("#recentList").queryAs(ListView.class);
        assertEquals(List.of(configured), list.getItems());
        robot.clickOn(robot.lookup(".list-cell").nth(0).queryAs(Node.class));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(label(robot, "#folderLabel").contains("Set up: it has a mono-agent.config.json"));
        assertFalse(robot.lookup("#setUpRow").query().isVisible(), "a configured folder is not set up again");
        robot.clickOn("#openButton");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(List.of(configured), opened);
    }

    @Test
    void folderWithoutConfigIsSetUpForReviewThenOpened(FxRobot robot) throws Exception {
        Path fresh = Files.createDirectories(tmp.resolve("fresh-repo-" + System.nanoTime()));
        Files.writeString(fresh.resolve(".env"), "TOKEN=secret\n");
        chooserAnswer.set(fresh);
        robot.clickOn("#openFolder");
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(label(robot, "#folderLabel").contains("Not set up for review yet"), label(robot, "#folderLabel"));
        assertFalse(robot.lookup("#openButton").query().isVisible(), "nothing to open before it is set up");

        ComboBox<String> box = robot.lookup("#modelBox").queryAs(ComboBox.class);
        robot.interact(() -> box.getEditor().setText("no-colon-here"));
        robot.clickOn("#setUpButton");
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(label(robot, "#errorLabel").contains("not a valid runtime model reference"),
                label(robot, "#errorLabel"));
        assertFalse(Files.exists(fresh.resolve(ConfigLoader.CONFIG_FILE)), "a refused model writes nothing");

        robot.interact(() -> box.getEditor().setText("anthropic:claude-sonnet-4-5"));
        robot.clickOn("#setUpButton");
        WorkbenchRobot.waitUntil(180, () -> !opened.isEmpty() || !label(robot, "#errorLabel").isEmpty());
        ListView<String> progress = robot.lookup("#progressList").queryAs(ListView.class);
        String lines = String.join("\n", progress.getItems());
        assertEquals(List.of(fresh), opened, label(robot, "#errorLabel") + "\n" + lines);
        long ok = progress.getItems().stream().filter(l -> l.startsWith("[ok]")).count();
        assertTrue(ok >= 16, "every probe of the full self-check streamed: " + lines);
        assertTrue(lines.contains("Sandbox ready: " + ok + " probes passed."), lines);
        String cfg = Files.readString(fresh.resolve(ConfigLoader.CONFIG_FILE));
        assertTrue(cfg.contains("anthropic:claude-sonnet-4-5"), cfg);
        assertTrue(cfg.contains("\"localhost\""), "the code-sandbox preset's network mode: " + cfg);
        assertEquals(fresh, recent.list().get(0), "the opened workspace leads the recent list");
    }

    @Test
    void folderWithABrokenConfigSaysWhichFieldAndDoesNotOpen(FxRobot robot) throws Exception {
        Path broken = Files.createDirectories(tmp.resolve("broken-repo-" + System.nanoTime()));
        Files.writeString(broken.resolve(ConfigLoader.CONFIG_FILE), "{\"sandbox\": {\"mode\": \"offf\"}}\n");
        chooserAnswer.set(broken);
        robot.clickOn("#openFolder");
        WaitForAsyncUtils.waitForFxEvents();
        String err = label(robot, "#errorLabel");
        assertTrue(err.contains("sandbox.mode"), "the error names the field: " + err);
        robot.clickOn("#openButton");
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(opened.isEmpty(), "a workspace whose config does not load is not opened");
        assertTrue(label(robot, "#errorLabel").contains("sandbox.mode"), label(robot, "#errorLabel"));
    }

    private static String label(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(Label.class).getText();
    }
}
