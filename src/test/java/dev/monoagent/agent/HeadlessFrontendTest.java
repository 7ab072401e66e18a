package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeadlessFrontendTest {
    @TempDir
    Path ws;

    @Test
    void headlessInstanceAnswersStatusAndStopsOnRequest() throws Exception {
        StartOptions o = new StartOptions(ws, ws.resolve("mono-agent.config.json"), true, true, List.of());
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            Future<Integer> run = pool.submit(() -> new HeadlessFrontend().run(o));
            Optional<InstanceStatus> s = Optional.empty();
            for (int i = 0; i < 100 && s.isEmpty(); i++) {
                Thread.sleep(50);
                s = InstanceLauncher.status(ws);
            }
            InstanceStatus st = s.orElseThrow();
            assertEquals("headless", st.frontend());
            assertEquals(ProcessHandle.current().pid(), st.pid());
            // the engine decides native or blocked; a fail-closed policy never reports a host fallback
            assertTrue(List.of("native", "blocked").contains(st.sandbox().effective().wire()), st.sandbox().toString());
            assertEquals("fallback: fail-closed", st.sandbox().lines().get(2));
            assertEquals("fallback active: no", st.sandbox().lines().get(3));

            InstanceLauncher.StartResult again = InstanceLauncher.start(o);
            assertInstanceOf(InstanceLauncher.AlreadyRunning.class, again);

            assertTrue(InstanceLauncher.stop(ws, Duration.ofSeconds(5)).isPresent());
            assertEquals(0, run.get(10, TimeUnit.SECONDS));
            assertTrue(InstanceLauncher.status(ws).isEmpty());
        } finally {
            pool.shutdownNow();
        }
    }
}
