package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.SandboxStatus;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Right after a successful start, while the instance is still proving its own engine, {@code status} must not say
 * "last self-check failed" from the host-wide record of some earlier check: while it proves, the status says so.
 */
class ProvingStatusTest {
    @TempDir
    Path ws;

    @Test
    void whileTheEngineIsBeingProvenTheStatusSaysSoNotAStaleFailure() throws Exception {
        HostEnv env = TestEngine.env();
        Path last = env.cacheRoot().resolve("selfcheck/last.json");
        byte[] saved = Files.exists(last) ? Files.readAllBytes(last) : null;
        CountDownLatch gate = new CountDownLatch(1);
        LoadedConfig cfg = new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, MonoConfig.DEFAULTS,
                Map.of(), List.of(), Map.of());
        AgentService service = AgentService.withOpener(cfg, env, sink -> {
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("held back by the test");
        });
        try {
            Files.createDirectories(last.getParent());
            Files.writeString(last, "{\"time\":\"" + Instant.now() + "\",\"passed\":false,\"probes\":[]}");
            service.openEngine();
            SandboxStatus s = service.sandboxStatus();
            String detail = String.valueOf(s.detail());
            assertFalse(detail.contains("last self-check failed"), detail);
            assertTrue(detail.contains("proving the engine now"), detail);
        } finally {
            gate.countDown();
            service.close();
            if (saved != null) {
                Files.write(last, saved);
            } else {
                Files.deleteIfExists(last);
            }
        }
    }
}
