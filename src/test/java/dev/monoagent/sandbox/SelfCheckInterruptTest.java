package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A self-check that is interrupted (Ctrl-C during {@code sandbox check}, a window closed mid-check) proved nothing
 * either way: it must not be recorded as a failed check, or the next {@code sandbox status} says "unavailable: last
 * self-check failed" until someone re-runs it (seen after a full test run, in the user's real cache).
 */
class SelfCheckInterruptTest {
    @TempDir
    Path tmp;

    @Test
    void anInterruptedSelfCheckLeavesTheLastVerdictAsItWas() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        HostEnv env = TestEngine.env();
        var cfg = TestEngine.config(ws, NetworkMode.NONE, List.of());
        try (Sandbox sb = Sandbox.open(cfg, new TestEngine.Events(), env, true)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
        }
        Path last = env.cacheRoot().resolve("selfcheck/last.json");
        String before = Files.readString(last);
        for (long delay : new long[] {150, 400, 700}) {
            AtomicReference<Sandbox> opened = new AtomicReference<>();
            Thread t = new Thread(() -> opened.set(Sandbox.open(cfg, new TestEngine.Events(), env, true)));
            t.start();
            Thread.sleep(delay);
            t.interrupt();
            t.join(60_000);
            if (opened.get() != null) {
                opened.get().close();
            }
            String now = Files.readString(last);
            assertFalse(now.contains("\"passed\":false"), "interrupted after " + delay + " ms, the record says the "
                    + "check failed: " + now + " (before: " + before + ")");
        }
    }
}
