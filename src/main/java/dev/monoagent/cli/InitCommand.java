package dev.monoagent.cli;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.EnvVars;
import dev.monoagent.config.Scaffold;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mono-agent init}: scaffolds an agent folder. Never prompts; refuses to overwrite without --force. */
@Command(name = "init", mixinStandardHelpOptions = true,
        description = "Create mono-agent.config.json, IDENTITY.md and .mono-agent/ in the current folder.")
final class InitCommand implements Callable<Integer> {
    private final CliContext ctx;

    @Option(names = "--model", paramLabel = "REF", description = "Model reference <provider>:<model>.")
    String model;

    @Option(names = "--memory", paramLabel = "MODE", description = "Memory mode: lite, journal or bujo.")
    String memory;

    @Option(names = "--preset", paramLabel = "ID", description = "Start from a preset (see: mono-agent presets list).")
    String preset;

    @Option(names = "--network", paramLabel = "MODE", description = "sandbox.network.mode: none, localhost, "
            + "allowlist or all (default: the preset's).")
    String network;

    @Option(names = "--name", paramLabel = "N", description = "Agent name.")
    String name;

    @Option(names = "--dry-run", description = "Show what would be written; change nothing.")
    boolean dryRun;

    @Option(names = "--force", description = "Replace an existing config (it is backed up first).")
    boolean force;

    InitCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws ConfigException, IOException {
        String wsEnv = ctx.env().get(EnvVars.WORKSPACE);
        Path ws = wsEnv == null || wsEnv.isEmpty() ? ctx.cwd() : ctx.cwd().resolve(wsEnv).normalize();
        Scaffold.Request request = new Scaffold.Request(ws, model, memory, preset, name, force, network);
        List<Scaffold.Action> plan = Scaffold.plan(request);
        for (Scaffold.Action a : plan) {
            String rel = ws.relativize(a.path()).toString();
            String verb = switch (a.kind()) {
                case CREATE -> "Create";
                case OVERWRITE -> "Replace";
                case BACKUP -> "Back up old config to";
                case MKDIR -> "Create";
                case APPEND -> "Add ignore entries to";
                case KEEP -> "Keep existing";
            };
            String label = (a.kind() == Scaffold.Action.Kind.MKDIR ? rel + "/" : rel);
            ctx.out().println((dryRun ? "Would " + verb.toLowerCase(java.util.Locale.ROOT) : verb) + " " + label);
            if (dryRun && a.content() != null && a.path().getFileName().toString().endsWith(".json")) {
                ctx.out().print(a.content());
            }
        }
        if (dryRun) {
            ctx.out().println("Dry run: nothing was written.");
            return ExitCodes.OK;
        }
        try {
            Scaffold.apply(plan);
        } catch (IOException e) {
            throw new CliException(ExitCodes.ERROR, "mono-agent: " + e.getMessage());
        }
        ctx.out().println("Initialized agent folder " + ws + ".");
        acceptWhatInitWrote(ws, plan);
        String written = Scaffold.model(request);
        if (written == null) {
            // say plainly what works without a model and what does not, and how to set one in one command
            ctx.out().println("No model set (runtime.model): the window, its consoles and tools call work, but "
                    + "prompts and mono-agent run are refused until one is. Set it with "
                    + "mono-agent init --force" + (preset == null ? "" : " --preset " + preset)
                    + " --model <provider>:<model>, or edit mono-agent.config.json; then run mono-agent validate.");
        } else {
            if (model == null) {
                ctx.out().println("Model: " + written + " (from the preset; --model REF picks another).");
            }
            ctx.out().println("Next: mono-agent sandbox status, then mono-agent validate --preset code-sandbox.");
        }
        return ExitCodes.OK;
    }

    /**
     * The files init just wrote hold the reviewer's own choices (their flags and the preset they named): the settings
     * in them are accepted, exactly as written. Anything else in the workspace (its .env, a kept IDENTITY.md) still
     * waits, and is named.
     */
    private void acceptWhatInitWrote(Path ws, List<Scaffold.Action> plan) throws IOException {
        java.util.Set<String> written = new java.util.HashSet<>();
        for (Scaffold.Action a : plan) {
            if (a.kind() == Scaffold.Action.Kind.CREATE || a.kind() == Scaffold.Action.Kind.OVERWRITE) {
                written.add(a.path().getFileName().toString());
            }
        }
        dev.monoagent.config.WorkspaceTrust trust;
        try {
            trust = ConfigLoader.pending(new ConfigLoader.Options(ws, null, null, ctx.env())).trust();
        } catch (ConfigException e) {
            return; // what init wrote does not load: the command that reads it next says why
        }
        List<dev.monoagent.config.TrustItem> ours = trust.pending().stream()
                .filter(i -> written.contains(i.source())).toList();
        ConfigLoader.accept(ctx.env(), ws, new dev.monoagent.config.WorkspaceTrust(ours, List.of(), java.util.Map.of()));
        List<dev.monoagent.config.TrustItem> rest = trust.pending().stream()
                .filter(i -> !written.contains(i.source())).toList();
        if (!rest.isEmpty()) {
            ctx.err().println("mono-agent: " + new dev.monoagent.config.WorkspaceTrust(rest, List.of(),
                    java.util.Map.of()).notice());
        }
    }
}
