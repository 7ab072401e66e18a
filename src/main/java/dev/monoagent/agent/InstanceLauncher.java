package dev.monoagent.agent;

import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.locks.LockSupport;

/**
 * The three instance verbs the CLI calls: {@link #start}, {@link #status}, {@link #stop}. A background start spawns
 * a detached child ({@code start --foreground}) whose output goes to {@code <ws>/.mono-agent/logs/instance.log} and
 * waits until its control endpoint answers; a foreground start runs the chosen {@link Frontend} in this process.
 * The policy is never touched here: the instance reports whatever the sandbox proves (fail-closed stays blocked).
 */
public final class InstanceLauncher {
    /** How long a background start waits for the child's endpoint. */
    public static final Duration START_WAIT = Duration.ofSeconds(30);

    /** The variable a jpackage launcher sets for its own JVM, see {@link #relaunchProcess}. */
    static final String JPACKAGE_LAUNCHER_ENV = "_JPACKAGE_LAUNCHER";

    private InstanceLauncher() {}

    /** Outcome of {@link #start}. */
    public sealed interface StartResult {}

    /** Another process already owns the workspace; it was asked to raise its window. */
    public record AlreadyRunning(Optional<InstanceStatus> status) implements StartResult {}

    /** A background instance was spawned and answers. */
    public record Started(InstanceStatus status, Path log) implements StartResult {}

    /** The foreground instance ran and stopped. */
    public record Exited(int exitCode) implements StartResult {}

    /** Nothing started. */
    public record Failed(String message, Path log) implements StartResult {}

    /** Starts (or finds) the instance for {@code o.workspace()}. */
    public static StartResult start(StartOptions o) throws Exception {
        Optional<InstanceStatus> running = ControlClient.forWorkspace(o.workspace()).focus();
        if (running.isPresent()) {
            return new AlreadyRunning(running);
        }
        if (o.foreground()) {
            Frontend f = frontend(o.resolvedHeadless());
            int code;
            try {
                code = f.run(o);
            } catch (RuntimeException e) {
                return new Failed(e.getMessage(), null);
            }
            if (code == 1) {
                Optional<InstanceStatus> other = ControlClient.forWorkspace(o.workspace()).focus();
                if (other.isPresent()) {
                    return new AlreadyRunning(other);
                }
            }
            return new Exited(code);
        }
        return spawn(o);
    }

    /** The running instance's status, or empty when none runs for the workspace. */
    public static Optional<InstanceStatus> status(Path workspace) {
        return ControlClient.forWorkspace(workspace).status();
    }

    /**
     * Asks the instance to stop and waits up to {@code wait} for its endpoint to go away.
     *
     * @return the instance's last status, or empty when none was running
     */
    public static Optional<InstanceStatus> stop(Path workspace, Duration wait) {
        ControlClient client = ControlClient.forWorkspace(workspace);
        Optional<InstanceStatus> last = client.stop();
        if (last.isPresent()) {
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() < deadline && client.status().isPresent()) {
                LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            }
        }
        return last;
    }

    /**
     * The argv that re-runs this program's main class with {@code args} in a new JVM (same java binary, same class
     * path — the fat jar or the build's classes), for {@link StartOptions#childCommand()}, e.g.
     * {@code relaunchCommand("dev.monoagent.cli.Main", List.of("start", "--config", path))}. Start it with
     * {@link #relaunchProcess}, which gives a jpackage launcher the environment it needs.
     */
    public static List<String> relaunchCommand(String mainClass, List<String> args) {
        return relaunchCommand(mainClass, args, System.getProperty("jpackage.app-path"));
    }

    /**
     * {@link #relaunchCommand(String, List)} for a given jpackage launcher path ({@code jpackage.app-path}, which
     * every jpackage launcher sets: installed package and app image run in place alike), or null outside one.
     */
    static List<String> relaunchCommand(String mainClass, List<String> args, String appLauncher) {
        // a jpackage app: the native launcher reads main class, class path and JVM options from its
        // lib/app/<name>.cfg and takes only the app's arguments
        if (appLauncher != null && !appLauncher.isBlank()) {
            List<String> argv = new ArrayList<>(List.of(appLauncher));
            argv.addAll(args);
            return argv;
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> argv = new ArrayList<>(List.of(java, "-XX:+UseSerialGC"));
        // the engine cache override travels with the instance, so it proves the same engine this CLI sees
        String cache = System.getProperty("monoagent.cacheDir");
        if (cache != null && !cache.isBlank()) {
            argv.add("-Dmonoagent.cacheDir=" + cache);
        }
        // so is the JavaFX platform choice (a headless Monocle toolkit in CI): the window instance renders as this
        // process would
        for (String p : List.of("glass.platform", "monocle.platform", "prism.order", "prism.text")) {
            String v = System.getProperty(p);
            if (v != null && !v.isBlank()) {
                argv.add("-D" + p + "=" + v);
            }
        }
        argv.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        argv.addAll(args);
        return argv;
    }

    /**
     * A process for a {@link #relaunchCommand} argv. A jpackage launcher puts {@code _JPACKAGE_LAUNCHER} into
     * its JVM's environment, and on Linux, when it runs from an app image no package owns, also its {@code lib/app}
     * into {@code LD_LIBRARY_PATH}. A launcher that inherits both takes its arguments as {@code java}'s instead of
     * reading its {@code .cfg}, so the app image's {@code bin/mono-agent start …} would fail with "Could not find or
     * load main class start" (the installed package passes: no {@code LD_LIBRARY_PATH} change). Without the marker
     * every launcher starts as from a shell; the rest of the environment passes through unchanged.
     */
    public static ProcessBuilder relaunchProcess(List<String> argv) {
        ProcessBuilder pb = ChildProcesses.builder(argv);
        pb.environment().remove(JPACKAGE_LAUNCHER_ENV);
        return pb;
    }

    /** True when a window can be opened (Linux/BSD: DISPLAY or WAYLAND_DISPLAY set; other OSes: always). */
    public static boolean displayAvailable() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        if (os.contains("mac") || os.contains("win")) {
            return !Boolean.getBoolean("java.awt.headless");
        }
        return notBlank(System.getenv("DISPLAY")) || notBlank(System.getenv("WAYLAND_DISPLAY"));
    }

    /** The frontend for the choice: the registered window frontend, or the built-in headless one. */
    static Frontend frontend(boolean headless) {
        if (!headless) {
            for (Frontend f : ServiceLoader.load(Frontend.class)) {
                if (f.kind().equals("window")) {
                    return f;
                }
            }
        }
        return new HeadlessFrontend();
    }

    private static StartResult spawn(StartOptions o) throws IOException, InterruptedException {
        if (o.childCommand().isEmpty()) {
            return new Failed("no command to spawn the background instance", null);
        }
        Path logs = o.workspace().resolve(".mono-agent").resolve("logs");
        Files.createDirectories(logs);
        Path log = logs.resolve("instance.log");
        List<String> argv = new ArrayList<>(o.childCommand());
        argv.add("--foreground");
        argv.add(o.resolvedHeadless() ? "--headless" : "--window");
        ProcessBuilder pb = relaunchProcess(argv)
                .directory(o.workspace().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        ControlClient client = ControlClient.forWorkspace(o.workspace());
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<InstanceStatus> s = client.status();
            if (s.isPresent()) {
                return new Started(s.get(), log);
            }
            if (!p.isAlive()) {
                return new Failed("instance exited with code " + p.exitValue() + " before it answered", log);
            }
            Thread.sleep(100);
        }
        return new Failed("instance did not answer within " + START_WAIT.toSeconds() + " s", log);
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }
}
