package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No srt helper (its host-side socat bridges) outlives the engine, even when the bridge process died hard (SIGKILL:
 * no chance to reset srt); else orphaned socats pile up on the host.
 */
class HelperLeftoverTest {
    @TempDir
    Path tmp;

    @Test
    void srtHelpersDieWithTheEngineEvenAfterTheBridgeWasKilled() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Sandbox sb = TestEngine.openReady(ws);
        List<ProcessHandle> helpers;
        try {
            ProcessHandle bridge = ProcessHandle.of(sb.engine().bridge().pid()).orElseThrow();
            helpers = bridge.descendants().toList();
            assertFalse(helpers.isEmpty(), "srt started no helper processes: nothing to check");
            bridge.destroyForcibly();
            bridge.onExit().get();
        } finally {
            sb.close();
        }
        Thread.sleep(200);
        List<String> alive = helpers.stream().filter(HelperLeftoverTest::running)
                .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList();
        assertEquals(List.of(), alive, "srt helpers still running after the engine was closed");
    }

    /** Alive and not a zombie (a killed orphan waits for a container's pid 1 to reap it: it runs nothing). */
    static boolean running(ProcessHandle h) {
        if (!h.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + h.pid() + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (java.io.IOException gone) {
            return false;
        }
    }
}
