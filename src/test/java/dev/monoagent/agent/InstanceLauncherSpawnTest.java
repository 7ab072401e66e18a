package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A background start spawns a detached instance that answers status and stops on request. */
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
}
