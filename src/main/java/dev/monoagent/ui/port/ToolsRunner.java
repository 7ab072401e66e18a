package dev.monoagent.ui.port;

import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ToolCallReply;
import java.util.List;
import java.util.function.Consumer;

/**
 * The consoles' {@link ToolRunner}: an adapter over the workspace's {@link AgentService}, so a console line is exactly
 * the agent's {@code Bash} or {@code NodeRepl} call in the session's run (same tools, same output bounds, same
 * persistent REPL as {@code mono-agent tools call} against this instance). The service publishes the call's events
 * on its bus, so nothing is published twice.
 */
public final class ToolsRunner implements ToolRunner {
    private final AgentService service;

    public ToolsRunner(AgentService service) {
        this.service = service;
    }

    @Override
    public PortResult call(String runId, String callId, String tool, String argsJson, Consumer<String> onOutput) {
        long t0 = System.nanoTime();
        ToolCallReply r = service.callTool(tool, argsJson, runId, callId);
        return new PortResult(r.outcome(), r.text(), List.of(), (System.nanoTime() - t0) / 1_000_000, r.data());
    }

    @Override
    public void endRun(String runId) {
        service.endRun(runId);
    }

    @Override
    public boolean reportsEvents() {
        return true;
    }
}
