package dev.monoagent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.agent.AgentService;
import dev.monoagent.common.Event;
import dev.monoagent.common.Printable;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.common.Violation;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mono-agent sandbox status|setup|check|run}: the engine's state (cheap, no proof), installing the pinned engine
 * into the private user cache, re-proving it probe by probe, and running one command under the policy. Exit codes:
 * 0 ok, 1 {@code [sandbox_check_failed]}, 2 {@code [sandbox_usage]}, 130 {@code [sandbox_interrupted]}.
 */
@Command(name = "sandbox", mixinStandardHelpOptions = true, description = "Inspect, install, prove or use the sandbox.",
        subcommands = {SandboxCommand.Status.class, SandboxCommand.Setup.class, SandboxCommand.Check.class,
                SandboxCommand.Run.class})
final class SandboxCommand implements Runnable {
    static final String CHECK_FAILED = "[sandbox_check_failed]";
    static final String USAGE = "[sandbox_usage]";
    static final String INTERRUPTED = "[sandbox_interrupted]";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final CliContext ctx;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    SandboxCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void run() {
        spec.commandLine().usage(ctx.out());
    }

    static HostEnv host(CliContext ctx) {
        return HostEnv.from(ctx.env());
    }

    static ObjectNode statusJson(SandboxStatus s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("state", s.state());
        n.put("effective", s.effective().wire());
        n.put("engine", s.engine().line());
        if (s.node() != null) {
            n.put("node", s.node());
        }
        n.put("source", s.engine().source().wire());
        n.put("version", s.engine().version());
        n.put("digest", s.engine().digest());
        n.put("installRoot", s.engine().installRoot() == null ? null : s.engine().installRoot().toString());
        n.put("fallback", s.fallback().wire());
        n.put("fallbackActive", s.fallbackActive());
        n.put("reason", s.reason());
        n.put("lastVerified", s.lastVerified() == null ? null : s.lastVerified().toString());
        n.set("probes", probesJson(s.probes()));
        return n;
    }

    static ArrayNode probesJson(List<ProbeResult> probes) {
        ArrayNode arr = JSON.createArrayNode();
        for (ProbeResult p : probes) {
            arr.addObject().put("id", p.id()).put("passed", p.passed()).put("detail", p.detail())
                    .put("millis", p.millis());
        }
        return arr;
    }

    static void printProbes(CliContext ctx, List<ProbeResult> probes) {
        for (ProbeResult p : probes) {
            ctx.out().printf("%s %s: %s%n", p.passed() ? "[ok]  " : "[FAIL]", p.id(), p.detail());
        }
    }

    /** {@code sandbox status [--json]}: no proof, no process started. */
    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show the engine state (cheap).")
    static final class Status implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print one JSON object.")
        boolean json;

