package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The canary engine of a check is closed off the check's critical path (its verdict is in first): once the
 * {@link Sandbox} that ran the check is closed, nothing of the canary is left: no temp dir, no process running in
 * it.
 */
class SelfCheckCloseTest {
    @TempDir
    Path tmp;

    @Test
    void nothingOfTheCanaryOutlivesTheSandboxThatRanTheCheck() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        HostEnv env = TestEngine.env();
        Set<Path> earlier = canaries(env);
        for (int i = 0; i < 3; i++) {
            try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()),
                    new TestEngine.Events(), env, true)) {
                assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            }
            Set<Path> left = canaries(env);
            left.removeAll(earlier);
            assertTrue(left.isEmpty(), "canary dirs left after close: " + left);
            List<String> running = ProcessHandle.allProcesses().map(h -> h.info().commandLine().orElse(""))
                    .filter(c -> c.contains("mono-agent-selfcheck-")).toList();
            assertTrue(running.isEmpty(), "canary processes left after close: " + running);
        }
    }

    private static Set<Path> canaries(HostEnv env) throws Exception {
        try (Stream<Path> s = Files.list(env.tmpRoot())) {
            return new HashSet<>(s.filter(p -> p.getFileName().toString().startsWith("mono-agent-selfcheck-"))
                    .toList());
        }
    }
}
