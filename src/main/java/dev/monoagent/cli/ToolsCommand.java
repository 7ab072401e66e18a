package dev.monoagent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ControlClient;
import dev.monoagent.common.RunStatus;
import dev.monoagent.agent.ToolCallReply;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.tools.ToolPolicy;
import dev.monoagent.tools.ToolResult;
import dev.monoagent.tools.Tools;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mono-agent tools list|call}: the model-facing tools without a model. {@code list} shows what the config
 * offers (and the validate summary line); {@code call NAME ARGS_JSON} runs one call through the same orchestrator
 * and sandbox the agent uses, prints the result (a failed call's message on stderr, with its kind) and any
 * violation, and exits 0 when the tool ran (with {@code --exit-code}: a command's own exit code), 1 when it failed.
 */
@Command(name = "tools", mixinStandardHelpOptions = true, description = "List or call the agent's tools.",
        subcommands = {ToolsCommand.ListCommand.class, ToolsCommand.CallCommand.class})
final class ToolsCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final CliContext ctx;

    @Spec
    CommandSpec spec;

    ToolsCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void run() {
        spec.commandLine().usage(ctx.out());
    }

    /** {@code tools list [--json]}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the tools the config offers.")
    static final class ListCommand implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print a JSON array of {name, description, schema}.")
        boolean json;

        ListCommand(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            LoadedConfig lc = options.load(ctx);
            List<Tools.Spec> specs = Tools.describe(lc);
            if (json) {
                ArrayNode arr = JSON.createArrayNode();
                for (Tools.Spec s : specs) {
                    arr.addObject().put("name", s.name()).put("description", s.description()).set("schema", s.schema());
                }
                ctx.out().println(JSON.writeValueAsString(arr));
                return ExitCodes.OK;
            }
            ToolPolicy p = ((ToolPolicy.Result.Valid) ToolPolicy.of(lc.config().tools())).policy();
            ctx.out().println(p.summary());
            for (Tools.Spec s : specs) {
                ctx.out().printf("  %-13s %s%n", s.name(), s.description());
                ctx.out().printf("  %-13s args: %s%n", "", argNames(s.schema()));
            }
            return ExitCodes.OK;
        }

        /** The schema's argument names in order, optional ones marked {@code ?}: {@code file_path, offset?}. */
        static String argNames(JsonNode schema) {
            List<String> names = new java.util.ArrayList<>();
            Set<String> required = new java.util.HashSet<>();
            schema.path("required").forEach(r -> required.add(r.asText()));
            schema.path("properties").fieldNames().forEachRemaining(n -> names.add(required.contains(n) ? n : n + "?"));
            return names.isEmpty() ? "(none)" : String.join(", ", names);
        }
    }

    /** {@code tools call NAME [ARGS_JSON] [--run-id ID] [--json]}. */
    @Command(name = "call", mixinStandardHelpOptions = true,
            description = "Call one tool (commands run in the sandbox; fail-closed when it is not proven).",
            footerHeading = "%nExit status:%n",
            footer = {"  0  the tool ran (a Bash or Exec command that failed still ran: its output ends with "
                    + "\"Exit code: N\").",
                    "  1  the call failed ([kind] on stderr, e.g. [sandbox_prepare_failed]).",
                    "  With --exit-code, a Bash or Exec call exits with its command's own exit code instead.",
                    "  Scripts can also read it from --json: ToolCallFinished's data.exitCode."})
    static final class CallCommand implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Parameters(index = "0", paramLabel = "NAME", description = "Tool name, e.g. Read, Bash, NodeRepl.")
        String name;

        @Parameters(index = "1", arity = "0..1", paramLabel = "ARGS_JSON", description = "Arguments as a JSON object.")
        String positionalArgs;

        @Option(names = "--args", paramLabel = "JSON", description = "Arguments as a JSON object (same as ARGS_JSON).")
        String optionArgs;

        @Option(names = "--run-id", paramLabel = "ID", description = "Run id for attribution and artifacts. With a "
                + "running instance (mono-agent start), calls with the same run id share that run's NodeRepl.")
        String runId;

        @Option(names = "--json", description = "Print the call's events as JSON lines (the run log's format): "
                + "ToolCallStarted, ToolOutput, ViolationObserved, ToolCallFinished (outcome, text, data).")
        boolean json;

        @Option(names = "--exit-code", description = "Exit with the command's own exit code (Bash, Exec) instead of "
                + "0 when the tool ran.")
        boolean exitCode;

        CallCommand(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            if (positionalArgs != null && optionArgs != null) {
                throw new CliException(ExitCodes.USAGE, "mono-agent: give the arguments once (ARGS_JSON or --args).");
            }
            String args = optionArgs != null ? optionArgs : positionalArgs != null ? positionalArgs : "{}";
            LoadedConfig lc = options.load(ctx);
            Tools.describe(lc);
            String run = runId != null ? runId : "cli-" + UUID.randomUUID().toString().substring(0, 8);
            // a running instance keeps run contexts (and their NodeRepl) alive between invocations
            Optional<ToolCallReply> remote;
            try {
                remote = ControlClient.forWorkspace(lc.workspace()).callTool(name, args, run);
            } catch (ControlClient.TimedOut e) {
                // the call may still be running in the instance: running it here as well would run it twice
                throw new CliException(ExitCodes.ERROR, "Error: " + e.getMessage() + "; the tool call may still be "
                        + "running there (see `mono-agent logs`). [control_timeout]");
            } catch (ControlClient.ControlException e) {
                if (!e.notServed()) {
                    // it ran there and failed: running it here as well would run it twice
                    throw new CliException(ExitCodes.ERROR, "Error: " + e.getMessage() + " [instance_error]");
                }
                ctx.err().println("note: the running instance does not serve tool calls (" + e.getMessage()
                        + "); running this call in a fresh run here.");
                remote = Optional.empty();
            }
            ToolCallReply r = remote.isPresent() ? remote.get() : callHere(lc, args, run);
            if (json) {
                // the call's events, exactly as the run log holds them (an instance sends them as such lines)
                r.events().forEach(ctx.out()::println);
            } else {
                // the tool's output with its escape sequences shown, not obeyed (--json has the bytes); a failed
                // call's message is an error and goes to stderr with its [kind]
                (r.outcome().ok() ? ctx.out() : ctx.err()).println(ctx.shown(r.text()));
                EventPrinter human = EventPrinter.human(ctx.err());
                r.parsedEvents().forEach(human::accept);
                if (!r.outcome().ok()) {
                    ctx.err().println("[" + r.outcome().wire() + "]");
                }
            }
            if (!r.outcome().ok()) {
                return ExitCodes.ERROR;
            }
            if (exitCode && r.data() != null && r.data().path("exitCode").isInt()) {
                int code = r.data().path("exitCode").asInt();
                return code >= 0 && code <= 255 ? code : ExitCodes.ERROR;
            }
            return ExitCodes.OK;
        }

        /** One call in a fresh run of this process (its NodeRepl ends with the process); the run log is kept. */
        private ToolCallReply callHere(LoadedConfig lc, String args, String run) {
            try (AgentService service = AgentService.of(lc, HostEnv.from(ctx.env()))) {
                ToolCallReply r = service.callTool(name, args, run);
                service.finishRun(run, RunStatus.COMPLETED);
                return r;
            }
        }
    }
}