        Status(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            LoadedConfig lc = options.load(ctx);
            SandboxStatus s = Sandbox.quickStatus(lc, host(ctx));
            s = s.withNode(Sandbox.nodeLine(host(ctx), lc));
            if (json) {
                ctx.out().println(JSON.writeValueAsString(statusJson(s)));
            } else {
                s.lines().forEach(ctx.out()::println);
            }
            return ExitCodes.OK;
        }
    }

    /** {@code sandbox setup [--json]}: install the pinned engine into the user cache, then prove it. */
    @Command(name = "setup", mixinStandardHelpOptions = true,
            description = "Install the pinned srt into the private user cache (no PATH, global npm, or system-package "
                    + "changes) and run the full functional check.")
    static final class Setup implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print the resulting status as one JSON object.")
        boolean json;

        Setup(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            LoadedConfig lc = options.load(ctx);
            try (Sandbox sb = Sandbox.unproven(lc, e -> { }, host(ctx))) {
                SandboxStatus s = sb.setup(line -> {
                    if (!json) {
                        ctx.out().println(line);
                    }
                });
                if (json) {
                    ctx.out().println(JSON.writeValueAsString(statusJson(s)));
                } else {
                    printProbes(ctx, s.probes());
                    s.lines().forEach(ctx.out()::println);
                }
                return verdict(ctx, s);
            }
        }
    }

    static int verdict(CliContext ctx, SandboxStatus s) {
        if ("ready".equals(s.state()) || "off".equals(s.state())) {
            return ExitCodes.OK;
        }
        ctx.err().println("mono-agent: " + CHECK_FAILED + " " + s.reason());
        return ExitCodes.ERROR;
    }

    /** {@code sandbox check [--json]}: re-prove the engine now, one line per probe. */
    @Command(name = "check", mixinStandardHelpOptions = true, description = "Re-run the functional sandbox check.")
    static final class Check implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print {ok, probes[], status} as one JSON object.")
        boolean json;

        Check(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            LoadedConfig lc = options.load(ctx);
            Integer viaInstance = recheckInstance(ctx, lc, json);
            if (viaInstance != null) {
                return viaInstance;
            }
            try (Sandbox sb = Sandbox.open(lc, e -> { }, host(ctx), true)) {
                SandboxStatus s = sb.status();
                if (json) {
                    ObjectNode n = JSON.createObjectNode();
                    n.put("ok", "ready".equals(s.state()) || "off".equals(s.state()));
                    n.set("probes", probesJson(s.probes()));
                    n.set("status", statusJson(s));
                    ctx.out().println(JSON.writeValueAsString(n));
                } else {
                    printProbes(ctx, s.probes());
                    s.lines().forEach(ctx.out()::println);
                }
                return verdict(ctx, s);
            }
        }
    }

    /**
     * A running instance for this workspace re-proves its own engine (which revives one whose engine had failed; a
     * separate check here would prove a different engine and leave the instance as it was). Null when none answers.
     */
    static Integer recheckInstance(CliContext ctx, LoadedConfig lc, boolean json) throws Exception {
            java.util.Optional<dev.monoagent.agent.InstanceStatus> inst;
            try {
                inst = dev.monoagent.agent.ControlClient.forWorkspace(lc.workspace()).recheck();
            } catch (dev.monoagent.agent.ControlClient.ControlException e) {
                ctx.err().println("mono-agent: the running instance could not re-check its sandbox (" + e.getMessage()
                        + "); checking here instead");
                return null;
            }
            if (inst.isEmpty()) {
                return null;
            }
            dev.monoagent.agent.SandboxSummary s = inst.get().sandbox();
            boolean ok = s.effective() == dev.monoagent.common.Effective.NATIVE
                    || s.effective() == dev.monoagent.common.Effective.OFF;
            if (json) {
                ObjectNode n = JSON.createObjectNode();
                n.put("ok", ok);
                n.put("instancePid", inst.get().pid());
                ArrayNode lines = n.putArray("sandbox");
                s.lines().forEach(lines::add);
                ctx.out().println(JSON.writeValueAsString(n));
            } else {
                ctx.out().println("Re-checked the running instance (pid " + inst.get().pid() + "):");
                s.lines().forEach(l -> ctx.out().println("  " + l));
            }
            if (!ok) {
                ctx.err().println("mono-agent: " + CHECK_FAILED + " " + (s.detail() == null ? s.effective().wire()
                        : s.detail()));
                return ExitCodes.ERROR;
            }
            return ExitCodes.OK;
    }

    /** {@code sandbox run [--json] -- CMD...}: one command under the policy; exits with the command's code. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Run one command in the sandbox (fail-closed when the engine is not proven).")
    static final class Run implements Callable<Integer> {
        /** The tool name {@code sandbox run} calls are attributed to. */
        static final String TOOL = "sandbox-run";
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print the run's events as JSON lines (the run log's format): "
                + "ToolCallStarted, ToolOutput, ViolationObserved, ToolCallFinished (exitCode in data).")
        boolean json;

        @Option(names = "--timeout-ms", paramLabel = "MS", description = "Timeout (default 120000).")
        long timeoutMs = 120_000;

        @Option(names = ConfigOptions.ACCEPT_FLAG, description = "First accept the workspace settings that wait for you "
                + "(as mono-agent trust, printing each).")
        boolean acceptPolicyChange;

        @Parameters(paramLabel = "CMD", arity = "0..*", description = "The command and its arguments (after --).")
        List<String> command = new ArrayList<>();

        Run(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            if (command.isEmpty()) {
                throw new CliException(ExitCodes.USAGE, "mono-agent: " + USAGE
                        + " sandbox run needs a command: mono-agent sandbox run -- CMD [ARGS...]");
            }
            LoadedConfig lc = options.load(ctx, acceptPolicyChange);
            String runId = "sandbox-run-" + UUID.randomUUID().toString().substring(0, 8);
            String callId = "cli-" + UUID.randomUUID().toString().substring(0, 8);
            try (AgentService service = AgentService.of(lc, host(ctx))) {
                EventPrinter printer = json ? EventPrinter.jsonl(ctx.out()) : EventPrinter.human(ctx.err());
                service.events().subscribe(e -> {
                    if (runId.equals(Event.runIdOf(e))) {
                        printer.accept(e);
                    }
                });
                Sandbox sb = service.openEngineNow();
                service.startRun(runId);
                CommandSpec spec = new CommandSpec(command, ctx.cwd().toAbsolutePath(),
                        java.time.Duration.ofMillis(timeoutMs), null, Map.of(), runId, callId, TOOL,
                        CommandSpec.DEFAULT_MAX_OUTPUT);
                service.events().accept(new Event.ToolCallStarted(Instant.now(), runId, callId, TOOL,
                        JSON.writeValueAsString(Map.of("command", command))));
                ExecOutcome o = sb == null ? ExecOutcome.PrepareFailed.unavailable(
                        String.valueOf(service.sandboxStatus().reason())) : sb.exec(spec);
                if (Thread.currentThread().isInterrupted()) {
                    service.finishRun(runId, RunStatus.CANCELLED);
                    ctx.err().println("mono-agent: " + INTERRUPTED + " interrupted");
                    return ExitCodes.INTERRUPTED;
                }
                return switch (o) {
                    case ExecOutcome.PrepareFailed pf -> {
                        service.events().accept(new Event.ToolCallFinished(Instant.now(), runId, callId, TOOL,
                                ToolOutcome.SANDBOX_PREPARE_FAILED, pf.text(), null, 0));
                        service.finishRun(runId, RunStatus.FAILED);
                        ctx.err().println(pf.text());
                        ctx.err().println("mono-agent: " + CHECK_FAILED + " " + pf.reason());
                        yield ExitCodes.ERROR;
                    }
                    case ExecOutcome.Completed c -> {
                        if (json) {
                            // the output is part of the record: the run log and the JSONL show it as ToolOutput
                            for (String text : List.of(c.stdout(), c.stderr())) {
                                if (!text.isEmpty()) {
                                    service.events().accept(new Event.ToolOutput(Instant.now(), runId, callId, text));
                                }
                            }
                        } else {
                            // our violation lines go to stderr beside the command's output: a line of output that
                            // imitates one is shown marked as output, and escape sequences are shown, not obeyed
                            ctx.out().print(Printable.output(ctx.shown(c.stdout())));
                            ctx.err().print(Printable.output(ctx.shown(c.stderr())));
                        }
                        ObjectNode data = JSON.createObjectNode().put("exitCode", c.exitCode())
                                .put("signal", c.signal()).put("timedOut", c.timedOut())
                                .put("truncated", c.truncated()).put("mode", c.mode().wire());
                        service.events().accept(new Event.ToolCallFinished(Instant.now(), runId, callId, TOOL,
                                c.timedOut() ? ToolOutcome.TIMEOUT : ToolOutcome.OK, "", data, c.elapsedMillis()));
                        service.finishRun(runId, RunStatus.COMPLETED);
                        ctx.out().flush();
                        yield c.exitCode();
                    }
                };
            }
        }
    }
}
