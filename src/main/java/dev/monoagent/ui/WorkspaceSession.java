package dev.monoagent.ui;

import dev.monoagent.agent.Instance;
import dev.monoagent.agent.InstanceHandler;
import dev.monoagent.agent.InstanceStatus;
import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ToolCallReply;
import dev.monoagent.agent.StartOptions;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.ui.port.EngineSandbox;
import dev.monoagent.ui.port.ToolsRunner;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * One workspace opened from the start page, in the start page's window: the service core for the folder, the
 * workspace's instance lock and control endpoint (so {@code mono-agent status|stop} in a terminal see it), the engine,
 * the tools and the workbench. Closing it releases all of them, so switching workspace re-opens the service core for
 * the next folder. A folder already open in another process is refused (that window is raised instead).
 */
final class WorkspaceSession implements AutoCloseable {
    private final AgentService services;
    private final Instance instance;
    private final Workbench workbench;

    private WorkspaceSession(AgentService services, Instance instance, Workbench workbench) {
        this.services = services;
        this.instance = instance;
        this.workbench = workbench;
    }

    static WorkspaceSession open(Stage stage, Path folder, FxTaskExecutor executor, DialogService dialogs,
                                 Runnable onStop) throws Exception {
        StartOptions options = new StartOptions(folder, folder.resolve(ConfigLoader.CONFIG_FILE), true, false,
                List.of());
        AgentService services = AgentService.open(options, executor.core());
        String startedAt = Instant.now().toString();
        InstanceHandler handler = new InstanceHandler() {
            @Override
            public InstanceStatus status() {
                return services.instanceStatus(startedAt, "window");
            }

            @Override
            public void focus() {
                Platform.runLater(() -> {
                    stage.setIconified(false);
                    stage.toFront();
                });
            }

            @Override
            public void stop() {
                services.stopOpenRuns();
                Platform.runLater(onStop);
            }

            @Override
            public ToolCallReply callTool(String name, String argsJson, String runId) {
                return services.callTool(name, argsJson, runId);
            }

            @Override
            public dev.monoagent.agent.AgentService agentService() {
                return services;
            }
        };
        Instance.Acquisition acq = Instance.acquire(options.workspace(), handler, executor.background());
        if (acq instanceof Instance.AlreadyRunning running) {
            services.close();
            throw new IllegalStateException("it is already open in another mono-agent window"
                    + running.status().map(s -> " (pid " + s.pid() + ")").orElse("") + "; switch to that one");
        }
        Instance instance = ((Instance.Acquired) acq).instance();
        WorkbenchApp.askAboutWorkspaceSettings(services, dialogs);
        services.openEngine();
        Workbench wb = Workbench.open(stage, services.workspace(), new EngineSandbox(services),
                new ToolsRunner(services), new dev.monoagent.ui.port.ServiceAgent(services), executor, dialogs, true,
                WindowState.forUser());
        return new WorkspaceSession(services, instance, wb);
    }

    Workbench workbench() {
        return workbench;
    }

    @Override
    public void close() {
        workbench.close();
        services.close();
        try {
            instance.close();
        } catch (Exception e) {
            System.getLogger(WorkspaceSession.class.getName()).log(System.Logger.Level.WARNING,
                    "releasing the instance: " + e.getMessage());
        }
    }
}
