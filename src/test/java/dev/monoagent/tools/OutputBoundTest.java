package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutputBoundTest {
    @TempDir
    Path tmp;

    @Test
    void shortTextIsUntouchedAndNotSpilled() {
        String s = "hello";
        assertSame(s, OutputBound.bytes(s, 100, tmp.resolve("spill.txt")));
        assertFalse(Files.exists(tmp.resolve("spill.txt")));
    }

    @ParameterizedTest
    @ValueSource(ints = {300, 301, 302, 303, 1000})
    void cutsOnUtf8BoundariesKeepingHeadAndTail(int cap) throws Exception {
        String s = "€".repeat(200) + "MIDDLE" + "😀".repeat(200);
        Path spill = tmp.resolve("run/call.txt");
        String out = OutputBound.bytes(s, cap, spill);
        assertTrue(out.getBytes(StandardCharsets.UTF_8).length <= cap, "within cap");
        assertFalse(out.contains("\uFFFD"));
        assertTrue(out.startsWith("€"));
        assertTrue(out.endsWith("\n\nFull output saved to: " + spill));
        assertTrue(out.contains("bytes omitted"));
        assertEquals(s, Files.readString(spill));
    }

    @Test
    void charCapNeverSplitsSurrogatePairs() {
        String s = "😀".repeat(1000);
        String out = OutputBound.chars(s, 101, tmp.resolve("c.txt"));
        String kept = out.substring(0, out.indexOf("\n\n..."));
        assertEquals(0, kept.length() % 2);
        assertTrue(Character.isHighSurrogate(kept.charAt(0)));
    }
}
