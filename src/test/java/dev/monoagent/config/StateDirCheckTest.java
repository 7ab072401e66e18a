package dev.monoagent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A state dir that came with the repository is refused when the check cannot vouch for it: a flood of entries is not
 * a reason to stop looking and pass it (a link hidden behind 50,000 files led the host's unsandboxed appends out of
 * the workspace), and a directory where mono-agent keeps files swallows a record.
 */
class StateDirCheckTest {
    @TempDir
    Path ws;

    @Test
    void aStateDirTooLargeToCheckIsRefusedNotPassed() throws Exception {
        Path flood = Files.createDirectories(ws.resolve(".mono-agent/b"));
        for (int i = 0; i <= StateDirCheck.MAX_ENTRIES; i++) {
            Files.createFile(flood.resolve("f" + i));
        }
        List<ConfigError> p = StateDirCheck.problems(ws);
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.get(0).message().contains("more than " + StateDirCheck.MAX_ENTRIES + " entries"), p.toString());
    }

    @Test
    void aDirectoryWhereRecordFilesBelongIsRefused() throws Exception {
        Files.createDirectories(ws.resolve(".mono-agent/violations/2026-12-07.jsonl"));
        Files.writeString(ws.resolve(".mono-agent/violations/2026-12-07.jsonl/.keep"), "");
        List<ConfigError> p = StateDirCheck.problems(ws);
        assertTrue(p.stream().anyMatch(e -> e.message().contains("2026-12-07.jsonl is a directory where")), p.toString());
    }

    @Test
    void theReviewersOwnStateDirPasses() throws Exception {
        Files.createDirectories(ws.resolve(".mono-agent/runs/r1"));
        Files.writeString(ws.resolve(".mono-agent/runs/r1/events.jsonl"), "{}\n");
        Files.createDirectories(ws.resolve(".mono-agent/violations"));
        Files.writeString(ws.resolve(".mono-agent/violations/2026-12-07.jsonl"), "{}\n");
        assertEquals(List.of(), StateDirCheck.problems(ws));
    }
}
