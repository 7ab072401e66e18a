package dev.monoagent.cli;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
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

    LoadedConfig load(CliContext ctx) throws ConfigException {
        return RootsCheck.check(ConfigLoader.load(options(ctx)));
    }
}
