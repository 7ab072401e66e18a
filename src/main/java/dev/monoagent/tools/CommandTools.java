package dev.monoagent.tools;

import dev.monoagent.common.Event;
import dev.monoagent.common.Printable;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * What Bash and Exec share: the workdir check (inside the roots, a directory), the trip through the sandbox port
 * (never a direct spawn) and turning an {@link ExecOutcome} into a result. A nonzero exit is {@code Ok} with
 * {@code Exit code: N} as the last line; a timeout is {@code timeout}; an unusable engine is
 * {@code sandbox_prepare_failed} with the contract's text. Engine violations (already emitted by the engine,
 * attributed by the spec's run/call ids) are listed at the end of the text so the model knows what was blocked.
 */
final class CommandTools {
    private CommandTools() {}

    static final long MAX_TIMEOUT_MS = CommandSpec.MAX_TIMEOUT.toMillis();

    /** The working directory argument resolved, or the failure. */
    sealed interface Workdir {
        record Ok(Path dir) implements Workdir {}

        record Refused(ToolResult result) implements Workdir {}
    }

    static Workdir workdir(String arg, ToolContext ctx) {
        if (arg == null || arg.isBlank()) {
            return new Workdir.Ok(ctx.workspace());
        }
        PathGuard guard = FileAccess.guard(ctx);
        return switch (guard.forRead(arg)) {
            case PathGuard.Check.Invalid i -> new Workdir.Refused(FileAccess.invalid(i));
            case PathGuard.Check.Denied d -> new Workdir.Refused(
                    FileAccess.denied(ctx, d, Violation.Kind.OTHER, "Using workdir"));
            case PathGuard.Check.Allowed a -> {
                if (!Files.exists(a.real())) {
                    yield new Workdir.Refused(new ToolResult.Failed(ToolResult.NOT_FOUND,
                            "Error: workdir not found: " + a.shown()));
                }
                if (!Files.isDirectory(a.real())) {
                    yield new Workdir.Refused(new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                            "Error: workdir is not a directory: " + a.shown()));
                }
                yield new Workdir.Ok(a.real());
            }
        };
    }

    static Duration timeout(JsonNode args) {
        Long ms = Args.optLong(args, "timeout_ms", 1, MAX_TIMEOUT_MS);
        return ms == null ? CommandSpec.DEFAULT_TIMEOUT : Duration.ofMillis(ms);
    }

    static CommandSpec spec(java.util.List<String> argv, Path workdir, Duration timeout, Map<String, String> env,
                            ToolContext ctx) {
        return new CommandSpec(argv, workdir, timeout, null, env, ctx.runId(), ctx.callId(), ctx.tool(),
                CommandSpec.DEFAULT_MAX_OUTPUT);
    }

    /** Runs through the sandbox, streaming output as {@code ToolOutput} events, and renders the outcome. */
    static ToolResult run(CommandSpec spec, ToolContext ctx, String display) {
        ExecOutcome outcome = ctx.sandbox().exec(spec, text -> ctx.events().accept(
                new Event.ToolOutput(java.time.Instant.now(), ctx.runId(), ctx.callId(), text)));
        return switch (outcome) {
            case ExecOutcome.PrepareFailed pf -> new ToolResult.Failed(ToolResult.SANDBOX_PREPARE_FAILED, pf.text());
            case ExecOutcome.Completed c -> completed(c, spec, ctx, display);
        };
    }

    private static ToolResult completed(ExecOutcome.Completed c, CommandSpec spec, ToolContext ctx, String display) {
        // the command's output can print lines that look like the records below: those are shown marked as output
        StringBuilder sb = new StringBuilder();
        sb.append(Printable.output(c.stdout()));
        if (!c.stderr().isEmpty()) {
            if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != '\n') {
                sb.append('\n');
            }
            sb.append(Printable.output(c.stderr()));
        }
        if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != '\n') {
            sb.append('\n');
        }
        if (c.truncated()) {
            sb.append("(output exceeded ").append(spec.maxOutputBytes() / (1024 * 1024))
                    .append(" MiB per stream; the rest was dropped)\n");
        }
        // the reason says what happened (refused, or allowed inside the sandbox's own tmpfs): no verb of our own here.
        // A target is a name the command chose: escaped, so a newline or an escape in it cannot forge another line
        long aggregated = 0;
        for (Violation v : c.violations()) {
            if (v.aggregated()) {
                // one line for many: the reason says how many, of what kind, and the first and last of them
                aggregated += v.more();
                sb.append("Sandbox record (").append(v.kind().name().toLowerCase(java.util.Locale.ROOT))
                        .append(", ").append(v.more()).append(" aggregated): ").append(Printable.line(v.reason()))
                        .append('\n');
                continue;
            }
            sb.append("Sandbox record (").append(v.kind().name().toLowerCase(java.util.Locale.ROOT)).append("): ")
                    .append(Printable.line(v.target())).append(v.reason() == null || v.reason().isBlank() ? ""
                    : " — " + Printable.line(v.reason())).append('\n');
        }
        for (Event.NetworkAllowed a : c.allowed()) {
            sb.append("Sandbox record (network): ").append(Printable.line(a.describe()))
                    .append(" — allowed: localhost mode grants "
                    + "host loopback listeners\n");
        }
        ObjectNode data = ToolOrchestrator.JSON.createObjectNode().put("exitCode", c.exitCode())
                .put("signal", c.signal()).put("timedOut", c.timedOut()).put("truncated", c.truncated())
                .put("elapsedMs", c.elapsedMillis()).put("mode", c.mode().wire())
                .put("violations", c.violations().size()).put("aggregatedViolations", aggregated)
                .put("allowedConnections", c.allowed().size()).put("command", display);
        if (c.timedOut()) {
            return new ToolResult.Failed(ToolResult.TIMEOUT, sb + "Error: Command timed out after "
                    + spec.timeout().toMillis() + " ms and was killed.");
        }
        if (sb.isEmpty()) {
            sb.append("(no output)\n");
        }
        sb.append("Exit code: ").append(c.exitCode());
        return new ToolResult.Ok(sb.toString(), data);
    }
}
