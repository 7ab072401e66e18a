package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A background start spawns a detached instance that answers status and stops on request, from the build's classes
 * and from a jpackage app image run in place (a fake one: a launcher with the real launcher's contract and its
 * {@code lib/app/mono-agent.cfg}).
 */
class InstanceLauncherSpawnTest {
    @TempDir
    Path ws;

    @Test
    void backgroundStartSpawnsAnInstanceThatStatusAndStopReach() throws Exception {
        List<String> child = InstanceLauncher.relaunchCommand(TestInstanceMain.class.getName(),
                List.of(ws.toString()));
        StartOptions o = new StartOptions(ws, ws.resolve("mono-agent.config.json"), false, true, child);
        InstanceLauncher.StartResult r = InstanceLauncher.start(o);
        InstanceLauncher.Started started = assertInstanceOf(InstanceLauncher.Started.class, r, String.valueOf(r));
        try {
            assertEquals("headless", started.status().frontend());
            assertTrue(started.status().pid() != ProcessHandle.current().pid());
            assertTrue(Files.exists(started.log()));
            assertInstanceOf(InstanceLauncher.AlreadyRunning.class, InstanceLauncher.start(o));
        } finally {
            assertTrue(InstanceLauncher.stop(ws, Duration.ofSeconds(10)).isPresent());
        }
        assertTrue(InstanceLauncher.status(ws).isEmpty());
        ProcessHandle.of(started.status().pid()).ifPresent(p -> p.onExit().join());
    }

    @Test
    void appImageRelaunchIsTheLauncherWithTheAppArgumentsOnly() {
        String launcher = "/opt/x/mono-agent/bin/mono-agent";
        assertEquals(List.of(launcher, "start", "--config", "/w/mono-agent.config.json"),
                InstanceLauncher.relaunchCommand("dev.monoagent.cli.Main",
                        List.of("start", "--config", "/w/mono-agent.config.json"), launcher));
        List<String> fromClasses = InstanceLauncher.relaunchCommand("dev.monoagent.cli.Main", List.of("start"), null);
        assertEquals(List.of("dev.monoagent.cli.Main", "start"),
                fromClasses.subList(fromClasses.size() - 2, fromClasses.size()));
    }

    @Test
    void appImageRunInPlaceRelaunchesItsInstance(@TempDir Path image) throws Exception {
        Path launcher = fakeAppImage(image, TestAppImageMain.class.getName());
        Path out = image.resolve("start.out");
        Process p = new ProcessBuilder(launcher.toString(), ws.toString()).directory(ws.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "start hung");
        Path log = ws.resolve(".mono-agent/logs/instance.log");
        String why = Files.readString(out) + (Files.exists(log) ? Files.readString(log) : "");
        try {
            assertEquals(0, p.exitValue(), why);
            InstanceStatus s = InstanceLauncher.status(ws).orElseThrow(() -> new AssertionError("no instance " + why));
            assertEquals("headless", s.frontend());
        } finally {
            InstanceLauncher.stop(ws, Duration.ofSeconds(10))
                    .ifPresent(s -> ProcessHandle.of(s.pid()).ifPresent(h -> h.onExit().join()));
        }
        assertTrue(InstanceLauncher.status(ws).isEmpty());
    }

    /**
     * A jpackage app image's shape ({@code bin/mono-agent}, {@code lib/app/mono-agent.cfg}) whose launcher keeps the
     * Linux launcher's contract: run from an app image it adds {@code lib/app} to {@code LD_LIBRARY_PATH}, marks its
     * JVM with {@code _JPACKAGE_LAUNCHER} and {@code -Djpackage.app-path}, and reads main class and class path from
     * the cfg; started with both inherited it is a second pass and takes its arguments as {@code java}'s.
     */
    static Path fakeAppImage(Path image, String mainClass) throws Exception {
        Path app = Files.createDirectories(image.resolve("mono-agent/lib/app"));
        Path bin = Files.createDirectories(image.resolve("mono-agent/bin"));
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Files.writeString(app.resolve("mono-agent.cfg"), "[Application]\n"
                + "app.classpath=" + System.getProperty("java.class.path") + "\n"
                + "app.mainclass=" + mainClass + "\n\n[JavaOptions]\njava-options=-XX:+UseSerialGC\n");
        Path launcher = bin.resolve("mono-agent");
        Files.writeString(launcher, """
                #!/bin/sh
                java='%s'
                self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
                app="$(cd "$(dirname "$0")/../lib/app" && pwd)"
                case ":${LD_LIBRARY_PATH:-}:" in *":$app:"*) inlib=1 ;; *) inlib= ;; esac
                if [ -n "${_JPACKAGE_LAUNCHER+x}" ] && [ -n "$inlib" ]; then exec "$java" "$@"; fi
                [ -n "$inlib" ] || export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:$app"
                export _JPACKAGE_LAUNCHER=0
                cfg="$app/$(basename "$0").cfg"
                main="$(sed -n 's/^app.mainclass=//p' "$cfg")"
                cp="$(sed -n 's/^app.classpath=//p' "$cfg")"
                opts="$(sed -n 's/^java-options=//p' "$cfg")"
                exec "$java" $opts -Djpackage.app-path="$self" -cp "$cp" "$main" "$@"
                """.formatted(java), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return launcher;
    }
}
