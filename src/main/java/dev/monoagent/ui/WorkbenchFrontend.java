package dev.monoagent.ui;

import dev.monoagent.agent.ControlEndpoint;
import dev.monoagent.agent.Frontend;
import dev.monoagent.agent.Instance;
import dev.monoagent.agent.InstanceHandler;
import dev.monoagent.agent.InstanceStatus;
import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ToolCallReply;
import dev.monoagent.agent.StartOptions;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.time.Instant;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * The windowed instance (registered for {@code ServiceLoader} under {@code dev.monoagent.agent.Frontend}): becomes the
 * workspace's instance, serves the control endpoint on the one executor, and runs the JavaFX application until the
 * window closes or {@code mono-agent stop} arrives. {@code focus} raises the window.
 */
public final class WorkbenchFrontend implements Frontend {

    /** Lets the control endpoint reach the window once it exists. */
    static final class Bridge {
        private volatile Stage stage;

        void attach(Stage s) {
            stage = s;
        }

        void focus() {
            Platform.runLater(() -> {
                Stage s = stage;
                if (s != null) {
                    s.setIconified(false);
                    s.toFront();
                    s.requestFocus();
                }
            });
        }

        void stop() {
            Platform.runLater(() -> {
                Stage s = stage;
                if (s != null) {
                    s.close();
                }
                Platform.exit();
            });
        }
    }

    @Override
    public String kind() {
        return "window";
    }

    @Override
    public int run(StartOptions options) throws Exception {
        FxTaskExecutor executor = new FxTaskExecutor();
        AgentService services = AgentService.open(options, executor.core());
        Bridge bridge = new Bridge();
        String startedAt = Instant.now().toString();
        InstanceHandler handler = new InstanceHandler() {
            @Override
            public InstanceStatus status() {
                return services.instanceStatus(startedAt, kind());
            }

            @Override
            public void focus() {
                bridge.focus();
            }

            @Override
            public void stop() {
                services.stopOpenRuns();
                bridge.stop();
            }

            @Override
            public ToolCallReply callTool(String name, String argsJson, String runId) {
                return services.callTool(name, argsJson, runId);
            }

            @Override
            public dev.monoagent.agent.AgentService agentService() {
                return services;
            }

            @Override
            public InstanceStatus recheck() {
                services.recheck();
                return services.instanceStatus(startedAt, kind());
            }
        };
        Instance.Acquisition acq = Instance.acquire(options.workspace(), handler, executor.background());
        if (acq instanceof Instance.AlreadyRunning) {
            executor.shutdown();
            services.close();
            return 1;
        }
        try (Instance instance = ((Instance.Acquired) acq).instance(); services) {
            WorkbenchApp.CONTEXT = new WorkbenchApp.Context(services, executor, bridge);
            try {
                Application.launch(WorkbenchApp.class);
            } catch (RuntimeException e) {
                throw new IllegalStateException("Cannot open the workbench window: " + e.getMessage()
                        + " (start with --headless on a machine without a display)", e);
            }
            return 0;
        } finally {
            executor.shutdown();
        }
    }
}
