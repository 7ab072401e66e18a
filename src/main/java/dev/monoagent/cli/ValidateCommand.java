package dev.monoagent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.agent.Doctor;
import dev.monoagent.config.ConfigError;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.Presets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code mono-agent validate} (alias {@code doctor}): sectioned readiness report; exit 1 only on an error section. */
@Command(name = "validate", aliases = "doctor", mixinStandardHelpOptions = true,
        description = "Check the config and the machine; print each section as ok, waiting, disabled or error.")
final class ValidateCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final CliContext ctx;

    @Mixin
    ConfigOptions options;

    @Option(names = "--preset", paramLabel = "ID", description = "Also check a preset's expectations.")
    String preset;

    @Option(names = "--json", description = "Print exactly one JSON object.")
    boolean json;

    ValidateCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        if (preset != null && Presets.find(preset).isEmpty()) {
            throw new CliException(ExitCodes.USAGE, "Unknown preset: " + preset + ". Choose one of "
                    + String.join(", ", Presets.ids()) + ".");
        }
        LoadedConfig lc;
        try {
            lc = options.load(ctx);
        } catch (ConfigException e) {
            if (!json) {
                throw e;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ok", false);
            m.put("sections", List.of(Map.of("id", "config", "status", "error",
                    "details", e.errors().stream().map(ConfigError::message).toList())));
            if (preset != null) {
                m.put("preset", preset);
            }
            ctx.out().println(JSON.writeValueAsString(m));
            return ExitCodes.ERROR;
        }
        Doctor.Report report = Doctor.run(lc, SandboxVerdicts.verdict(lc, true, ctx), preset);
        if (json) {
            ctx.out().println(JSON.writeValueAsString(Doctor.toJson(report)));
        } else {
            ctx.out().println(lc.configExists() ? "Loaded " + lc.configPath() + "."
                    : "No config file at " + lc.configPath() + ".");
            for (Doctor.Section s : report.sections()) {
                ctx.out().println();
                ctx.out().println(s.title() + ": " + s.status().word());
                // details quote the workspace's own values (roots, names): no escape sequence reaches a terminal
                s.details().forEach(d -> ctx.out().println("  " + ctx.shown(d)));
            }
            ctx.out().println();
            ctx.out().println(report.closingLine());
        }
        return report.hasError() ? ExitCodes.ERROR : ExitCodes.OK;
    }
}
