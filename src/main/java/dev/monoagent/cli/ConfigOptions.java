package dev.monoagent.cli;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.ConfigView;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.RootsCheck;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config} / {@code --env-file} options, mixed into every command that reads the config. */
public final class ConfigOptions {
    @Option(names = "--config", paramLabel = "PATH", description = "Config file (default: ./mono-agent.config.json).")
    Path config;

    @Option(names = "--env-file", paramLabel = "PATH", description = "Env file to load instead of ./.env.")
    Path envFile;

    ConfigLoader.Options options(CliContext ctx) {
        return new ConfigLoader.Options(ctx.cwd(), config, envFile, ctx.env());
    }

    /** Loads the config and says on stderr, in one line each, what the workspace is held back from and how weak
     * the sandbox in effect is, when either applies. */
    LoadedConfig load(CliContext ctx) throws ConfigException {
        LoadedConfig lc = RootsCheck.check(ConfigLoader.load(options(ctx)));
        notices(ctx, lc);
        return lc;
    }

    /** The flag of start, restart and sandbox run that accepts what waits (as {@code mono-agent trust}) first. */
    static final String ACCEPT_FLAG = "--accept-policy-change";

    /**
     * As {@link #load(CliContext)}; with {@code accept}, first accepts every workspace setting that waits, printing
     * each one exactly as {@code mono-agent trust} does.
     */
    LoadedConfig load(CliContext ctx, boolean accept) throws ConfigException, java.io.IOException {
        if (!accept) {
            return load(ctx);
        }
        ConfigLoader.Pending p = ConfigLoader.pending(options(ctx));
        dev.monoagent.config.WorkspaceTrust trust = p.trust();
        if (!trust.settled()) {
            ctx.err().println("Accepting " + trust.pending().size() + " setting(s) from the workspace (" + ACCEPT_FLAG
                    + "):");
            trust.pending().forEach(i -> ctx.err().println("  - " + ctx.shown(i.line())));
            ConfigLoader.accept(ctx.env(), p.workspace(), trust);
        }
        return load(ctx);
    }

    /** Loads the config without printing anything. */
    LoadedConfig loadQuietly(CliContext ctx) throws ConfigException {
        return RootsCheck.check(ConfigLoader.load(options(ctx)));
    }

    /** The trust notice and the weaker-sandbox warning for {@code lc}, on stderr. */
    static void notices(CliContext ctx, LoadedConfig lc) {
        String notice = lc.trust().notice();
        if (notice != null) {
            ctx.err().println("mono-agent: " + notice); // its items are escaped (TrustItem.shortForm)
        }
        String weaker = ConfigView.weakerWarning(lc);
        if (weaker != null) {
            ctx.err().println(weaker);
        }
    }
}
