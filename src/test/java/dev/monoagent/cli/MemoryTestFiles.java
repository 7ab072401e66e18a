package dev.monoagent.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test helper: removes an index's files, as a user deleting {@code memory/index} would. */
final class MemoryTestFiles {
    private MemoryTestFiles() {}

    static void wipeIndex(Path index) throws IOException {
        try (var s = Files.list(index)) {
            for (Path p : s.toList()) {
                Files.delete(p);
            }
        }
    }
}
