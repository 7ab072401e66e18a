package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Shared fixture for the integration tests: one managed install per JVM (real {@code npm ci} from the registry into a
 * temp cache), a fake home (so {@code ~/.ssh} tests never touch the real one), and config builders.
 */
public final class TestEngine {
    private static HostEnv shared;

    private TestEngine() {}

    /** The host with a temp cache root holding a verified managed install (installed once per JVM). */
    public static synchronized HostEnv env() {
        if (shared != null) {
            return shared;
        }
        try {
            Path root = Files.createTempDirectory("mono-agent-test-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> SrtRuntime.deleteTree(root)));
            Path home = Files.createDirectories(root.resolve("home"));
            Files.createDirectories(home.resolve(".ssh"));
            Files.writeString(home.resolve(".ssh/id_test"), "PRIVATE-KEY-CANARY\n");
            HostEnv base = HostEnv.detect();
            // the system dirs only: tools under the real home (pyenv shims) are not what the sandbox tests exercise
            // (on Apple silicon Homebrew's node and rg live in /opt/homebrew/bin)
            String sys = (Platform.current() == Platform.MACOS ? "/opt/homebrew/bin:" : "")
                    + "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
            HostEnv env = new HostEnv(root.resolve("cache"), home, sys,
                    Files.createDirectories(root.resolve("tmp")), base.hostEnv(), List.of());
            // a host without Node >= 20.11 (fresh Debian 12) runs the suite on the pinned managed Node
            if (!HostTools.hostNodeQualifies(env, List.of())
                    && !(new NodeRuntime(env).setup(line -> { }) instanceof NodeRuntime.Verified)) {
                throw new IllegalStateException("test setup failed: no Node >= 20.11 and no managed Node");
            }
            HostTools tools = ((HostTools.Ok) HostTools.find(env)).tools();
            SrtRuntime.Resolution r = new SrtRuntime(env).setup(tools, line -> { });
            if (r.source() != SrtRuntime.Source.MANAGED) {
                throw new IllegalStateException("test setup failed: " + r.detail());
            }
            shared = env;
            return env;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static LoadedConfig config(Path ws, NetworkMode net, List<String> allowlist) {
        return config(ws, new MonoConfig.Sandbox(SandboxMode.NATIVE, new MonoConfig.Network(net, allowlist),
                List.of("."), List.of("."), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false));
    }

    static LoadedConfig config(Path ws, MonoConfig.Sandbox sandbox) {
        MonoConfig mc = new MonoConfig(MonoConfig.Agent.DEFAULTS, MonoConfig.Runtime.DEFAULTS, Map.of(),
                MonoConfig.Context.DEFAULTS, MonoConfig.Tools.DEFAULTS, sandbox, MonoConfig.Memory.DEFAULTS,
                MonoConfig.ProcessJobs.DEFAULTS, MonoConfig.Monitors.DEFAULTS);
        return new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, mc, Map.of(), List.of(), Map.of());
    }

    /** Collects events for assertions. */
    /** Opens a proven sandbox for {@code ws} (network none, default denies); fails the test unless it is ready. */
    static Sandbox openReady(Path ws) {
        Sandbox sb = Sandbox.open(config(ws, NetworkMode.NONE, List.of()), new Events(), env());
        org.junit.jupiter.api.Assertions.assertEquals("ready", sb.status().state(),
                String.valueOf(sb.status().reason()));
        return sb;
    }

    /**
     * A ready sandbox on {@code ws} whose engine runs commands on the warm shell whatever the environment says
     * ({@code MONO_AGENT_WARM_SHELL=off} included); closing it closes the sandbox and restores that setting.
     */
    record Warm(Sandbox sandbox, boolean was) implements AutoCloseable {
        @Override
        public void close() {
            NativeEngine.warmDefault = was;
            sandbox.close();
        }
    }

    static Warm openWarm(Path ws, EventSink events) {
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = true;
        try {
            Sandbox sb = Sandbox.open(config(ws, NetworkMode.NONE, List.of()), events, env());
            org.junit.jupiter.api.Assertions.assertEquals("ready", sb.status().state(),
                    String.valueOf(sb.status().reason()));
            return new Warm(sb, was);
        } catch (RuntimeException | Error e) {
            NativeEngine.warmDefault = was;
            throw e;
        }
    }

    /**
     * Starts {@code script} as a long-lived sandboxed process in {@code ws} (NodeRepl's kind: it runs beside the run's
     * commands, unfrozen); fails unless it started.
     */
    static SandboxProcess longLived(Sandbox sb, Path ws, String script, String runId, String callId,
                                    java.time.Duration timeout) {
        StartOutcome o = sb.start(new CommandSpec(List.of("/bin/bash", "-c", script), ws, timeout, null,
                java.util.Map.of(), runId, callId, "NodeRepl", CommandSpec.DEFAULT_MAX_OUTPUT));
        return org.junit.jupiter.api.Assertions.assertInstanceOf(StartOutcome.Started.class, o, o.toString())
                .process();
    }

    /**
     * Runs {@code cmd} with the host's own bash in {@code dir} (outside any sandbox: the human's side; bash's $'..'
     * quoting makes names of any bytes) and returns its output; fails unless it exits 0.
     */
    static String host(Path dir, String cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        org.junit.jupiter.api.Assertions.assertEquals(0, p.waitFor(), cmd + ": " + out);
        return out;
    }

    /** Runs a bash command in {@code dir} attributed to {@code runId}/{@code callId}; fails unless it ran. */
    static ExecOutcome.Completed bash(Sandbox sb, Path dir, String cmd, String runId, String callId,
                                      java.time.Duration timeout) {
        ExecOutcome o = sb.exec(CommandSpec.bash(cmd, dir).withAttribution(runId, callId, "Bash").withTimeout(timeout));
        return org.junit.jupiter.api.Assertions.assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
    }

    static final class Events implements EventSink {
        final List<Event> all = new CopyOnWriteArrayList<>();

        @Override
        public void accept(Event event) {
            all.add(event);
        }
    }
}
