package dev.monoagent.cli;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.TrustItem;
import dev.monoagent.config.WorkspaceTrust;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mono-agent trust}: accepts the workspace's own settings that wait for the reviewer (anything from its
 * config, {@code .env}, {@code IDENTITY.md} or {@code SOUL.md} that would widen the sandbox, send a credential or
 * become instructions), printing exactly what it accepts; {@code --show} only lists them. The record is kept in the
 * user config dir, never in the workspace; a later change to any accepted setting waits again.
 */
@Command(name = "trust", mixinStandardHelpOptions = true,
        description = "Accept the workspace settings that wait for you (--show lists them and accepts nothing).")
final class TrustCommand implements Callable<Integer> {
    private final CliContext ctx;

    @Mixin
    ConfigOptions options;

    @Option(names = "--show", description = "List what waits and what was accepted; accept nothing.")
    boolean show;

    TrustCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        ConfigLoader.Pending pending = ConfigLoader.pending(options.options(ctx));
        Path workspace = pending.workspace();
        WorkspaceTrust trust = pending.trust();
        ctx.out().println("Workspace: " + workspace);
        if (show) {
            if (trust.pending().isEmpty()) {
                ctx.out().println("Nothing from the workspace waits for your acceptance.");
            } else {
                ctx.out().println("Waiting for your acceptance (not in effect):");
                trust.pending().forEach(i -> print(i, workspace));
                ctx.out().println("Accept them with: " + WorkspaceTrust.ACCEPT_COMMAND);
            }
            if (!trust.accepted().isEmpty()) {
                ctx.out().println("Accepted earlier (in effect):");
                trust.accepted().forEach(i -> ctx.out().println("  - " + ctx.shown(i.line())));
            }
            return ExitCodes.OK;
        }
        if (trust.pending().isEmpty()) {
            ctx.out().println("Nothing from the workspace waits for your acceptance.");
            try {
                options.loadQuietly(ctx);
                return ExitCodes.OK;
            } catch (ConfigException e) {
                return reportStill(e);
            }
        }
        ctx.out().println("Accepting " + trust.pending().size() + " setting(s) from the workspace:");
        for (TrustItem i : trust.pending()) {
            print(i, workspace);
        }
        Path file = ConfigLoader.accept(ctx.env(), workspace, trust);
        ctx.out().println("Accepted; recorded in " + file + ". A later change to any of them waits again.");
        try {
            options.loadQuietly(ctx);
        } catch (ConfigException e) {
            return reportStill(e);
        }
        return ExitCodes.OK;
    }

    /**
     * One item; an instruction file with its whole text below it, each line escaped (a hidden {@code ESC[8m} run shows
     * as {@code \x1b[8m}), so what is accepted has been on screen.
     */
    private void print(TrustItem i, Path workspace) {
        ctx.out().println("  - " + ctx.shown(i.line()));
        String text = ConfigLoader.instructionText(workspace, i);
        if (text != null) {
            text.lines().forEach(l -> ctx.out().println("      | " + dev.monoagent.common.Printable.oneLine(l)));
        }
    }

    private int reportStill(ConfigException e) {
        ctx.err().println("mono-agent: the config still has errors:");
        e.errors().stream().filter(er -> !er.field().equals("trust"))
                .forEach(er -> ctx.err().println("  " + er.message()));
        return ExitCodes.ERROR;
    }
}
