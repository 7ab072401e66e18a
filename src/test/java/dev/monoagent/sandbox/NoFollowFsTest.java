package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The descriptor walks behind the temp-cap clean-up: links are counted and removed as links, never entered. */
class NoFollowFsTest {
    @TempDir
    Path tmp;

    @Test
    void sizeAndDeleteNeverGoThroughALink() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("home/.ssh"));
        Files.writeString(outside.resolve("id_rsa"), "x".repeat(1000));
        Path dir = Files.createDirectories(tmp.resolve("t/a/b"));
        Files.writeString(dir.resolve("f"), "12345");
        Files.writeString(tmp.resolve("t/g"), "123");
        Files.createSymbolicLink(tmp.resolve("t/link"), outside);
        Files.createSymbolicLink(tmp.resolve("t/a/keylink"), outside.resolve("id_rsa"));
        assertEquals(8, NoFollowFs.size(tmp.resolve("t")));
        assertTrue(NoFollowFs.deleteContents(tmp.resolve("t")));
        try (var s = Files.list(tmp.resolve("t"))) {
            assertEquals(0, s.count());
        }
        assertEquals(1000, Files.size(outside.resolve("id_rsa")));
    }
}
