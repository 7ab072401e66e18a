package dev.monoagent.cli;

import dev.monoagent.agent.StartPage;
import dev.monoagent.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code mono-agent workbench [FOLDER]}: what the app-menu entry runs. A folder with a config opens its workbench in
 * this process (as {@code start --foreground --window} there); no folder, or one without a config, opens the start
 * page (recent workspaces, Open folder…, Set up for review), so no step needs a terminal.
 */
@Command(name = "workbench", mixinStandardHelpOptions = true,
        description = "Open the window: FOLDER's workbench, or the start page when FOLDER is absent or not set up.")
final class WorkbenchCommand implements Callable<Integer> {
    private final CliContext ctx;

    @Parameters(arity = "0..1", paramLabel = "FOLDER", description = "The workspace to open.")
    Path folder;

    WorkbenchCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        Path dir = folder == null ? null : ctx.cwd().resolve(folder).toAbsolutePath().normalize();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new CliException(ExitCodes.USAGE, "mono-agent: " + dir + " is not a folder.");
        }
        int code;
        if (dir != null && Files.isRegularFile(dir.resolve(ConfigLoader.CONFIG_FILE)) && loads(dir)) {
            // the window start records it among the start page's recent workspaces
            CliContext there = new CliContext(ctx.out(), ctx.err(), dir, ctx.env(), ctx.interactive());
            code = InstanceCommands.start(there, new ConfigOptions(), true, Boolean.FALSE);
        } else {
            StartPage page = ServiceLoader.load(StartPage.class).findFirst().orElseThrow(
                    () -> new CliException(ExitCodes.ERROR, "mono-agent: this build has no window."));
            try {
                code = page.run(dir, ctx.env());
            } catch (IllegalStateException e) {
                throw new CliException(ExitCodes.ERROR, "mono-agent: " + e.getMessage()); // no display: says what to do
            }
        }
        String shown = System.getProperty("monoagent.shownAfterMs");
        if (shown != null) {
            ctx.out().println("mono-agent: window interactive after " + shown + " ms (JVM uptime)");
        }
        return code;
    }

    /**
     * Whether {@code dir}'s config loads. A broken one is no dead end from the app menu: its errors go to stderr and
     * the start page opens on the folder, where they are shown too.
     */
    private boolean loads(Path dir) {
        try {
            ConfigLoader.Options o = new ConfigLoader.Options(dir, null, null, ctx.env());
            dev.monoagent.config.RootsCheck.check(ConfigLoader.load(o));
            return true;
        } catch (dev.monoagent.config.ConfigException e) {
            for (dev.monoagent.config.ConfigError err : e.errors()) {
                ctx.err().println("mono-agent: " + err.message());
            }
            ctx.err().println("mono-agent: " + dir + " has config errors; opening the start page instead.");
            return false;
        }
    }
}
