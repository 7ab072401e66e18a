package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.EventSink;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.ToolBinaries;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tools package's facade for the CLI, the agent loop and the workbench: the offered tools with their schemas,
 * and runs that own their per-run resources (the NodeRepl process). {@code Tools} is thread-safe; calls within one
 * run are serialized by the caller (the agent loop is sequential).
 *
 * <pre>
 * try (Tools tools = Tools.open(cfg, policy, port, sink); Tools.Run run = tools.run("run-1")) {
 *     ToolResult r = run.call("Read", "{\"file_path\":\"README.md\"}");
 * }
 * </pre>
 */
public final class Tools implements AutoCloseable {

    /**
     * A tool as offered to the model.
     *
     * @param name        model-facing name
     * @param description one paragraph for the model
     * @param schema      JSON Schema of the arguments
     */
    public record Spec(String name, String description, JsonNode schema) {}

    private final ToolOrchestrator orchestrator;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final AtomicLong callSeq = new AtomicLong();

    private Tools(ToolOrchestrator orchestrator) {
        this.orchestrator = orchestrator;
    }

    /**
     * Opens the tools for a loaded config.
     *
     * @param cfg     the loaded config (tool lists, workspace, state dir)
     * @param policy  the compiled path policy (the same one the sandbox enforces)
     * @param sandbox the engine port, or null / {@link SandboxPort#UNAVAILABLE} when the engine is not usable
     * @param sink    receives ToolCallStarted/Finished and ViolationObserved events
     * @throws ConfigException with {@code invalid_tool_policy} errors when the tool lists are invalid
     */
    public static Tools open(LoadedConfig cfg, Policy policy, SandboxPort sandbox, EventSink sink)
            throws ConfigException {
        return open(cfg, policy, sandbox, sink, List.of());
    }

    /**
     * Opens the tools over the real sandbox facade: its compiled policy for the file tools, the facade for commands.
     * An unproven engine makes Bash/Exec/NodeRepl return {@code sandbox_prepare_failed} (fail-closed) while
     * Read/Write/Edit/Glob/Grep keep working.
     */
    public static Tools open(LoadedConfig cfg, Sandbox sandbox, EventSink sink) throws ConfigException {
        return open(cfg, sandbox, sink, List.of());
    }

    /** As {@link #open(LoadedConfig, Sandbox, EventSink)}, plus tools from other packages (memory). */
    public static Tools open(LoadedConfig cfg, Sandbox sandbox, EventSink sink, List<Tool> extra)
            throws ConfigException {
        return open(cfg, sandbox.policy(), SandboxPort.of(sandbox), sink, extra, sandbox.binaries());
    }

    /** As {@link #open(LoadedConfig, Policy, SandboxPort, EventSink)}, plus tools from other packages (memory). */
    public static Tools open(LoadedConfig cfg, Policy policy, SandboxPort sandbox, EventSink sink, List<Tool> extra)
            throws ConfigException {
        return open(cfg, policy, sandbox, sink, extra, ToolBinaries.find(HostEnv.detect(), policy));
    }

    /** As above, with the host {@code rg}/{@code node} already found (the sandbox facade's, or a test's). */
    public static Tools open(LoadedConfig cfg, Policy policy, SandboxPort sandbox, EventSink sink, List<Tool> extra,
                             ToolBinaries binaries) throws ConfigException {
        ToolPolicy tp = switch (ToolPolicy.of(cfg.config().tools())) {
            case ToolPolicy.Result.Valid v -> v.policy();
            case ToolPolicy.Result.Invalid inv -> throw new ConfigException(
                    inv.errors().stream().map(ToolPolicy.Error::toConfigError).toList());
        };
        List<Tool> all = new ArrayList<>(BuiltinTools.all());
        all.addAll(extra);
        Path ws = policy.pins().real(policy.workspace());
        ToolRegistry registry = new ToolRegistry(tp, all);
        return new Tools(new ToolOrchestrator(registry, ws, policy, sandbox, sink,
                ws.resolve(".mono-agent").resolve("artifacts"), binaries));
    }

    /**
     * The tools a config offers (the code tools and the enabled memory tools), without opening anything (for
     * {@code tools list} and validate).
     *
     * @throws ConfigException with {@code invalid_tool_policy} errors when the tool lists are invalid
     */
    public static List<Spec> describe(LoadedConfig cfg) throws ConfigException {
        ToolPolicy tp = switch (ToolPolicy.of(cfg.config().tools())) {
            case ToolPolicy.Result.Valid v -> v.policy();
            case ToolPolicy.Result.Invalid inv -> throw new ConfigException(
                    inv.errors().stream().map(ToolPolicy.Error::toConfigError).toList());
        };
        List<Tool> all = new ArrayList<>(BuiltinTools.all());
        // the memory tools the config enables, as the service offers them (their store is never opened here)
        all.addAll(MemoryTools.of(() -> null, cfg.config().memory()));
        return new ToolRegistry(tp, all).offered().stream()
                .map(t -> new Spec(t.name(), t.description(), t.schema())).toList();
    }

    /** The compiled tool policy (for validate/status lines). */
    public ToolPolicy policy() {
        return orchestrator.registry().policy();
    }

    /** The tools offered to the model, in canonical order. */
    public List<Spec> list() {
        return orchestrator.registry().offered().stream()
                .map(t -> new Spec(t.name(), t.description(), t.schema())).toList();
    }

    /** The run with this id, created on first use. */
    public Run run(String runId) {
        return runs.computeIfAbsent(runId, id -> new Run(new RunScope(id)));
    }

    /** One call in {@code runId}'s run (created if needed) with a generated call id. */
    public ToolResult call(String name, String argsJson, String runId) {
        return run(runId).call(name, argsJson);
    }

    /** Ends a run: its NodeRepl (and any other per-run resource) is stopped. */
    public void endRun(String runId) {
        Run r = runs.remove(runId);
        if (r != null) {
            r.scope.close();
        }
    }

    @Override
    public void close() {
        for (String id : List.copyOf(runs.keySet())) {
            endRun(id);
        }
    }

    /** One run: calls share its NodeRepl; closing it ends the REPL. */
    public final class Run implements AutoCloseable {
        private final RunScope scope;

        private Run(RunScope scope) {
            this.scope = scope;
        }

        public String id() {
            return scope.runId();
        }

        /** A call with a generated call id ({@code call-N}). */
        public ToolResult call(String name, String argsJson) {
            return call("call-" + callSeq.incrementAndGet(), name, argsJson);
        }

        /** A call with the model's call id (events and violations are attributed to it). */
        public ToolResult call(String callId, String name, String argsJson) {
            return orchestrator.call(scope, callId, name, argsJson);
        }

        @Override
        public void close() {
            endRun(scope.runId());
        }
    }
}
