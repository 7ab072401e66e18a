package dev.monoagent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.agent.AgentRun;
import dev.monoagent.agent.AgentRuns;
import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ControlClient;
import dev.monoagent.agent.RunResult;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.host.HostEnv;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mono-agent run "PROMPT" [--json] [--continue] [--model REF]}: one agent turn in the workspace, streamed to
 * the terminal — the answer on stdout as it arrives and tool calls, violations and failures on stderr, or with
 * {@code --json} every event of the run as one JSON line (the run log's format). Runs in the workspace's running
 * instance when there is one (its window shows the run live), else in this process. Exit 0 on a final answer, 1
 * with the failure kind otherwise, 130 on Ctrl-C (the run is stopped and recorded as cancelled).
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Ask the agent: one turn in the workspace, streamed (exit 0 answer, 1 failure, 130 Ctrl-C).")
final class RunCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long Ctrl-C waits for the stopped run to record its end before the process exits. */
    static final long STOP_WAIT_MS = 3000;

    private final CliContext ctx;

    @Mixin
    ConfigOptions options;

    @Parameters(index = "0", paramLabel = "PROMPT", description = "What the agent should do.")
    String prompt;

    @Option(names = "--json", description = "Print every event of the run as a JSON line (the run log's format).")
    boolean json;

    @Option(names = "--continue", description = "Continue the workspace's latest conversation.")
    boolean continueLatest;

    @Option(names = "--model", paramLabel = "REF", description = "Model for this run, <provider>:<model> "
            + "(overrides runtime.model), e.g. openai:gpt-5.")
    String model;

    RunCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        if (prompt == null || prompt.isBlank()) {
            throw new CliException(ExitCodes.USAGE, "mono-agent run: PROMPT is empty; say what the agent should do.");
        }
        LoadedConfig lc = options.load(ctx);
        EventSink printer = json ? line -> { } : new Human(ctx.out(), ctx.err(), Human.dims(ctx.env()));
        AtomicBoolean interrupted = new AtomicBoolean();
        RunResult result = null;
        Optional<ControlClient.RemoteRun> remote = ControlClient.forWorkspace(lc.workspace())
                .run(prompt, continueLatest, model);
        if (remote.isPresent()) {
            result = remotely(remote.get(), printer, interrupted);
        }
        if (result == null) {
            result = here(lc, printer, interrupted);
        }
        if (!json && result.ok()) {
            ctx.out().println();
        }
        ctx.out().flush();
        if (!result.ok()) {
            ctx.err().println("[" + result.failureKind() + "] " + result.message());
            ctx.err().flush();
        }
        return result.ok() ? ExitCodes.OK : interrupted.get() ? ExitCodes.INTERRUPTED : ExitCodes.ERROR;
    }

    /** The run in the instance; null when the instance does not run the agent (then it runs here). */
    private RunResult remotely(ControlClient.RemoteRun run, EventSink printer, AtomicBoolean interrupted)
            throws Exception {
        try (run; AutoCloseable hook = TaskExecutor.onShutdown("run-stop", () -> {
            interrupted.set(true);
            run.stop();
            sleepQuietly(STOP_WAIT_MS); // the main thread prints the cancelled result meanwhile
        })) {
            return run.stream(line -> {
                if (json) {
                    ctx.out().println(line);
                    ctx.out().flush();
                } else {
                    printer.accept(EventJson.read(line));
                }
            });
        } catch (ControlClient.ControlException e) {
            String msg = String.valueOf(e.getMessage());
            if (e.notServed()) {
                ctx.err().println("note: the running instance does not run the agent (" + msg
                        + "); running here.");
                return null;
            }
            throw new CliException(ExitCodes.ERROR, "mono-agent run: " + msg);
        }
    }

    private RunResult here(LoadedConfig lc, EventSink printer, AtomicBoolean interrupted) throws Exception {
        try (TaskExecutor pool = TaskExecutor.create("mono-agent-run");
             AgentService service = AgentService.of(lc, HostEnv.from(ctx.env()), pool)) {
            EventSink out = json ? EventPrinter.jsonl(ctx.out()) : printer;
            AgentRun run;
            try {
                run = service.agent().start(new AgentRuns.Request(prompt, continueLatest, null, model), out);
            } catch (AgentRuns.BadRequest e) {
                throw new CliException(ExitCodes.USAGE, "mono-agent run: " + e.getMessage());
            }
            try (AutoCloseable hook = TaskExecutor.onShutdown("run-stop", () -> {
                interrupted.set(true);
                run.cancel();
                try {
                    run.result().get(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
                    sleepQuietly(200); // let the main thread print the outcome
                } catch (Exception e) {
                    // exiting anyway
                }
            })) {
                return run.await();
            }
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The human view: the answer streamed on stdout; the model's reasoning summary (dim), tool calls, violations and
     * notices on stderr.
     */
    static final class Human implements EventSink {
        static final String DIM = "\u001b[2m";
        static final String RESET = "\u001b[0m";

        private final PrintWriter out;
        private final PrintWriter err;
        private final boolean dim;
        private boolean midLine;
        /** A reasoning summary is being printed on stderr (its line is open). */
        private boolean reasoning;

        Human(PrintWriter out, PrintWriter err) {
            this(out, err, false);
        }

        /** @param dim print the reasoning summary dim (an ANSI attribute) */
        Human(PrintWriter out, PrintWriter err, boolean dim) {
            this.out = out;
            this.err = err;
            this.dim = dim;
        }

        /** The model's words (they may quote a tool's output, escape sequences and all), escaped for a terminal. */
        private static String shown(String text) {
            return dev.monoagent.common.Printable.terminal(text);
        }

        /** Dim text for a terminal that has attributes: {@code TERM} set and not dumb, and no {@code NO_COLOR}. */
        static boolean dims(java.util.Map<String, String> env) {
            String term = env.get("TERM");
            return term != null && !term.isBlank() && !"dumb".equals(term) && env.get("NO_COLOR") == null;
        }

        @Override
        public synchronized void accept(Event e) {
            if (reasoning && !(e instanceof Event.ReasoningDelta)) {
                endReasoning();
            }
            switch (e) {
                case Event.ReasoningDelta r -> {
                    if (!reasoning) {
                        if (midLine) {
                            out.println();
                            out.flush();
                            midLine = false;
                        }
                        err.print((dim ? DIM : "") + "reasoning: ");
                        reasoning = true;
                    }
                    err.print(shown(r.text()));
                    err.flush();
                }
                case Event.AssistantDelta d -> {
                    out.print(shown(d.text()));
                    out.flush();
                    midLine = !d.text().endsWith("\n");
                }
                case Event.AssistantMessage m when !m.finalAnswer() && midLine -> {
                    out.println();
                    out.flush();
                    midLine = false;
                }
                case Event.ToolCallStarted s -> note("▸ " + s.tool() + " " + summary(s.argsJson()));
                case Event.ToolCallFinished f -> note("  " + (f.outcome().ok() ? "✓ " : "✗ ") + f.statusWord()
                        + " · " + f.durationMs() + " ms" + (f.outcome().ok() ? "" : " · " + firstLine(f.text())));
                case Event.ViolationObserved v -> note("  " + EventPrinter.violationLine(v.violation()));
                case Event.ModelRetrying r -> note("model: " + r.reason() + "; retrying in " + r.delayMs() + " ms");
                case Event.ContextElided c -> note("context: " + c.outputs() + " old tool outputs elided (~"
                        + c.tokensBefore() + " → ~" + c.tokensAfter() + " tokens)");
                case Event.MemoryRecalled m when m.items() > 0 -> note("memory: recalled " + m.items()
                        + " entries (" + m.mode() + ")");
                case Event.MemoryRecalled m when "unavailable".equals(m.mode()) -> note("memory: unavailable ("
                        + m.reason() + ")");
                default -> { }
            }
        }

        private void endReasoning() {
            err.println(dim ? RESET : "");
            err.flush();
            reasoning = false;
        }

        private void note(String line) {
            if (midLine) {
                out.println();
                out.flush();
                midLine = false;
            }
            err.println(line);
            err.flush();
        }

        private static String summary(String argsJson) {
            try {
                JsonNode n = JSON.readTree(argsJson == null ? "{}" : argsJson);
                for (String k : new String[] {"command", "code", "file_path", "pattern", "query", "executable"}) {
                    if (n.hasNonNull(k)) {
                        return cut(n.get(k).asText());
                    }
                }
                return cut(n.toString());
            } catch (java.io.IOException ex) {
                return cut(String.valueOf(argsJson));
            }
        }

        private static String firstLine(String s) {
            return s == null ? "" : cut(s.lines().findFirst().orElse(""));
        }

        private static String cut(String s) {
            String one = dev.monoagent.common.Printable.line(s.replace('\n', ' '));
            return one.length() <= 100 ? one : one.substring(0, 99) + "…";
        }
    }
}
