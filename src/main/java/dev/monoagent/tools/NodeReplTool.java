package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Violation;
import java.time.Duration;
import java.time.Instant;

/**
 * NodeRepl: evaluates JavaScript in the run's persistent Node REPL (started lazily inside the sandbox on first use).
 * Top-level {@code const}/{@code let}/{@code class} persist across calls, top-level {@code await} works, the value
 * is shown like Node's REPL ({@code util.inspect}) after the captured console output. A throw is still {@code Ok}
 * (text {@code Uncaught ...}, {@code data.error = true}), like a nonzero exit. An evaluation over the timeout
 * (120 s) kills the process: the result says the state was lost and the next call starts a fresh REPL.
 */
final class NodeReplTool extends BasicTool {
    static final String SCOPE_KEY = "NodeRepl";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);
    static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private static final JsonNode SCHEMA = Args.schema()
            .str("code", "JavaScript to evaluate. Declarations persist for the run; top-level await works.", true)
            .build();

    private final Duration timeout;

    NodeReplTool() {
        this(DEFAULT_TIMEOUT);
    }

    NodeReplTool(Duration timeout) {
        super(ToolNames.NODE_REPL,
                "Evaluate JavaScript in a persistent Node.js REPL for this run (sandboxed). Variables, functions and "
                + "classes persist between calls; top-level await works; console output and the value are returned.",
                SCHEMA);
        this.timeout = timeout;
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String code = Args.requireString(args, "code");
        RunScope scope = ctx.scope();
        if (scope == null) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: NodeRepl needs a run.");
        }
        NodeReplSession session;
        boolean fresh = false;
        synchronized (scope) {
            session = scope.peek(SCOPE_KEY, NodeReplSession.class);
            if (session != null && !session.alive()) {
                scope.discard(SCOPE_KEY);
                session = null;
            }
            if (session == null) {
                switch (NodeReplSession.start(ctx, READY_TIMEOUT)) {
                    case NodeReplSession.Start.Failed f -> {
                        return f.result();
                    }
                    case NodeReplSession.Start.Started s -> {
                        session = s.session();
                        final NodeReplSession created = session;
                        scope.get(SCOPE_KEY, NodeReplSession.class, () -> created);
                        fresh = true;
                    }
                }
            }
        }
        NodeReplSession.Reply reply = session.eval(code, timeout);
        if (reply instanceof NodeReplSession.Reply.Done) {
            // what this evaluation wrote is recorded now, not when the REPL exits
            session.checkpoint(ctx.callId());
        }
        return switch (reply) {
            case NodeReplSession.Reply.TimedOut t -> {
                scope.discard(SCOPE_KEY);
                yield new ToolResult.Failed(ToolResult.TIMEOUT, "Error: NodeRepl evaluation timed out after "
                        + timeout.toSeconds() + " s; the REPL process was killed and its state was lost. The next "
                        + "NodeRepl call starts a fresh REPL.");
            }
            case NodeReplSession.Reply.Exited e -> {
                scope.discard(SCOPE_KEY);
                if (e.forged() != null) {
                    // sandboxed code tried to pass bytes off as a result: on the record, not only in the text
                    ctx.report(new Violation(Instant.now(), Violation.Tier.DETECTED, Violation.Kind.OTHER,
                            ctx.runId(), ctx.callId(), ToolNames.NODE_REPL, null, null, e.forged()));
                }
                yield new ToolResult.Failed(ToolResult.FAILED, (e.stray().isBlank() ? "" : e.stray().strip() + "\n")
                        + "Error: the NodeRepl process exited; its state was lost. The next NodeRepl call starts a "
                        + "fresh REPL.");
            }
            case NodeReplSession.Reply.Done d -> render(d, fresh);
        };
    }

    private static ToolResult render(NodeReplSession.Reply.Done d, boolean fresh) {
        JsonNode f = d.frame();
        StringBuilder sb = new StringBuilder();
        for (JsonNode chunk : f.path("output")) {
            sb.append(chunk.path("text").asText());
        }
        sb.append(d.stray());
        if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != '\n') {
            sb.append('\n');
        }
        boolean ok = f.path("ok").asBoolean();
        sb.append(ok ? f.path("value").asText() : f.path("error").asText());
        var data = ToolOrchestrator.JSON.createObjectNode().put("error", !ok).put("freshRepl", fresh);
        if (ok) {
            data.put("value", f.path("value").asText());
        }
        return new ToolResult.Ok(sb.toString(), data);
    }
}
