package dev.monoagent.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.ToolBinaries;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The one place a tool call flows through, top to bottom: started event → tool policy gate → argument parsing →
 * the tool (which applies the path policy or goes through the sandbox) → output bound (256 KB, spill) → finished
 * event. Violations are emitted by the tools as they happen, attributed to the call id.
 */
public final class ToolOrchestrator {
    static final ObjectMapper JSON = new ObjectMapper();

    private final ToolRegistry registry;
    private final Path workspace;
    private final Policy policy;
    private final SandboxPort sandbox;
    private final EventSink events;
    private final Path artifactsDir;
    private final ToolBinaries binaries;

    /** With the host binaries found on this process's PATH ({@link ToolBinaries#find}). */
    public ToolOrchestrator(ToolRegistry registry, Path workspace, Policy policy, SandboxPort sandbox,
                            EventSink events, Path artifactsDir) {
        this(registry, workspace, policy, sandbox, events, artifactsDir, ToolBinaries.find(HostEnv.detect(), policy));
    }

    public ToolOrchestrator(ToolRegistry registry, Path workspace, Policy policy, SandboxPort sandbox,
                            EventSink events, Path artifactsDir, ToolBinaries binaries) {
        this.binaries = binaries;
        this.registry = registry;
        this.workspace = workspace;
        this.policy = policy;
        this.sandbox = sandbox == null ? SandboxPort.UNAVAILABLE : sandbox;
        this.events = events == null ? EventSink.NONE : events;
        this.artifactsDir = artifactsDir;
    }

    public ToolRegistry registry() {
        return registry;
    }

    /** Runs one call in {@code scope}'s run and returns its (bounded) result; never throws for tool failures. */
    public ToolResult call(RunScope scope, String callId, String toolName, String argsJson) {
        long t0 = System.nanoTime();
        String runId = scope.runId();
        events.accept(new Event.ToolCallStarted(Instant.now(), runId, callId, toolName, argsJson));

        ToolResult result;
        Optional<Tool> tool = registry.find(toolName);
        if (tool.isEmpty()) {
            result = new ToolResult.Failed(ToolResult.TOOL_NOT_ALLOWED, registry.refusal(toolName));
        } else {
            ToolContext ctx = new ToolContext(runId, callId, tool.get().name(), workspace, policy, sandbox, events,
                    artifactsDir, scope, binaries);
            result = run(tool.get(), argsJson, ctx);
        }
        result = bound(result, runId, callId);

        long ms = (System.nanoTime() - t0) / 1_000_000;
        events.accept(new Event.ToolCallFinished(Instant.now(), runId, callId,
                tool.map(Tool::name).orElse(toolName), result.outcome(), result.text(),
                result instanceof ToolResult.Ok ok ? ok.data() : null, ms));
        return result;
    }

    private static ToolResult run(Tool tool, String argsJson, ToolContext ctx) {
        JsonNode args;
        try {
            args = argsJson == null || argsJson.isBlank() ? JSON.createObjectNode() : JSON.readTree(argsJson);
        } catch (JsonProcessingException e) {
            return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                    "Error: arguments are not valid JSON: " + e.getOriginalMessage());
        }
        if (args == null || !args.isObject()) {
            return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS, "Error: arguments must be a JSON object.");
        }
        try {
            return tool.call(args, ctx);
        } catch (Args.Invalid e) {
            return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS, "Error: " + e.getMessage());
        } catch (RuntimeException e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: " + tool.name() + " failed: " + e);
        }
    }

    private ToolResult bound(ToolResult r, String runId, String callId) {
        Path spill = artifactsDir == null ? null
                : new ToolContext(runId, callId, null, workspace, policy, sandbox, events, artifactsDir, null, binaries)
                        .spillFile();
        return switch (r) {
            case ToolResult.Ok ok -> new ToolResult.Ok(OutputBound.bytes(ok.text(), OutputBound.MAX_RESULT_BYTES,
                    spill), ok.data());
            case ToolResult.Failed f -> new ToolResult.Failed(f.code(),
                    OutputBound.bytes(f.text(), OutputBound.MAX_RESULT_BYTES, spill));
        };
    }
}
