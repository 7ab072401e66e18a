package dev.monoagent.cli;

import dev.monoagent.agent.Doctor;
import dev.monoagent.agent.InstanceLauncher;
import dev.monoagent.agent.RecentWorkspaces;
import dev.monoagent.agent.UserDirs;
import dev.monoagent.agent.InstanceStatus;
import dev.monoagent.agent.SandboxSummary;
import dev.monoagent.agent.StartOptions;
import dev.monoagent.config.ConfigError;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The instance verbs: {@code start}, {@code stop}, {@code restart}, {@code status}, {@code logs}. The instance itself
 * (one per workspace, owner-only control socket) lives in {@code dev.monoagent.agent}; these commands preflight,
 * call it and print.
 */
final class InstanceCommands {
    private InstanceCommands() {}

    static final Duration STOP_WAIT = Duration.ofSeconds(15);

    static Path[] locate(CliContext ctx, ConfigOptions options) {
        return ConfigLoader.locate(options.options(ctx));
    }

    static Path logFile(Path workspace) {
        return workspace.resolve(".mono-agent/logs/instance.log");
    }

    /**
     * {@code start}: needs the config file (exit 2 without), refuses a config with an error section (exit 1), prints
     * waiting sections as warnings, never relaxes the sandbox policy.
     */
    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Start the workbench instance for this workspace (a window, or headless without a display).")
    static final class Start implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = {"-f", "--foreground"}, description = "Run in this process instead of in the background.")
        boolean foreground;

        @Option(names = "--headless", description = "No window: serve status and the sandbox only.")
        boolean headless;

        @Option(names = "--window", description = "Open the window even when no display is detected.")
        boolean window;

        @Option(names = ConfigOptions.ACCEPT_FLAG, description = "First accept the workspace settings that wait for you "
                + "(as mono-agent trust, printing each).")
        boolean acceptPolicyChange;

        Start(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            if (headless && window) {
                throw new CliException(ExitCodes.USAGE, "mono-agent: --headless and --window exclude each other.");
            }
            return start(ctx, options, foreground, headless ? Boolean.TRUE : window ? Boolean.FALSE : null,
                    acceptPolicyChange);
        }
    }

    static int start(CliContext ctx, ConfigOptions options, boolean foreground, Boolean headless) throws Exception {
        return start(ctx, options, foreground, headless, false);
    }

    static int start(CliContext ctx, ConfigOptions options, boolean foreground, Boolean headless, boolean accept)
            throws Exception {
        Path[] where = locate(ctx, options);
        if (!Files.isRegularFile(where[1])) {
            throw new CliException(ExitCodes.USAGE, "No config file at " + where[1]
                    + "; run mono-agent init first (or pass --config PATH).");
        }
        LoadedConfig lc = options.load(ctx, accept);
        Doctor.Report report = Doctor.run(lc, SandboxVerdicts.verdict(lc, false, ctx), null);
        for (Doctor.Section s : report.sections()) {
            if (s.status() == Doctor.Status.ERROR) {
                ctx.err().println(s.title() + ": error");
                s.details().forEach(d -> ctx.err().println("  " + ctx.shown(d)));
            } else if (s.status() == Doctor.Status.WAITING && !foreground) {
                s.details().stream().filter(d -> d.startsWith("[WARN]")).forEach(d -> ctx.out().println(ctx.shown(d)));
            }
        }
        if (report.hasError()) {
            ctx.err().println("Not starting: fix the errors above (mono-agent validate shows every section).");
            return ExitCodes.ERROR;
        }
        if (lc.config().sandbox().unsafeFallbackAllowed()) {
            ctx.out().println(SandboxStatus.UNSAFE_WARNING);
        }
        List<String> childArgs = new ArrayList<>(List.of("start"));
        if (options.config != null) {
            childArgs.addAll(List.of("--config", lc.configPath().toString()));
        }
        if (options.envFile != null) {
            childArgs.addAll(List.of("--env-file", ctx.cwd().resolve(options.envFile).toString()));
        }
        StartOptions so = new StartOptions(lc.workspace(), lc.configPath(), foreground, headless,
                InstanceLauncher.relaunchCommand(Main.class.getName(), childArgs));
        if (!so.resolvedHeadless()) {
            rememberOpened(ctx, lc.workspace());
        }
        InstanceLauncher.StartResult r = InstanceLauncher.start(so);
        return switch (r) {
            case InstanceLauncher.AlreadyRunning a -> {
                ctx.out().println("Already running for " + lc.workspace()
                        + a.status().map(s -> " (pid " + s.pid() + "); raised its window.").orElse("."));
                yield ExitCodes.OK;
            }
            case InstanceLauncher.Started s -> {
                ctx.out().println("Started mono-agent for " + lc.workspace() + " (pid " + s.status().pid() + ", "
                        + s.status().frontend() + "). Log: " + s.log());
                printBlock(ctx, "sandbox", s.status().sandbox().lines());
                yield ExitCodes.OK;
            }
            case InstanceLauncher.Exited e -> e.exitCode();
            case InstanceLauncher.Failed f -> {
                ctx.err().println("mono-agent: start failed: " + f.message()
                        + (f.log() == null ? "" : " (log: " + f.log() + ")"));
                yield ExitCodes.ERROR;
            }
        };
    }

    /**
     * Puts a workspace whose window this start opens at the front of the start page's recent list, however it was
     * opened ({@code start}, {@code start --window}, {@code workbench FOLDER}). The list lives in the reviewer's config
     * dir, never in the workspace; a list that cannot be written costs a warning, not the start.
     */
    static void rememberOpened(CliContext ctx, Path workspace) {
        try {
            new RecentWorkspaces(UserDirs.configDir(ctx.env())).opened(workspace);
        } catch (java.io.IOException e) {
            ctx.err().println("mono-agent: cannot update the recent workspaces: " + e.getMessage());
        }
    }

    /** {@code stop}: asks the running instance to stop and waits for it. */
    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop the instance for this workspace.")
    static final class Stop implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        Stop(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            Path ws = locate(ctx, options)[0];
            Optional<InstanceStatus> last = InstanceLauncher.stop(ws, STOP_WAIT);
            if (last.isEmpty()) {
                ctx.out().println("No instance is running for " + ws + ".");
            } else if (InstanceLauncher.status(ws).isPresent()) {
                ctx.err().println("Instance pid " + last.get().pid() + " did not stop within "
                        + STOP_WAIT.toSeconds() + " s.");
                return ExitCodes.ERROR;
            } else {
                ctx.out().println("Stopped instance pid " + last.get().pid() + " for " + ws + ".");
            }
            return ExitCodes.OK;
        }
    }

    /** {@code restart}: stop (if running), then a background start. */
    @Command(name = "restart", mixinStandardHelpOptions = true, description = "Stop, then start the instance.")
    static final class Restart implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--headless", description = "No window.")
        boolean headless;

        @Option(names = ConfigOptions.ACCEPT_FLAG, description = "First accept the workspace settings that wait for you "
                + "(as mono-agent trust, printing each).")
        boolean acceptPolicyChange;

        Restart(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            Path ws = locate(ctx, options)[0];
            if (acceptPolicyChange && Files.isRegularFile(locate(ctx, options)[1])) {
                options.load(ctx, true);
            }
            Optional<InstanceStatus> last = InstanceLauncher.stop(ws, STOP_WAIT);
            if (last.isPresent() && InstanceLauncher.status(ws).isPresent()) {
                ctx.err().println("Instance pid " + last.get().pid() + " did not stop; not restarting.");
                return ExitCodes.ERROR;
            }
            last.ifPresent(s -> ctx.out().println("Stopped instance pid " + s.pid() + "."));
            return start(ctx, options, false, headless ? Boolean.TRUE : null);
        }
    }

    /**
     * {@code status}: works on broken configs. Blocks: instance, channels, sandbox, process jobs, runs health. The
     * sandbox block comes from the running instance when there is one, else from the engine's on-disk state.
     */
    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show instance, sandbox and jobs state.")
    static final class Status implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        Status(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            Path[] where = locate(ctx, options);
            Optional<InstanceStatus> running = InstanceLauncher.status(where[0]);
            printBlock(ctx, "instance", running.map(InstanceStatus::instanceLines)
                    .orElseGet(() -> InstanceStatus.notRunningLines(where[1].toString())));
            LoadedConfig lc = null;
            List<String> configProblems = new ArrayList<>();
            if (!Files.isRegularFile(where[1])) {
                configProblems.add("no config file (run mono-agent init)");
            } else {
                try {
                    lc = options.load(ctx);
                } catch (ConfigException e) {
                    e.errors().stream().map(ConfigError::message).forEach(m -> configProblems.add("config error: " + m));
                }
            }
            configProblems.forEach(p -> ctx.out().println("  " + ctx.shown(p))); // they quote the repository's values
            printBlock(ctx, "channels", List.of("none configured (messaging channels are not part of this build)"));
            List<String> sandbox;
            if (running.isPresent()) {
                sandbox = running.get().sandbox().lines();
            } else if (lc != null) {
                sandbox = SandboxSummary.of(Sandbox.quickStatus(lc)).lines();
            } else {
                sandbox = List.of("unknown: the config could not be loaded");
            }
            printBlock(ctx, "sandbox", sandbox);
            printBlock(ctx, "process jobs", lc == null ? List.of("unknown")
                    : lc.config().processJobs().enabled()
                    ? List.of("enabled (max " + lc.config().processJobs().maxConcurrent() + " concurrent), 0 running")
                    : List.of("disabled (processJobs.enabled is false)"));
            printBlock(ctx, "runs health", lc == null ? List.of("unknown") : Doctor.runsHealth(lc).details());
            // a config that does not load is an error even though the rest could be shown
            return lc == null && Files.isRegularFile(where[1]) ? ExitCodes.ERROR : ExitCodes.OK;
        }
    }

    /** {@code logs [-f] [--lines N]}: the instance log. */
    @Command(name = "logs", mixinStandardHelpOptions = true, description = "Print (or follow) the instance log.")
    static final class Logs implements Callable<Integer> {
        private final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = {"-f", "--follow"}, description = "Keep printing new lines until interrupted.")
        boolean follow;

        @Option(names = {"-n", "--lines"}, paramLabel = "N", defaultValue = "100",
                description = "How many lines from the end (default: ${DEFAULT-VALUE}).")
        int lines;

        Logs(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws IOException, InterruptedException {
            if (lines < 0) {
                throw new CliException(ExitCodes.USAGE, "mono-agent: --lines must be 0 or more, got " + lines + ".");
            }
            Path log = logFile(locate(ctx, options)[0]);
            if (!Files.isRegularFile(log)) {
                ctx.out().println("No instance log yet at " + log + " (mono-agent start writes it).");
                return ExitCodes.OK;
            }
            Deque<String> tail = new ArrayDeque<>();
            long pos;
            try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
                String line;
                while ((line = f.readLine()) != null) {
                    tail.addLast(new String(line.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
                    if (tail.size() > lines) {
                        tail.removeFirst();
                    }
                }
                pos = f.getFilePointer();
            }
            // the log quotes what commands and the repository wrote (and a planted one is all theirs): escaped
            tail.forEach(l -> ctx.out().println(ctx.shown(l)));
            ctx.out().flush();
            while (follow) {
                Thread.sleep(250);
                long size = Files.size(log);
                if (size < pos) {
                    pos = 0;
                }
                if (size > pos) {
                    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
                        f.seek(pos);
                        byte[] buf = new byte[(int) Math.min(size - pos, 1 << 20)];
                        f.readFully(buf);
                        pos += buf.length;
                        ctx.out().print(ctx.shown(new String(buf, StandardCharsets.UTF_8)));
                        ctx.out().flush();
                    }
                }
            }
            return ExitCodes.OK;
        }
    }

    static void printBlock(CliContext ctx, String title, List<String> lines) {
        ctx.out().println(title);
        lines.forEach(l -> ctx.out().println("  " + l));
    }
}
