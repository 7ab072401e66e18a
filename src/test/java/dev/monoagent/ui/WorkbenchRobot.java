package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.ui.model.FileEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Labeled;
import javafx.scene.control.TextArea;
import javafx.scene.text.Text;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The reviewer's gestures shared by the workbench window tests (fake engine and real engine). */
final class WorkbenchRobot {
    private WorkbenchRobot() {}

    /**
     * Opens and shows a 1280×800 window on {@code stage} with no sandbox engine (its tools fail closed) and the given
     * agent port: for the tests and benchmarks of the window itself (FX thread).
     */
    static Workbench openWithoutEngine(javafx.stage.Stage stage, java.nio.file.Path ws,
                                       dev.monoagent.ui.port.AgentPort agent,
                                       dev.monoagent.ui.task.FxTaskExecutor ex) {
        Workbench wb = Workbench.open(stage, ws, new dev.monoagent.ui.port.UnavailableSandbox(
                        dev.monoagent.ui.port.PolicyFactory.defaults(ws), "no engine"),
                dev.monoagent.ui.port.UnavailableSandbox.tools(), agent, ex, new WorkbenchFxTest.RecordingDialogs(),
                false, null);
        stage.setWidth(1280);
        stage.setHeight(800);
        stage.show();
        return wb;
    }

    /**
     * Hides every stage a test showed. The FX tests share one JVM and one headless screen: a stage left showing by an
     * earlier class sits over the next test's window and swallows its robot clicks (seen as a Check that never ran).
     */
    static void closeStages() {
        try {
            org.testfx.api.FxToolkit.cleanupStages();
        } catch (TimeoutException e) {
            throw new AssertionError("stages did not close", e);
        }
    }

    static void waitUntil(int seconds, BooleanSupplier cond) throws TimeoutException {
        WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, cond::getAsBoolean);
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** Names of the repo tree's top-level entries as shown. */
    @SuppressWarnings("unchecked")
    static List<String> rootNames(FxRobot robot) {
        TreeView<FileEntry> tree = robot.lookup("#repo-tree").queryAs(TreeView.class);
        List<String> names = new ArrayList<>();
        for (TreeItem<FileEntry> c : tree.getRoot().getChildren()) {
            names.add(c.getValue().name());
        }
        return names;
    }

    /**
     * Fails unless {@code node} is shown, inside the window and uncut: it and its parents are visible, its bounds lie
     * within the scene and within every ancestor's bounds (so no scroll viewport or split pane clips it), and when it
     * is a {@link Labeled}, the text drawn equals its text (nothing elided).
     */
    static void assertShownInFull(Node node) {
        Scene scene = node.getScene();
        assertNotNull(scene, node + " is not in the window");
        Bounds b = node.localToScene(node.getLayoutBounds());
        String what = (node.getId() == null ? node.toString() : "#" + node.getId()) + " " + b;
        assertTrue(b.getWidth() > 0 && b.getHeight() > 0, what + " has no size");
        assertTrue(b.getMinX() >= -0.5 && b.getMinY() >= -0.5 && b.getMaxX() <= scene.getWidth() + 0.5
                && b.getMaxY() <= scene.getHeight() + 0.5, what + " is outside the window " + scene.getWidth() + "x"
                + scene.getHeight());
        for (Node n = node; n != null; n = n.getParent()) {
            assertTrue(n.isVisible(), what + ": " + n + " is hidden");
            Bounds a = n.localToScene(n.getLayoutBounds());
            assertTrue(b.getMinX() >= a.getMinX() - 0.5 && b.getMinY() >= a.getMinY() - 0.5
                    && b.getMaxX() <= a.getMaxX() + 0.5 && b.getMaxY() <= a.getMaxY() + 0.5,
                    what + " is cut by its ancestor " + n + " " + a);
        }
        if (node instanceof Labeled l) {
            assertEquals(l.getText(), shownText(l), what + " is elided");
        }
    }

    /** The text a label or button actually draws (its skin's text node), with any ellipsis. */
    static String shownText(Labeled l) {
        for (Node c : l.getChildrenUnmodifiable()) {
            if (c instanceof Text t && c != l.getGraphic() && c.getStyleClass().contains("text")) {
                return t.getText();
            }
        }
        return null;
    }

    /** Opens a console tab, types {@code text} into its input and presses Enter. */
    static void runInConsole(FxRobot robot, String tab, String inputId, String text) {
        robot.clickOn(tab);
        robot.clickOn(inputId);
        robot.interact(() -> robot.lookup(inputId).queryAs(TextArea.class).setText(text));
        robot.type(KeyCode.ENTER);
    }
}
