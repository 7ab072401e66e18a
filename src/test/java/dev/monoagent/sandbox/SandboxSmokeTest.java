package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The happy path end to end: open proves the engine (every probe passes), a command runs with its real exit code. */
class SandboxSmokeTest {
    @Test
    void opensProvesAndRunsACommand(@TempDir Path tmp) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        TestEngine.Events ev = new TestEngine.Events();
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.LOCALHOST, List.of()), ev, TestEngine.env())) {
            SandboxStatus s = sb.status();
            assertEquals("ready", s.state(), s.reason());
            assertEquals("native", s.effective().wire());
            assertEquals("srt (present)", s.engine().line());
            assertTrue(s.lines().contains("Managed SRT 0.0.78 is integrity-verified."));
            assertTrue(s.probes().size() >= 16 && s.probes().stream().allMatch(ProbeResult::passed), s.probes()::toString);
            assertTrue(ev.all.stream().anyMatch(e -> e instanceof Event.SandboxStateChanged c
                    && c.effective() == dev.monoagent.common.Effective.NATIVE));
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class,
                    sb.exec(CommandSpec.bash("echo hello; echo err >&2; exit 3", ws)));
            assertEquals(3, c.exitCode());
            assertEquals(0, c.signal());
            assertEquals("hello\n", c.stdout());
            assertEquals("err\n", c.stderr());
            assertEquals("native", c.mode().wire());
        }
    }
}
