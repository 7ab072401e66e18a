package dev.monoagent.tools;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.sandbox.Policy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A workspace, its default policy, an orchestrator over every built-in tool and a recording event sink. */
final class Fixture implements AutoCloseable {
    final Path ws;
    final Policy policy;
    final List<Event> events = new CopyOnWriteArrayList<>();
    final ToolOrchestrator orchestrator;
    RunScope scope;
    private final AtomicInteger calls = new AtomicInteger();

    Fixture(Path ws, SandboxPort port) {
        this.ws = real(ws);
        this.policy = policy(this.ws);
        ToolRegistry reg = new ToolRegistry(ToolPolicy.ALL, BuiltinTools.all());
        this.orchestrator = new ToolOrchestrator(reg, this.ws, policy, port, events::add,
                this.ws.resolve(".mono-agent/artifacts"));
        this.scope = new RunScope("run-1");
    }

    static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The policy the compiler produces for the contract defaults (loopback network). */
    static Policy policy(Path ws) {
        return new Policy(ws, Enums.SandboxMode.NATIVE, Enums.Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE,
                List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"), ws.resolve(".git/hooks")),
                List.of(Path.of(System.getProperty("user.home"), ".ssh")), Enums.NetworkMode.LOCALHOST, List.of());
    }

    ToolResult call(String tool, String json) {
        return orchestrator.call(scope, "call-" + calls.incrementAndGet(), tool, json);
    }

    /** Starts another run (the old one is closed). */
    void newRun(String runId) {
        scope.close();
        scope = new RunScope(runId);
    }

    List<Violation> violations() {
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Event.ViolationObserved v) {
                out.add(v.violation());
            }
        }
        return out;
    }

    static String json(Object... kv) {
        var n = ToolOrchestrator.JSON.createObjectNode();
        for (int i = 0; i < kv.length; i += 2) {
            n.set((String) kv[i], ToolOrchestrator.JSON.valueToTree(kv[i + 1]));
        }
        return n.toString();
    }

    @Override
    public void close() {
        scope.close();
    }
}
