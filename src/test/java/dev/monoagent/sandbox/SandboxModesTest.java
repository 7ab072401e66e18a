package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.MonoConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sandbox.mode off, the unsafe host fallback, the cheap status, and the violation JSONL record. */
class SandboxModesTest {
    @TempDir
    Path tmp;

    private MonoConfig.Sandbox sandbox(SandboxMode mode, Fallback fallback, boolean unsafe) {
        return new MonoConfig.Sandbox(mode, MonoConfig.Network.DEFAULTS, List.of("."), List.of("."),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, fallback, unsafe);
    }

    @Test
    void offRunsUnwrappedAndSaysSo() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, sandbox(SandboxMode.OFF, Fallback.FAIL_CLOSED, false)),
                e -> { }, TestEngine.env())) {
            SandboxStatus s = sb.status();
            assertEquals("off", s.effective().wire());
            assertTrue(s.lines().contains(SandboxStatus.OFF_DETAIL));
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class,
                    sb.exec(CommandSpec.bash("readlink /proc/self/ns/net; echo x > .env.off", ws)));
            assertEquals("off", c.mode().wire());
            assertEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString(), c.stdout().trim());
            assertTrue(Files.exists(ws.resolve(".env.off")), "unwrapped: the host file is written");
        }
    }

    @Test
    void unsafeFallbackRunsOnTheHostOnlyWithBothSwitchesAndWarns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        HostEnv noEngine = TestEngine.env().withCacheRoot(tmp.resolve("empty-cache")).withPath("/usr/bin:/bin");
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, sandbox(SandboxMode.NATIVE, Fallback.UNSAFE_HOST_PROCESS,
                true)), e -> { }, noEngine)) {
            SandboxStatus s = sb.status();
            assertEquals("unsafe-host-process", s.effective().wire());
            assertTrue(s.fallbackActive());
            assertTrue(s.lines().contains("WARNING: Unsafe sandbox fallback is active: all sandbox roots/denyWrite "
                    + "entries are inert; commands run unsandboxed."));
            assertTrue(s.lines().contains("fallback active: yes"));
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class,
                    sb.exec(CommandSpec.bash("echo ran", ws)));
            assertEquals("unsafe-host-process", c.mode().wire());
        }
        // the fallback switch alone is not enough (the config loader rejects it; the policy must not honour it either)
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, sandbox(SandboxMode.NATIVE, Fallback.UNSAFE_HOST_PROCESS,
                false)), e -> { }, noEngine)) {
            assertEquals("blocked", sb.status().effective().wire());
            assertInstanceOf(ExecOutcome.PrepareFailed.class, sb.exec(CommandSpec.bash("echo ran", ws)));
        }
    }

    @Test
    void cheapStatusReportsWithoutStartingAnything() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        SandboxStatus s = Sandbox.quickStatus(TestEngine.config(ws, NetworkMode.NONE, List.of()), TestEngine.env());
        assertEquals("managed", s.engine().source().wire());
        assertEquals("srt (present)", s.engine().line());
        assertEquals("fail-closed", s.fallback().wire());
        SandboxStatus absent = Sandbox.quickStatus(TestEngine.config(ws, NetworkMode.NONE, List.of()),
                TestEngine.env().withCacheRoot(tmp.resolve("none")).withPath("/usr/bin:/bin"));
        assertEquals("srt (absent)", absent.engine().line());
        assertEquals("blocked", absent.effective().wire());
        assertTrue(absent.reason().startsWith("sandbox_unavailable: "), absent.reason());
    }

    @Test
    void violationsAreAppendedAsJsonLinesWithAttribution() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve(".env"), "S=1\n");
        TestEngine.Events ev = new TestEngine.Events();
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), ev, TestEngine.env())) {
            sb.exec(CommandSpec.bash("echo x >> .env; echo y > .env.jsonl", ws).withAttribution("run-7", "call-9",
                    "Bash"));
            Path log = ws.resolve(".mono-agent/violations/" + LocalDate.now(ZoneOffset.UTC) + ".jsonl");
            long deadline = System.nanoTime() + 2_000_000_000L;
            String text = "";
            while (System.nanoTime() < deadline) {
                text = Files.exists(log) ? Files.readString(log) : "";
                if (text.contains("\"tier\":\"observed\"") && text.contains("\"tier\":\"detected\"")) {
                    break;
                }
                Thread.sleep(20);
            }
            assertTrue(text.contains("\"tier\":\"observed\""), text);
            assertTrue(text.contains("\"tier\":\"detected\""), text);
            assertTrue(text.contains("\"runId\":\"run-7\"") && text.contains("\"callId\":\"call-9\""), text);
            assertFalse(Files.exists(ws.resolve(".env.jsonl")));
        }
    }
}
