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
        String restarted = null;
        for (int attempt = 0; ; attempt++) {
            Started st = session(ctx, scope);
            if (st.failed() != null) {
                return st.failed();
            }
            if (st.restarted() != null) {
                restarted = st.restarted();
            }
            NodeReplSession.Reply reply = st.session().eval(code, timeout);
            if (reply instanceof NodeReplSession.Reply.Restarted r && attempt == 0) {
                // ended before this evaluation was sent: nothing of it ran, so it runs once in a fresh REPL
                scope.discard(SCOPE_KEY);
                restarted = r.why();
                continue;
            }
            ToolResult result = result(reply, st.session(), st.fresh(), ctx, scope);
            return restarted == null ? result : withRestartNote(result, restarted);
        }
    }

    private record Started(NodeReplSession session, boolean fresh, String restarted, ToolResult failed) {}

    /**
     * The model must know its earlier definitions are gone when the engine restarted the REPL (the protected files
     * changed under it): said first in the text and in {@code data.restarted}.
     */
    private static ToolResult withRestartNote(ToolResult r, String why) {
        String note = "Note: the NodeRepl process was restarted before this evaluation: " + why + ". Its state was "
                + "lost: variables, functions and imports from earlier evaluations are gone.\n";
        return switch (r) {
            case ToolResult.Ok ok -> {
                var data = ok.data() instanceof com.fasterxml.jackson.databind.node.ObjectNode o ? o.deepCopy()
                        : ToolOrchestrator.JSON.createObjectNode();
                data.put("restarted", why);
                yield new ToolResult.Ok(note + ok.text(), data);
            }
            case ToolResult.Failed f -> new ToolResult.Failed(f.code(), note + f.text());
        };
    }

    private Started session(ToolContext ctx, RunScope scope) {
        NodeReplSession session;
        boolean fresh = false;
        String restarted = null;
        synchronized (scope) {
            session = scope.peek(SCOPE_KEY, NodeReplSession.class);
            if (session != null && !session.alive()) {
                restarted = session.endedBecause();
                scope.discard(SCOPE_KEY);
                session = null;
            }
            if (session == null) {
                switch (NodeReplSession.start(ctx, READY_TIMEOUT)) {
                    case NodeReplSession.Start.Failed f -> {
                        return new Started(null, false, restarted, f.result());
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
        return new Started(session, fresh, restarted, null);
    }

    private ToolResult result(NodeReplSession.Reply reply, NodeReplSession session, boolean fresh, ToolContext ctx,
                              RunScope scope) {
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
                String why = session.endedBecause();
                yield new ToolResult.Failed(ToolResult.FAILED, (e.stray().isBlank() ? "" : e.stray().strip() + "\n")
                        + "Error: the NodeRepl process " + (why == null ? "exited" : "was ended: " + why)
                        + "; its state was lost. The next NodeRepl call starts a fresh REPL.");
            }
            case NodeReplSession.Reply.Restarted r -> {
                scope.discard(SCOPE_KEY);
                yield new ToolResult.Failed(ToolResult.FAILED, "Error: the NodeRepl process was restarted twice in a "
                        + "row (" + r.why() + "); nothing was evaluated.");
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
