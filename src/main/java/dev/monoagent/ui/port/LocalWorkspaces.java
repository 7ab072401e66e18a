package dev.monoagent.ui.port;

import dev.monoagent.agent.RecentWorkspaces;
import dev.monoagent.common.Event;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.EnvVars;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.Scaffold;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The start page's {@link WorkspacePort} over the real pieces: {@link RecentWorkspaces} in the user's config dir, the
 * same {@link Scaffold} that {@code mono-agent init} runs, the same {@link Sandbox#setup} as {@code sandbox setup},
 * and an opener supplied by the window (it becomes the folder's instance and shows its workbench).
 */
public final class LocalWorkspaces implements WorkspacePort {
    /** Switches the window to a workspace. */
    @FunctionalInterface
    public interface Opener {
        void open(Path folder) throws Exception;
    }

    public static final String PRESET = "code-sandbox";
    private final RecentWorkspaces recent;
    private final Map<String, String> env;
    private final HostEnv host;
    private final Opener opener;

    public LocalWorkspaces(RecentWorkspaces recent, Map<String, String> env, HostEnv host, Opener opener) {
        this.recent = recent;
        this.env = env;
        this.host = host;
        this.opener = opener;
    }

    @Override
    public List<Path> recents() {
        return recent.list();
    }

    @Override
    public boolean configured(Path folder) {
        return Files.isRegularFile(folder.resolve(ConfigLoader.CONFIG_FILE));
    }

    @Override
    public String configProblem(Path folder) {
        try {
            dev.monoagent.config.RootsCheck.check(ConfigLoader.load(new ConfigLoader.Options(folder, null, null, env)));
            return null;
        } catch (dev.monoagent.config.ConfigException e) {
            return ConfigLoader.summary(e);
        }
    }

    @Override
    public void init(Path folder, String model) throws Exception {
        Scaffold.apply(Scaffold.plan(new Scaffold.Request(folder, model, null, PRESET, null, false)));
    }

    @Override
    public CheckReport setupSandbox(Path folder, Consumer<String> onStep, Consumer<ProbeResult> onProbe)
            throws Exception {
        LoadedConfig lc = ConfigLoader.load(options(folder, env));
        try (Sandbox sb = Sandbox.unproven(lc, e -> {
            if (e instanceof Event.ProbeFinished p) {
                onProbe.accept(p.result());
            }
        }, host)) {
            SandboxStatus st = sb.setup(onStep);
            List<ProbeResult> results = st.probes();
            boolean ok = "ready".equals(st.state()) && !results.isEmpty()
                    && results.stream().allMatch(ProbeResult::passed);
            if (!ok && st.reason() != null) {
                onStep.accept(st.reason());
            }
            return new CheckReport(ok, results, java.time.Instant.now());
        }
    }

    /** Loading options for {@code folder} itself: an exported workspace override must not redirect it. */
    public static ConfigLoader.Options options(Path folder, Map<String, String> env) {
        Map<String, String> e = new java.util.HashMap<>(env);
        e.remove(EnvVars.WORKSPACE);
        return new ConfigLoader.Options(folder, null, null, e);
    }

    @Override
    public void open(Path folder) throws Exception {
        opener.open(folder);
        recent.opened(folder);
    }
}
