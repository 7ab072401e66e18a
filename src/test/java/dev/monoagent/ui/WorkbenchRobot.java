package dev.monoagent.ui;

import dev.monoagent.ui.model.FileEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javafx.scene.control.TextArea;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The reviewer's gestures shared by the workbench window tests (fake engine and real engine). */
final class WorkbenchRobot {
    private WorkbenchRobot() {}

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

    /** Opens a console tab, types {@code text} into its input and presses Enter. */
    static void runInConsole(FxRobot robot, String tab, String inputId, String text) {
        robot.clickOn(tab);
        robot.clickOn(inputId);
        robot.interact(() -> robot.lookup(inputId).queryAs(TextArea.class).setText(text));
        robot.type(KeyCode.ENTER);
    }
}
