package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;

class LineBufferTest {
    @Test
    void linesAcrossChunksWithOpenTail() {
        LineBuffer b = new LineBuffer();
        b.append("a\nbb\nc");
        assertEquals(List.of("a", "bb", "c"), b);
        b.append("cc\n\nd\n");
        assertEquals(List.of("a", "bb", "ccc", "", "d"), b);
        b.append("e");
        assertEquals(List.of("a", "bb", "ccc", "", "d", "e"), b);
    }

    @Test
    void changesDescribeTheListExactly() {
        LineBuffer b = new LineBuffer();
        List<String> mirror = new ArrayList<>();
        b.addListener((ListChangeListener<String>) c -> {
            while (c.next()) {
                for (int i = 0; i < c.getRemovedSize(); i++) {
                    mirror.remove(c.getFrom());
                }
                mirror.addAll(c.getFrom(), c.getAddedSubList());
            }
        });
        b.append("x");
        b.append("y\nz");
        b.append("\n1\n2\n");
        assertEquals(List.of("xy", "z", "1", "2"), mirror);
        assertEquals(mirror, b);
    }

    @Test
    void millionLinesAreIndexable() {
        LineBuffer b = new LineBuffer();
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (int chunk = 0; chunk < 1000; chunk++) {
            sb.setLength(0);
            for (int i = 0; i < 1000; i++) {
                sb.append(++n).append('\n');
            }
            b.append(sb.toString());
        }
        assertEquals(1_000_000, b.size());
        assertEquals("1", b.get(0));
        assertEquals("500001", b.get(500_000));
        assertEquals("1000000", b.get(999_999));
    }
}
