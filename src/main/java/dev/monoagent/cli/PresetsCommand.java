package dev.monoagent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.monoagent.config.Presets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code mono-agent presets list|show ID}. */
@Command(name = "presets", mixinStandardHelpOptions = true, description = "List or show the built-in presets.",
        subcommands = {PresetsCommand.ListCmd.class, PresetsCommand.ShowCmd.class})
final class PresetsCommand implements Runnable {
    private final CliContext ctx;

    PresetsCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void run() {
        new ListCmd(ctx).call();
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List presets.")
    static final class ListCmd implements Callable<Integer> {
        private final CliContext ctx;

        ListCmd(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            for (Presets.Preset p : Presets.ALL) {
                ctx.out().printf("%-20s %s%n", p.id(), p.summary());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show a preset's config and checks.")
    static final class ShowCmd implements Callable<Integer> {
        private final CliContext ctx;

        @Parameters(paramLabel = "ID", description = "Preset id.")
        String id;

        ShowCmd(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            Presets.Preset p = Presets.find(id).orElseThrow(() -> new CliException(ExitCodes.USAGE,
                    "Unknown preset: " + id + ". Choose one of " + String.join(", ", Presets.ids()) + "."));
            ctx.out().println(p.id() + ": " + p.summary());
            ctx.out().println();
            ctx.out().println("Config written by mono-agent init --preset " + p.id() + ":");
            ctx.out().println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValueAsString(p.config()));
            ctx.out().println();
            ctx.out().println("Checked by mono-agent validate --preset " + p.id() + ":");
            for (Presets.Expectation e : p.expectations()) {
                ctx.out().println("  - " + e.text());
            }
            return ExitCodes.OK;
        }
    }
}
