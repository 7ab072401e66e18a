package dev.monoagent.cli;

import dev.monoagent.config.ConfigError;
import dev.monoagent.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code mono-agent} command tree. Errors become one or two human lines and an exit code here, in one place:
 * 0 ok, 1 error, 2 usage, 130 interrupted. {@code --debug} adds the stack trace.
 */
public final class MonoAgentCli {
    private MonoAgentCli() {}

    /** Root command: prints usage when run without a subcommand. */
    @Command(name = "mono-agent", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Run an AI code agent inside a provable OS sandbox (srt), from a terminal or a workbench.")
    static final class Root implements Runnable {
        @Spec
        CommandSpec spec;

        @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Print stack traces of unexpected errors.")
        boolean debug;

        @Override
        public void run() {
            spec.commandLine().usage(spec.commandLine().getOut());
        }
    }

    /** Reads the version stamped in at build time. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"mono-agent " + version()};
        }
    }

    public static String version() {
        Properties p = new Properties();
        try (InputStream in = MonoAgentCli.class.getResourceAsStream("/dev/monoagent/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    /** The subcommands, in the order help lists them. */
    static final java.util.List<Class<?>> SUBCOMMANDS = java.util.List.of(CommandLine.HelpCommand.class,
            InitCommand.class, ValidateCommand.class, ConfigCommand.class, PresetsCommand.class, ToolsCommand.class,
            SandboxCommand.class, InstanceCommands.Start.class, InstanceCommands.Stop.class,
            InstanceCommands.Restart.class, InstanceCommands.Status.class, InstanceCommands.Logs.class,
            AuthCommand.class, MemoryCommand.class, RunsCommand.class, WorkbenchCommand.class, RunCommand.class,
            TrustCommand.class);

    /** Builds the whole command tree bound to {@code ctx}. */
    public static CommandLine commandLine(CliContext ctx) {
        return commandLine(ctx, SUBCOMMANDS);
    }

    /**
     * Just the part of the tree {@code args} reach: picocli reads every command's annotations by reflection when it
     * is added (most of a short command's start-up time), so a named subcommand is added alone and
     * {@code --version} alone adds none. Help, usage and an unknown name get the whole tree.
     */
    static CommandLine commandLineFor(CliContext ctx, String... args) {
        String first = null;
        boolean version = false;
        for (String a : args) {
            if (a.equals("--version") || a.equals("-V")) {
                version = true;
            } else if (!a.startsWith("-")) {
                first = a;
                break;
            }
        }
        if (first == null) {
            return commandLine(ctx, version ? java.util.List.of() : SUBCOMMANDS);
        }
        for (Class<?> c : SUBCOMMANDS) {
            Command cmd = c.getAnnotation(Command.class);
            if (cmd != null && cmd.name().equals(first) && c != CommandLine.HelpCommand.class) {
                return commandLine(ctx, java.util.List.of(c));
            }
        }
        return commandLine(ctx, SUBCOMMANDS);
    }

    private static CommandLine commandLine(CliContext ctx, java.util.List<Class<?>> subcommands) {
        Root root = new Root();
        CommandLine cl = new CommandLine(root, new Factory(ctx));
        for (Class<?> c : subcommands) {
            cl.addSubcommand(c);
        }
        cl.setOut(ctx.out());
        cl.setErr(ctx.err());
        cl.setCaseInsensitiveEnumValuesAllowed(false);
        cl.setExecutionExceptionHandler((ex, line, parsed) -> handle(ex, ctx, root.debug));
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine bad = ex.getCommandLine();
            String msg = ex.getMessage();
            if (ex instanceof CommandLine.UnmatchedArgumentException u && bad.getSubcommands().size() > 0
                    && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
                msg = "Unknown command: " + u.getUnmatched().get(0);
            }
            ctx.err().println("mono-agent: " + msg);
            bad.usage(ctx.err());
            return ExitCodes.USAGE;
        });
        return cl;
    }

    public static int run(CliContext ctx, String... args) {
        int code = commandLineFor(ctx, args).execute(args);
        ctx.out().flush();
        ctx.err().flush();
        return code;
    }

    private static int handle(Exception ex, CliContext ctx, boolean debug) {
        if (ex instanceof ConfigException ce) {
            for (ConfigError e : ce.errors()) {
                // a message may quote the repository's own values: one line each, no escape sequence
                ctx.err().println("Config error: " + dev.monoagent.common.Printable.oneLine(e.message()));
            }
            return ExitCodes.ERROR;
        }
        if (ex instanceof CliException ce) {
            ctx.err().println(ce.getMessage());
            return ce.exitCode();
        }
        if (ex instanceof dev.monoagent.model.auth.InvalidSettingException bad) {
            ctx.err().println("mono-agent: " + bad.getMessage());
            return ExitCodes.ERROR;
        }
        if (ex instanceof InterruptedException) {
            ctx.err().println("mono-agent: interrupted");
            return ExitCodes.INTERRUPTED;
        }
        ctx.err().println("mono-agent: unexpected error: " + ex);
        if (debug) {
            ex.printStackTrace(ctx.err());
        } else {
            ctx.err().println("Run again with --debug for details.");
        }
        return ExitCodes.ERROR;
    }

    /** Creates commands, handing {@link CliContext} to those whose constructor takes it. */
    private record Factory(CliContext ctx) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            for (Constructor<?> c : cls.getDeclaredConstructors()) {
                if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == CliContext.class) {
                    c.setAccessible(true);
                    return cls.cast(c.newInstance(ctx));
                }
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }
}
