package dev.monoagent.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Caps what a tool result shows the model: keeps a head and a tail (cut on UTF-8 character boundaries), spills the
 * full text to the run's artifact file and ends the result with {@code Full output saved to: <path>}.
 */
public final class OutputBound {
    private OutputBound() {}

    /** The per-result cap of the contract: 256 KB. */
    public static final int MAX_RESULT_BYTES = 256 * 1024;

    /** The line that points at the spilled output. */
    public static final String SAVED_PREFIX = "Full output saved to: ";

    /** The text within {@code maxBytes} UTF-8 bytes, spilling the full text to {@code spill} when it had to cut. */
    public static String bytes(String text, int maxBytes, Path spill) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length <= maxBytes) {
            return text;
        }
        String saved = save(text, spill);
        String note = "\n\n" + SAVED_PREFIX + saved;
        int budget = Math.max(0, maxBytes - note.getBytes(StandardCharsets.UTF_8).length - 64);
        int headEnd = boundaryBack(b, budget / 2);
        int tailStart = boundaryForward(b, b.length - (budget - headEnd));
        String head = new String(b, 0, headEnd, StandardCharsets.UTF_8);
        String tail = new String(b, tailStart, b.length - tailStart, StandardCharsets.UTF_8);
        return head + "\n\n... [" + (tailStart - headEnd) + " bytes omitted] ...\n\n" + tail + note;
    }

    /** The text within {@code maxChars} characters (never splitting a surrogate pair), spilling when it had to cut. */
    public static String chars(String text, int maxChars, Path spill) {
        if (text.length() <= maxChars) {
            return text;
        }
        String saved = save(text, spill);
        int half = Math.max(0, maxChars / 2);
        int headEnd = half;
        if (headEnd > 0 && Character.isHighSurrogate(text.charAt(headEnd - 1))) {
            headEnd--;
        }
        int tailStart = text.length() - (maxChars - half);
        if (tailStart < text.length() && Character.isLowSurrogate(text.charAt(tailStart))) {
            tailStart++;
        }
        tailStart = Math.max(tailStart, headEnd);
        return text.substring(0, headEnd) + "\n\n... [" + (tailStart - headEnd) + " characters omitted] ...\n\n"
                + text.substring(tailStart) + "\n\n" + SAVED_PREFIX + saved;
    }

    private static String save(String text, Path spill) {
        if (spill == null) {
            return "(not saved: no artifacts directory)";
        }
        try {
            Files.createDirectories(spill.getParent());
            Files.writeString(spill, text, StandardCharsets.UTF_8);
            Path root = spill.getParent().getParent();
            if (root != null && root.getFileName() != null && root.getFileName().toString().equals("tool-output")) {
                ArtifactRetention.prune(root, spill);
            }
            return spill.toString();
        } catch (IOException e) {
            return "(not saved: " + e.getMessage() + ")";
        }
    }

    /** Largest index <= i that starts a UTF-8 character. */
    static int boundaryBack(byte[] b, int i) {
        i = Math.max(0, Math.min(i, b.length));
        while (i > 0 && i < b.length && (b[i] & 0xC0) == 0x80) {
            i--;
        }
        return i;
    }

    /** Smallest index >= i that starts a UTF-8 character. */
    static int boundaryForward(byte[] b, int i) {
        i = Math.max(0, Math.min(i, b.length));
        while (i < b.length && (b[i] & 0xC0) == 0x80) {
            i++;
        }
        return i;
    }
}
