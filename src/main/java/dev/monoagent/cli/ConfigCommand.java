package dev.monoagent.cli;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigView;
import dev.monoagent.config.LoadedConfig;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code mono-agent config}: the resolved config, each value tagged with where it came from; secrets as set/unset. */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Print the resolved config with the source of every value ([env], [dotenv], [json], [default]).")
final class ConfigCommand implements Callable<Integer> {
    private final CliContext ctx;

    @Mixin
    ConfigOptions options;

    ConfigCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws ConfigException {
        LoadedConfig lc = options.load(ctx);
        ctx.out().println(lc.configExists() ? "Loaded " + lc.configPath() + "."
                : "No config file at " + lc.configPath() + "; showing defaults.");
        ctx.out().println("workspace = " + lc.workspace());
        for (ConfigView.Leaf leaf : ConfigView.leaves(lc)) {
            ctx.out().println(leaf.path() + " = " + leaf.value() + " " + leaf.source().tag());
        }
        ctx.out().println("Secrets:");
        for (Map.Entry<String, Boolean> s : ConfigView.secrets(lc).entrySet()) {
            ctx.out().println("  " + s.getKey() + ": " + (s.getValue() ? "set" : "unset"));
        }
        for (String w : lc.warnings()) {
            ctx.out().println("[WARN] " + w);
        }
        return ExitCodes.OK;
    }
}
