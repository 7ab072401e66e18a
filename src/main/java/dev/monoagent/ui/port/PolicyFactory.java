package dev.monoagent.ui.port;

import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.sandbox.Policy;
import java.nio.file.Path;
import java.util.List;

/**
 * Builds the {@link Policy} the workbench shows and badges with, from a loaded config. Mirrors the engine's
 * protected literals (state dir, {@code .git/config}, {@code .git/hooks}) so a badge is never missing where the
 * engine protects; when the engine facade is wired in, its own compiled policy is used instead.
 */
public final class PolicyFactory {
    private PolicyFactory() {}

    public static Policy fromConfig(LoadedConfig lc) {
        MonoConfig.Sandbox s = lc.config().sandbox();
        Path ws = lc.workspace().toAbsolutePath().normalize();
        Path home = Path.of(System.getProperty("user.home"));
        return new Policy(ws, s.mode(), s.fallback(), s.unsafeFallbackAllowed(), lc.readableRoots(),
                lc.writableRoots(), s.denyWrite(),
                List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"), ws.resolve(".git/hooks")),
                List.of(home.resolve(".ssh")), s.network().mode(), s.network().allowlist());
    }

    /** The default policy for a bare workspace (no config file). */
    public static Policy defaults(Path workspace) {
        Path ws = workspace.toAbsolutePath().normalize();
        MonoConfig.Sandbox s = MonoConfig.Sandbox.DEFAULTS;
        return new Policy(ws, s.mode(), s.fallback(), false, List.of(ws), List.of(ws), s.denyWrite(),
                List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"), ws.resolve(".git/hooks")),
                List.of(Path.of(System.getProperty("user.home")).resolve(".ssh")), s.network().mode(), List.of());
    }

    /** The snapshot a policy implies before anything was proven. */
    public static SandboxSnapshot unproven(Policy p, String effective, String reason, String engine) {
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
                p.fallback().wire(), "unsafe-host-process".equals(effective), null);
    }
}
