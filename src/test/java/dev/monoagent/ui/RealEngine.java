package dev.monoagent.ui;

import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SrtRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The real engine for UI tests: a private temp cache and home, holding a copy of the user's verified managed srt
 * install when there is one (fast) or a fresh {@code sandbox setup} otherwise, so a test may break its copy (to make
 * the engine unavailable) without touching anything real.
 */
final class RealEngine {
    private RealEngine() {}

    static HostEnv env(Path root) throws Exception {
        Path home = Files.createDirectories(root.resolve("home"));
        Files.createDirectories(home.resolve(".ssh"));
        HostEnv env = HostEnv.detect().withCacheRoot(root.resolve("cache")).withHome(home)
                .withPath("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
        SrtRuntime user = new SrtRuntime(HostEnv.detect());
        SrtRuntime mine = new SrtRuntime(env);
        if (Files.isDirectory(user.managedDir())) {
            Files.createDirectories(mine.versionDir());
            Process p = new ProcessBuilder("cp", "-a", user.managedDir().toString(), mine.managedDir().toString())
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() != 0) {
                throw new IOException("cannot copy the managed srt install");
            }
        }
        Path ws = Files.createDirectories(root.resolve("setup-ws"));
        try (Sandbox sb = Sandbox.open(config(ws), e -> { }, env)) {
            if (!"ready".equals(sb.status().state())) {
                sb.setup(line -> { });
            }
            if (!"ready".equals(sb.status().state())) {
                throw new IllegalStateException("engine not ready: " + sb.status().lines());
            }
        }
        return env;
    }

    /** The playbook's config: native, loopback-only, default denyWrite, fail-closed. */
    static LoadedConfig config(Path ws) {
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(Enums.SandboxMode.NATIVE,
                new MonoConfig.Network(Enums.NetworkMode.LOCALHOST, List.of()), List.of("."), List.of("."),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Enums.Fallback.FAIL_CLOSED, false);
        MonoConfig d = MonoConfig.DEFAULTS;
        MonoConfig mc = new MonoConfig(d.agent(), d.runtime(), d.providers(), d.context(), MonoConfig.Tools.DEFAULTS,
                s, d.memory(), d.processJobs(), d.monitors());
        return new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, mc, Map.of(), List.of(), Map.of());
    }

    /** Breaks the engine the way a removed install does: the managed directory disappears. */
    static void remove(HostEnv env) throws IOException {
        Path dir = new SrtRuntime(env).managedDir();
        Files.move(dir, dir.resolveSibling("removed-" + System.nanoTime()));
    }
}
