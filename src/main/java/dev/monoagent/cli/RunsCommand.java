package dev.monoagent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.agent.RunRecords;
import dev.monoagent.agent.RunReport;
import dev.monoagent.common.Event;
import dev.monoagent.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mono-agent runs list|show ID|report ID}: the workspace's run records from the shell. Reading is
 * {@link RunRecords}/{@link RunReport} (the window exports through the same); this class only prints. Works without a
 * valid config (the workspace is located, not loaded), so a broken config never hides what ran.
 */
@Command(name = "runs", mixinStandardHelpOptions = true,
        description = "List the workspace's runs, show one, or write its report.",
        subcommands = {RunsCommand.ListRuns.class, RunsCommand.Show.class, RunsCommand.Report.class})
final class RunsCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);
    private final CliContext ctx;

    @Spec
    CommandSpec spec;

    RunsCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void run() {
        spec.commandLine().usage(ctx.out());
    }

    /** The workspace of these options, without reading the config. */
    static Path workspace(CliContext ctx, ConfigOptions options) {
        return ConfigLoader.locate(options.options(ctx))[0];
    }

    static RunRecords.Run read(CliContext ctx, ConfigOptions options, String id) {
        try {
            return RunRecords.read(workspace(ctx, options), id, ctx.env());
        } catch (RunRecords.NotFound e) {
            throw new CliException(ExitCodes.ERROR, "mono-agent: " + e.getMessage());
        }
    }

    /**
     * Tells the reader on stderr which log lines were unreadable or left out as not sealed here (the output itself
     * stays parseable).
     */
    static void warnProblems(CliContext ctx, RunRecords.Run run) {
        if (run.trustNote() != null) {
            ctx.err().println("warning: " + run.file() + ": " + run.trustNote());
        }
        for (RunRecords.Problem p : run.problems()) {
            ctx.err().println("warning: " + run.file() + " line " + p.line() + ": " + p.message());
        }
    }

    /** {@code runs list [--json]}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the runs, newest first.")
    static final class ListRuns implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print a JSON array of {runId, started, status, failureKind, model, "
                + "toolCalls, violations, durationMs, problems, recorded, seal, ignoredLines}; a log this machine did "
                + "not record has status not-recorded, recorded false and null counts.")
        boolean json;

        ListRuns(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            Path ws = workspace(ctx, options);
            List<RunRecords.Summary> all = RunRecords.list(ws, ctx.env());
            if (json) {
                ArrayNode arr = JSON.createArrayNode();
                all.forEach(s -> arr.add(summaryJson(s)));
                ctx.out().println(JSON.writeValueAsString(arr));
                return ExitCodes.OK;
            }
            List<RunRecords.Summary> runs = all.stream().filter(RunRecords.Summary::recorded).toList();
            List<RunRecords.Summary> foreign = all.stream().filter(s -> !s.recorded()).toList();
            if (all.isEmpty()) {
                ctx.out().println("No runs in " + RunRecords.runsDir(ws) + ".");
            } else if (runs.isEmpty()) {
                ctx.out().println("No runs recorded on this machine in " + RunRecords.runsDir(ws) + ".");
            } else {
                ctx.out().printf("%-28s %-19s %-10s %-20s %-24s %5s %5s %9s%n", "RUN", "STARTED (UTC)", "STATUS",
                        "FAILURE", "MODEL", "TOOLS", "VIOL", "DURATION");
            }
            for (RunRecords.Summary s : runs) {
                ctx.out().printf("%-28s %-19s %-10s %-20s %-24s %5d %5d %9s%s%s%n", dash(s.runId()),
                        s.started() == null ? "-" : CLOCK.format(s.started()), s.status(), dash(s.failureKind()),
                        dash(s.model()), s.toolCalls(), s.violations(), duration(s.durationMs()),
                        s.problems() > 0 ? "  (" + s.problems() + " unreadable line(s))" : "",
                        s.ignoredLines() > 0 ? "  (" + s.ignoredLines() + " line(s) not sealed here, ignored)" : "");
            }
            if (!foreign.isEmpty()) {
                ctx.out().println();
                ctx.out().println("Not recorded here (ignored): " + foreign.size() + " run log(s) that mono-agent did "
                        + "not write on this machine (they came with the workspace, or were changed since):");
                for (RunRecords.Summary s : foreign) {
                    ctx.out().println("  " + dash(s.runId()) + "  " + s.seal());
                }
            }
            return ExitCodes.OK;
        }
    }

    static ObjectNode summaryJson(RunRecords.Summary s) {
        ObjectNode o = JSON.createObjectNode();
        o.put("runId", s.runId());
        if (!s.recorded()) {
            // nothing of the log is read: no time, counts or model to show
            o.put("status", s.status());
            o.put("recorded", false);
            o.put("seal", s.seal());
            o.putNull("toolCalls");
            o.putNull("violations");
            return o;
        }
        o.put("started", s.started() == null ? null : s.started().toString());
        o.put("status", s.status());
        o.put("failureKind", s.failureKind());
        o.put("model", s.model());
        o.put("toolCalls", s.toolCalls());
        o.put("violations", s.violations());
        o.put("durationMs", s.durationMs());
        o.put("problems", s.problems());
        o.put("recorded", true);
        o.put("seal", s.seal());
        o.put("ignoredLines", s.ignoredLines());
        return o;
    }

    /** {@code runs show ID [--json]}. */
    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show one run's events.")
    static final class Show implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Parameters(index = "0", paramLabel = "ID", description = "Run id (see runs list).")
        String id;

        @Option(names = "--json", description = "Print one JSON object: the summary fields, file, problems "
                + "[{line, message}] and events (the log's lines, unknown types included).")
        boolean json;

        Show(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            RunRecords.Run run = read(ctx, options, id);
            if (json) {
                ObjectNode o = summaryJson(run.summary());
                o.put("file", run.file().toString());
                ArrayNode problems = o.putArray("problems");
                run.problems().forEach(p -> problems.addObject().put("line", p.line()).put("message", p.message()));
                ArrayNode events = o.putArray("events");
                run.lines().forEach(l -> events.add(l.raw()));
                ctx.out().println(JSON.writeValueAsString(o));
                warnProblems(ctx, run);
                return ExitCodes.OK;
            }
            RunRecords.Summary s = run.summary();
            ctx.out().println("Run " + run.runId() + " (" + s.status()
                    + (s.failureKind() == null ? "" : ", " + s.failureKind()) + ")  " + run.file());
            ctx.out().println("  started " + (s.started() == null ? "-" : CLOCK.format(s.started())) + " UTC, "
                    + duration(s.durationMs()) + ", model " + dash(s.model()) + ", " + s.toolCalls()
                    + " tool call(s), " + s.violations() + " violation(s)");
            // the loop logs each turn's whole text too: its streamed pieces would only repeat it line by line
            boolean whole = run.events().stream().anyMatch(e -> e instanceof Event.AssistantMessage);
            // a Bash call's output is logged as it streams; a call that streams nothing (NodeRepl, Read, ...) has its
            // result only in its ToolCallFinished: shown there, as an output line, so every call's result is seen
            java.util.Set<String> streamed = new java.util.HashSet<>();
            run.events().forEach(e -> {
                if (e instanceof Event.ToolOutput o) {
                    streamed.add(o.callId());
                }
            });
            StringBuilder reasoning = new StringBuilder();
            java.time.Instant reasoningAt = null;
            for (RunRecords.Line l : run.lines()) {
                if (whole && l.event() instanceof Event.AssistantDelta) {
                    continue;
                }
                // a reasoning summary streams in pieces: one line per stretch of them
                if (l.event() instanceof Event.ReasoningDelta r) {
                    reasoningAt = reasoning.isEmpty() ? r.time() : reasoningAt;
                    reasoning.append(r.text());
                    continue;
                }
                if (!reasoning.isEmpty()) {
                    printReasoning(ctx.out(), reasoningAt, reasoning);
                }
                String at = l.time() == null ? "-" : TIME.format(l.time());
                if (l.event() instanceof Event.ToolCallFinished f && !streamed.contains(f.callId())
                        && f.text() != null && !f.text().isBlank()) {
                    ctx.out().printf("%-12s %s%n", at, f.callId() + " output: " + oneLine(f.text(), 300));
                }
                ctx.out().printf("%-12s %s%n", at, describe(l));
            }
            if (!reasoning.isEmpty()) {
                printReasoning(ctx.out(), reasoningAt, reasoning);
            }
            warnProblems(ctx, run);
            return ExitCodes.OK;
        }
    }

    private static void printReasoning(java.io.PrintWriter out, java.time.Instant at, StringBuilder text) {
        out.printf("%-12s %s%n", at == null ? "-" : TIME.format(at), "reasoning: " + oneLine(text.toString(), 300));
        text.setLength(0);
    }

    /** One event as a human line; a type this build does not know is shown with its raw fields. */
    static String describe(RunRecords.Line l) {
        if (l.event() == null) {
            return l.type() + " (unknown event) " + oneLine(l.fields(), 300);
        }
        return switch (l.event()) {
            case Event.RunHeader h -> "header: policy " + h.policy().get("mode") + "/" + h.policy().get("network")
                    + ", engine " + (h.engine() == null ? "-" : h.engine().source() + " " + h.engine().version())
                    + ", last self-check " + (h.lastCheck() == null || h.lastCheck().at() == null ? "never"
                    : (h.lastCheck().passed() ? "passed " : "FAILED ") + h.lastCheck().at());
            case Event.RunStarted r -> "run started in " + r.workspace();
            case Event.RunFinished r -> "run finished: " + r.status().wire();
            case Event.UserMessage m -> "user: " + oneLine(m.text(), 300);
            case Event.AssistantDelta d -> "assistant: " + oneLine(d.text(), 300);
            case Event.AssistantMessage m -> (m.finalAnswer() ? "answer: " : "assistant: ") + oneLine(m.text(), 300);
            case Event.ModelCallFinished m -> "model turn " + m.turn() + " " + m.provider() + ":" + m.model() + " "
                    + m.outcome() + ", tokens " + m.inputTokens() + " in / " + m.outputTokens() + " out, "
                    + m.retries() + " retries, " + m.durationMs() + " ms";
            case Event.RunFailed f -> "run failed: " + f.kind() + " (" + oneLine(f.message(), 300) + ")";
            case Event.ToolCallStarted s -> s.callId() + " " + s.tool() + " started " + oneLine(s.argsJson(), 300);
            case Event.ToolOutput o -> o.callId() + " output: " + oneLine(o.text(), 300);
            case Event.ToolCallFinished f -> f.callId() + " " + f.tool() + " finished: " + f.statusWord() + " in "
                    + f.durationMs() + " ms";
            case Event.ViolationObserved v -> v.violation().callId() + " " + EventPrinter.violationLine(v.violation());
            default -> l.type() + " " + oneLine(l.fields(), 300);
        };
    }

    /** {@code runs report ID [--format md|html] [--out FILE]}. */
    @Command(name = "report", mixinStandardHelpOptions = true,
            description = "Write a self-contained Markdown or HTML report of one run.")
    static final class Report implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Parameters(index = "0", paramLabel = "ID", description = "Run id (see runs list).")
        String id;

        @Option(names = "--format", paramLabel = "md|html", defaultValue = "md",
                description = "Report format (default: ${DEFAULT-VALUE}).")
        String format;

        @Option(names = "--out", paramLabel = "FILE", description = "Write the report to FILE (default: stdout).")
        Path out;

        Report(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            RunReport.Format f = RunReport.Format.of(format);
            if (f == null) {
                throw new CliException(ExitCodes.USAGE, "mono-agent: --format must be md or html (got '" + format
                        + "').");
            }
            RunRecords.Run run = read(ctx, options, id);
            if (out == null) {
                ctx.out().print(RunReport.render(run, f));
            } else {
                Path target = ctx.cwd().resolve(out);
                try {
                    RunReport.write(run, f, target);
                } catch (IOException e) {
                    throw new CliException(ExitCodes.ERROR, "mono-agent: cannot write the report to " + target + ": "
                            + e.getMessage());
                }
                ctx.out().println("Report of run " + run.runId() + " written to " + target + ".");
            }
            warnProblems(ctx, run);
            return ExitCodes.OK;
        }
    }

    /**
     * Run content on one terminal line: newlines shown as {@code \n}, and every other control character (ESC of an
     * ANSI sequence that would recolour, move the cursor or retitle the terminal) as {@code \u001b}.
     */
    static String oneLine(String s, int max) {
        if (s == null) {
            return "-";
        }
        StringBuilder t = new StringBuilder(Math.min(s.length(), max) + 8);
        int i = 0;
        for (; i < s.length() && t.length() < max; i++) {
            char c = s.charAt(i);
            t.append(c == '\t' ? "\t" : dev.monoagent.common.Printable.line(String.valueOf(c)));
        }
        return i < s.length() ? t + "…" : t.toString();
    }

    private static String dash(String s) {
        return s == null ? "-" : oneLine(s, 200);
    }

    static String duration(Long ms) {
        if (ms == null) {
            return "-";
        }
        return ms < 10_000 ? ms + " ms" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
