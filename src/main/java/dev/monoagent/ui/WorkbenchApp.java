package dev.monoagent.ui;

import dev.monoagent.agent.AgentService;
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
    record Context(AgentService services, FxTaskExecutor executor, WorkbenchFrontend.Bridge bridge) {}

    static volatile Context CONTEXT;

    private Workbench workbench;

    @Override
    public void start(Stage stage) {
        FxDialogService dialogs = new FxDialogService(stage);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.getLogger(WorkbenchApp.class.getName()).log(System.Logger.Level.ERROR, "uncaught in " + t, e);
            Platform.runLater(() -> dialogs.showError("Unexpected error", e));
        });
        Context ctx = CONTEXT;
        AgentService services = ctx.services();
        askAboutWorkspaceSettings(services, dialogs);
        services.openEngine();
        EngineSandbox engine = new EngineSandbox(services);
        ToolsRunner tools = new ToolsRunner(services);
        workbench = Workbench.open(stage, services.workspace(), engine, tools,
                new dev.monoagent.ui.port.ServiceAgent(services), ctx.executor(), dialogs, true,
                WindowState.forUser());
        ctx.bridge().attach(stage);
        AppIcons.apply(stage);
        stage.show();
        ReadyProbe.shown();
    }

    /**
     * Settings that arrived with the workspace and wait for the reviewer (they would widen the sandbox, send a
     * credential or become instructions) are listed in a dialog once, on open, before the engine starts. Accepted,
     * they are recorded outside the workspace and take effect; kept ignored, the window opens with the safe values and
     * the sandbox panel keeps saying what was ignored.
     */
    static void askAboutWorkspaceSettings(AgentService services, DialogService dialogs) {
        dev.monoagent.config.WorkspaceTrust trust = services.config().trust();
        if (trust.settled()) {
            return;
        }
        StringBuilder details = new StringBuilder("This repository's own files ask for settings that are not in "
                + "effect until you accept them:\n");
        trust.pending().forEach(i -> details.append("- ").append(i.line()).append('\n'));
        details.append("\nIf you did not write these, the repository did. Keep them ignored to open the workspace "
                + "with the safe values (you can accept later with mono-agent trust).");
        if (!dialogs.confirmWeaker("Settings from this repository wait for you", details.toString(),
                "Accept these settings")) {
            return;
        }
        try {
            services.acceptWorkspaceSettings();
        } catch (java.io.IOException | dev.monoagent.config.ConfigException | RuntimeException e) {
            dialogs.showError("Could not accept the workspace settings", e);
        }
    }

    @Override
    public void stop() {
        if (workbench != null) {
            workbench.close();
        }
    }
}
