package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spilled tool output cannot grow without bound; the oldest spills go first. */
class ArtifactRetentionTest {
    @TempDir
    Path tmp;

    private static long count(Path root) throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    @Test
    void spillsBeyondTheCapsAreRemovedOldestFirst() throws Exception {
        Path root = tmp.resolve(".mono-agent/artifacts/tool-output");
        String big = "x".repeat(300 * 1024); // over the 256 KB result cap: every call spills
        for (int i = 0; i < 30; i++) {
            Path spill = root.resolve("run-" + (i % 3)).resolve("c" + i + ".txt");
            OutputBound.bytes(big, OutputBound.MAX_RESULT_BYTES, spill);
            Files.setLastModifiedTime(spill, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        assertEquals(30, count(root), "under the default caps nothing goes");
        Path newest = root.resolve("run-2/c29.txt");
        ArtifactRetention.prune(root, newest, 10, Long.MAX_VALUE);
        assertEquals(10, count(root));
        assertTrue(Files.exists(newest));
        assertTrue(Files.exists(root.resolve("run-2/c20.txt")), "the newest ten stay");
        assertTrue(!Files.exists(root.resolve("run-0/c18.txt")), "older ones go");
        ArtifactRetention.prune(root, newest, 100, 3L * big.length());
        assertEquals(3, count(root), "the byte cap holds too");
        assertTrue(Files.exists(newest));
    }

    @Test
    void theDefaultCapsApplyOnEverySpill() throws Exception {
        Path root = tmp.resolve("tool-output");
        String big = "y".repeat(300 * 1024);
        for (int i = 0; i < ArtifactRetention.MAX_FILES + 20; i++) {
            OutputBound.bytes(big, OutputBound.MAX_RESULT_BYTES, root.resolve("r").resolve("c" + i + ".txt"));
        }
        long bytes;
        try (Stream<Path> s = Files.walk(root)) {
            bytes = s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
        assertTrue(count(root) <= ArtifactRetention.MAX_FILES, "files: " + count(root));
        assertTrue(bytes <= ArtifactRetention.MAX_BYTES, "bytes: " + bytes);
    }
}
