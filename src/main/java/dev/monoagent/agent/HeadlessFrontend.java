package dev.monoagent.agent;

import dev.monoagent.common.TaskExecutor;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;

/**
 * An instance without a window (CI, servers, {@code start --headless}): owns the {@link AgentService} and the control
 * endpoint, and blocks until {@code mono-agent stop}.
 */
public final class HeadlessFrontend implements Frontend {
    private static final System.Logger LOG = System.getLogger(HeadlessFrontend.class.getName());

    @Override
    public String kind() {
        return "headless";
    }

    @Override
    public int run(StartOptions options) throws Exception {
        TaskExecutor pool = TaskExecutor.create("mono-agent-instance");
        AgentService services = AgentService.open(options, pool);
        String startedAt = Instant.now().toString();
        try {
            CountDownLatch stopRequested = new CountDownLatch(1);
            InstanceHandler handler = new InstanceHandler() {
                @Override
                public InstanceStatus status() {
                    return services.instanceStatus(startedAt, kind());
                }

                @Override
                public void focus() {
                    // no window to raise
                }

                @Override
                public void stop() {
                    stopRequested.countDown();
                }

                @Override
                public ToolCallReply callTool(String name, String argsJson, String runId) {
                    return services.callTool(name, argsJson, runId);
                }

                @Override
                public AgentService agentService() {
                    return services;
                }

                @Override
                public InstanceStatus recheck() {
                    services.recheck();
                    return services.instanceStatus(startedAt, kind());
                }
            };
            Instance.Acquisition acq = Instance.acquire(options.workspace(), handler, pool.executor());
            if (acq instanceof Instance.AlreadyRunning) {
                return 1;
            }
            try (Instance instance = ((Instance.Acquired) acq).instance(); services) {
                services.openEngine();
                LOG.log(Level.INFO, "headless instance serving " + instance.endpoint());
                stopRequested.await();
                services.stopOpenRuns();
            }
            return 0;
        } finally {
            pool.close();
        }
    }
}
