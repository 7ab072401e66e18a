package dev.monoagent.ui.port;

import dev.monoagent.common.Effective;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@link Policy} the workbench shows and badges with: the engine's own compiler's result
 * ({@link Sandbox#policyFor}) for a loaded config, so a badge is never missing where the engine protects (hooks
 * path, engine cache, git control entries); and the snapshot a policy implies before anything was proven.
 */
public final class PolicyFactory {
    private PolicyFactory() {}

    public static Policy fromConfig(LoadedConfig lc) {
        return Sandbox.policyFor(lc, HostEnv.detect());
    }

    /** The default policy for a bare workspace (no config file), from the same compiler. */
    public static Policy defaults(Path workspace) {
        Path ws = workspace.toAbsolutePath().normalize();
        return fromConfig(new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, MonoConfig.DEFAULTS,
                java.util.Map.of(), List.of(), java.util.Map.of()));
    }

    /** The snapshot a policy implies before anything was proven. */
    public static SandboxSnapshot unproven(Policy p, Effective effective, String reason, String engine) {
        List<String> prot = new java.util.ArrayList<>();
        for (Path lit : p.protectedLiterals()) {
            prot.add(lit.toString());
        }
        for (String g : p.denyWriteGlobs()) {
            prot.add(g.startsWith("/") ? g : p.workspace() + "/" + (g.contains("/") ? g : "**/" + g));
        }
        List<String> grants = switch (p.network()) {
            case NONE -> List.of("no network (loopback inside the sandbox only)");
            case LOCALHOST -> List.of("loopback (127.0.0.1, ::1) only; all external hosts blocked");
            case ALLOWLIST -> p.allowlist().stream().map(h -> "host " + h).toList();
            case ALL -> List.of("all hosts");
        };
        return new SandboxSnapshot(effective, reason, engine, "none", null, null, null, null,
                p.readableRoots().stream().map(Path::toString).toList(),
                p.writableRoots().stream().map(Path::toString).toList(), prot, p.network().wire(), grants,
                p.fallback().wire(), effective == Effective.UNSAFE_HOST_PROCESS, null);
    }
}
