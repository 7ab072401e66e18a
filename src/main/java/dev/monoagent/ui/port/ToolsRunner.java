package dev.monoagent.ui.port;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.tools.ToolResult;
import dev.monoagent.tools.Tools;
import java.util.List;
import java.util.function.Consumer;

/**
 * The consoles' {@link ToolRunner} over the real tools facade: a console line is exactly the agent's {@code Bash} or
 * {@code NodeRepl} call in the session's run (same orchestrator, same output bounds, same persistent REPL), and the
 * facade reports ToolCallStarted/Finished and the engine its violations, so nothing is published twice. Opened
 * lazily on a worker because opening needs the proven engine.
 */
public final class ToolsRunner implements ToolRunner, AutoCloseable {
    private final LoadedConfig cfg;
    private final EngineSandbox engine;
    private volatile Tools tools;

    public ToolsRunner(LoadedConfig cfg, EngineSandbox engine) {
        this.cfg = cfg;
        this.engine = engine;
    }

    private synchronized Tools tools() throws ConfigException {
        if (tools == null) {
            tools = Tools.open(cfg, engine.engine(), engine.events());
        }
        return tools;
    }

    @Override
    public PortResult call(String runId, String callId, String tool, String argsJson, Consumer<String> onOutput) {
        long t0 = System.nanoTime();
        ToolResult r;
        try {
            r = tools().run(runId).call(callId, tool, argsJson);
        } catch (ConfigException e) {
            return new PortResult("invalid_tool_policy", e.getMessage(), List.of(), 0);
        }
        return new PortResult(r.outcome(), r.text(), List.of(), (System.nanoTime() - t0) / 1_000_000);
    }

    @Override
    public void endRun(String runId) {
        Tools t = tools;
        if (t != null) {
            t.endRun(runId);
        }
    }

    @Override
    public boolean reportsEvents() {
        return true;
    }

    @Override
    public synchronized void close() {
        if (tools != null) {
            tools.close();
        }
    }
}
