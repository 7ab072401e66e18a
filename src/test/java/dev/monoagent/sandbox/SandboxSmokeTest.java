package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxSmokeTest {
    @Test
    void opensProvesAndRunsACommand(@TempDir Path tmp) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        TestEngine.Events ev = new TestEngine.Events();
        long t0 = System.nanoTime();
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.LOCALHOST, List.of()), ev, TestEngine.env())) {
            System.out.println("open ms " + (System.nanoTime() - t0) / 1_000_000);
            sb.status().lines().forEach(System.out::println);
            sb.status().probes().forEach(System.out::println);
            ExecOutcome o = sb.exec(CommandSpec.bash("echo hello; echo err >&2; exit 3", ws));
            System.out.println(o);
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class, o);
            assertEquals(3, c.exitCode());
            assertEquals("hello\n", c.stdout());
        }
    }
}
