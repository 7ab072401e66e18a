package dev.monoagent.ui.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javafx.collections.ObservableListBase;

/**
 * Tool output as an observable list of lines that stores text in large chunks (one string per appended chunk plus
 * an int array of line starts) and makes a line's string only when a visible cell asks for it. A million lines cost
 * about their bytes instead of a million objects, which keeps garbage-collection pauses (and so UI stalls) short
 * during an output flood. A trailing partial line is the last element until the next chunk completes it.
 */
public final class LineBuffer extends ObservableListBase<String> {
    private final List<String> chunks = new ArrayList<>();
    /** Per chunk: start offsets of its lines within the chunk, plus the chunk length as a sentinel. */
    private final List<int[]> starts = new ArrayList<>();
    /** Per chunk: index of its first line. */
    private int[] firstLine = new int[16];
    private int complete;
    private String open;

    /** Appends text; {@code \n} ends a line. */
    public void append(String text) {
        if (text.isEmpty()) {
            return;
        }
        beginChange();
        try {
            if (open != null) {
                nextRemove(complete, open);
                text = open + text;
                open = null;
            }
            int last = text.lastIndexOf('\n');
            if (last >= 0) {
                String body = text.substring(0, last + 1);
                int[] s = lineStarts(body);
                int lines = s.length - 1;
                if (chunks.size() == firstLine.length) {
                    firstLine = Arrays.copyOf(firstLine, firstLine.length * 2);
                }
                firstLine[chunks.size()] = complete;
                chunks.add(body);
                starts.add(s);
                nextAdd(complete, complete + lines);
                complete += lines;
            }
            if (last < text.length() - 1) {
                open = text.substring(last + 1);
                nextAdd(complete, complete + 1);
            }
        } finally {
            endChange();
        }
    }

    private static int[] lineStarts(String body) {
        int n = 0;
        for (int i = 0; i < body.length(); i++) {
            if (body.charAt(i) == '\n') {
                n++;
            }
        }
        int[] s = new int[n + 1];
        int k = 1;
        for (int i = 0; i < body.length(); i++) {
            if (body.charAt(i) == '\n' && k <= n) {
                s[k++] = i + 1;
            }
        }
        s[n] = body.length();
        return s;
    }

    @Override
    public String get(int index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException(index);
        }
        if (index == complete) {
            return dev.monoagent.common.Printable.outputLine(open);
        }
        int c = Arrays.binarySearch(firstLine, 0, chunks.size(), index);
        if (c < 0) {
            c = -c - 2;
        }
        int[] s = starts.get(c);
        int line = index - firstLine[c];
        // a line that imitates one of our records is shown marked as output
        return dev.monoagent.common.Printable.outputLine(chunks.get(c).substring(s[line], s[line + 1] - 1));
    }

    @Override
    public int size() {
        return complete + (open == null ? 0 : 1);
    }
}
