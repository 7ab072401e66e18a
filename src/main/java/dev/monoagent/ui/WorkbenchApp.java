package dev.monoagent.ui;

import dev.monoagent.agent.ServiceLayer;
import dev.monoagent.ui.port.EngineSandbox;
import dev.monoagent.ui.port.ToolsRunner;
import dev.monoagent.ui.task.FxTaskExecutor;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * The JavaFX application of a windowed instance. Not a process entry point (the fat jar's main is
 * {@code cli.Main}); {@link WorkbenchFrontend} launches it after becoming the workspace's instance and hands it the
 * service layer and the one executor through {@link #CONTEXT}. The uncaught-exception handler is installed before
 * anything else, so a bug shows a dialog instead of killing the window.
 */
public final class WorkbenchApp extends Application {
    /** What the frontend hands to the application (JavaFX instantiates the class itself). */
    record Context(ServiceLayer services, FxTaskExecutor executor, WorkbenchFrontend.Bridge bridge) {}

    static volatile Context CONTEXT;

    private Workbench workbench;
    private EngineSandbox engine;
    private ToolsRunner tools;

    @Override
    public void start(Stage stage) {
        FxDialogService dialogs = new FxDialogService(stage);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.getLogger(WorkbenchApp.class.getName()).log(System.Logger.Level.ERROR, "uncaught in " + t, e);
            Platform.runLater(() -> dialogs.showError("Unexpected error", e));
        });
        Context ctx = CONTEXT;
        ServiceLayer services = ctx.services();
        engine = new EngineSandbox(services.config());
        tools = new ToolsRunner(services.config(), engine);
        workbench = Workbench.open(stage, services.workspace(), engine, tools, ctx.executor(), dialogs, true,
                WindowState.forUser());
        services.sandboxState(workbench.model()::sandboxSummary);
        ctx.bridge().attach(stage);
        stage.show();
    }

    @Override
    public void stop() {
        if (workbench != null) {
            workbench.close();
        }
        if (tools != null) {
            tools.close();
        }
        if (engine != null) {
            engine.close();
        }
    }
}
