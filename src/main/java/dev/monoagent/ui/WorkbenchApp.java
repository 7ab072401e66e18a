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
        if (!policyAccepted(services, dialogs)) {
            Platform.exit();
            return;
        }
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
     * A policy weaker than the one last accepted for this workspace is applied only after the human confirms it in a
     * dialog that lists each widening (issue 9 item 1); refused, the window does not open. Either way it is logged.
     */
    static boolean policyAccepted(AgentService services, DialogService dialogs) {
        dev.monoagent.sandbox.Policy pol = dev.monoagent.sandbox.Sandbox.policyFor(services.config(),
                dev.monoagent.sandbox.HostEnv.detect());
        dev.monoagent.sandbox.PolicyBaseline.Decision d = dev.monoagent.sandbox.PolicyBaseline.check(pol);
        try {
            if (d instanceof dev.monoagent.sandbox.PolicyBaseline.Decision.Weaker w) {
                boolean yes = dialogs.confirmWeaker("The sandbox policy is weaker than the one you last accepted",
                        "Changes that grant the agent more:\n- " + String.join("\n- ", w.weaker())
                                + "\n\nIf you did not make this change, the agent may have. Keep it refused to "
                                + "start nothing.", "Accept the weaker policy");
                if (!yes) {
                    dev.monoagent.sandbox.PolicyBaseline.refused(pol, w, "refused", e -> { });
                    return false;
                }
            }
            dev.monoagent.sandbox.PolicyBaseline.accept(pol, d, switch (d) {
                case dev.monoagent.sandbox.PolicyBaseline.Decision.Weaker w -> "dialog";
                case dev.monoagent.sandbox.PolicyBaseline.Decision.Stronger st -> "stronger";
                case dev.monoagent.sandbox.PolicyBaseline.Decision.Same sm -> "first use";
            }, e -> { });
            return true;
        } catch (java.io.IOException e) {
            dialogs.showError("Could not record the accepted sandbox policy", e);
            return false;
        }
    }

    @Override
    public void stop() {
        if (workbench != null) {
            workbench.close();
        }
    }
}
