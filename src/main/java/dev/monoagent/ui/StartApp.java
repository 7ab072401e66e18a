package dev.monoagent.ui;

import dev.monoagent.agent.RecentWorkspaces;
import dev.monoagent.agent.UserDirs;
import dev.monoagent.host.HostEnv;
import dev.monoagent.ui.model.StartPageModel;
import dev.monoagent.ui.port.LocalWorkspaces;
import dev.monoagent.ui.task.FxTaskExecutor;
import dev.monoagent.ui.view.StartPageView;
import java.io.File;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.stage.DirectoryChooser;
import javafx.stage.Stage;

/**
 * The window started without a workspace: shows the start page, then the chosen workspace's workbench in the same
 * window. {@code Ctrl+Shift+O} in the workbench closes the workspace (its service core, engine and instance) and
 * returns to the start page, so another folder can be opened without a terminal.
 */
public final class StartApp extends Application {
    /** What the frontend hands to the application (JavaFX instantiates the class itself). */
    record Context(Path suggested, Map<String, String> env) {}

    static volatile Context CONTEXT;

    private final FxTaskExecutor executor = new FxTaskExecutor();
    private WorkspaceSession session;
    private Stage stage;
    private Scene startScene;
    private StartPageModel model;

    @Override
    public void start(Stage primary) {
        stage = primary;
        FxDialogService dialogs = new FxDialogService(stage);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.getLogger(StartApp.class.getName()).log(System.Logger.Level.ERROR, "uncaught in " + t, e);
            Platform.runLater(() -> dialogs.showError("Unexpected error", e));
        });
        Context ctx = CONTEXT;
        Map<String, String> env = ctx == null ? HostEnv.detect().hostEnv() : ctx.env();
        LocalWorkspaces port = new LocalWorkspaces(new RecentWorkspaces(UserDirs.configDir(env)), env,
                HostEnv.from(env), folder -> switchTo(folder, dialogs));
        model = new StartPageModel(port, executor);
        StartPageView view = new StartPageView(model, () -> {
            DirectoryChooser chooser = new DirectoryChooser();
            chooser.setTitle("Open a repository to review");
            return Optional.ofNullable(chooser.showDialog(stage)).map(File::toPath);
        });
        startScene = new Scene(view, 960, 600);
        WindowState.forUser().theme().apply(startScene);
        stage.setTitle("mono-agent");
        AppIcons.apply(stage);
        stage.setScene(startScene);
        model.load(ctx == null ? null : ctx.suggested());
        stage.show();
        ReadyProbe.shown();
    }

    private void switchTo(Path folder, DialogService dialogs) throws Exception {
        closeSession();
        session = WorkspaceSession.open(stage, folder, executor, dialogs, this::backToStart);
        session.workbench().scene().getAccelerators().put(new KeyCodeCombination(KeyCode.O,
                KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN), this::backToStart);
    }

    /** Closes the open workspace and shows the start page again. */
    void backToStart() {
        closeSession();
        stage.setTitle("mono-agent");
        stage.setScene(startScene);
        model.load(null);
    }

    private void closeSession() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    @Override
    public void stop() {
        closeSession();
        executor.shutdown();
    }
}
