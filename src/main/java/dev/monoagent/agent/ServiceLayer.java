package dev.monoagent.agent;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The part of an instance that is not a window: the loaded config and the sandbox state that the control endpoint
 * reports. The sandbox state comes from a supplier so the real engine facade can be plugged in (the workbench passes
 * its sandbox panel's state); with no engine wired in, the state is the fail-closed one: {@code blocked} with the
 * engine absent, never a silent relaxation.
 */
public final class ServiceLayer {
    private final LoadedConfig config;
    private volatile Supplier<SandboxSummary> sandbox;

    private ServiceLayer(LoadedConfig config) {
        this.config = config;
        this.sandbox = () -> withoutEngine(config.config().sandbox(), "sandbox engine is not available");
    }

    /** Loads the workspace's config (the CLI already preflighted it; a broken one still yields defaults). */
    public static ServiceLayer open(StartOptions o) {
        LoadedConfig lc;
        try {
            lc = ConfigLoader.load(new ConfigLoader.Options(o.workspace(), o.configPath(), null, System.getenv()));
        } catch (ConfigException e) {
            lc = new LoadedConfig(o.configPath(), false, o.workspace(), MonoConfig.DEFAULTS, Map.of(),
                    java.util.List.of(e.getMessage()), Map.of());
        }
        return new ServiceLayer(lc);
    }

    public LoadedConfig config() {
        return config;
    }

    public Path workspace() {
        return config.workspace();
    }

    /** Plugs in the live sandbox state. */
    public void sandboxState(Supplier<SandboxSummary> supplier) {
        this.sandbox = supplier;
    }

    public SandboxSummary sandboxSummary() {
        return sandbox.get();
    }

    /** The sandbox block when no engine could be proven: fail-closed blocks, unsafe fallback runs on the host. */
    public static SandboxSummary withoutEngine(MonoConfig.Sandbox s, String reason) {
        if (s.mode() == SandboxMode.OFF) {
            return new SandboxSummary("off", "srt (absent)", s.fallback().wire(), false, SandboxSummary.OFF_DETAIL,
                    null);
        }
        if (s.unsafeFallbackAllowed()) {
            return new SandboxSummary("unsafe-host-process", "srt (absent)", Fallback.UNSAFE_HOST_PROCESS.wire(),
                    true, reason, null);
        }
        return new SandboxSummary("blocked", "srt (absent)", s.fallback().wire(), false,
                "sandbox_unavailable: " + reason, null);
    }
}
