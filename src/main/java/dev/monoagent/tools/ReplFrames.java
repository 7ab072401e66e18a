package dev.monoagent.tools;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits the NodeRepl server's stdout into reply frames and stray bytes. A frame is
 * {@code \n\x01MONO-REPL <token> <length>\n<json>}; the token is random per process and never visible to the
 * program, so bytes the program writes to fd 1 (even well-formed frames with another token) stay stray output.
 * Incremental: feed chunks as they arrive; a marker or body split across chunks is kept until complete.
 * <p>Both buffers are bounded because the bytes come from sandboxed code: stray output beyond {@link #MAX_STRAY}
 * is counted and dropped, and a frame claiming a body over {@link #MAX_BODY} is {@link Overflow} (the caller kills
 * the REPL), so the program can never make the host hold more than about {@code MAX_STRAY + MAX_BODY}.
 */
final class ReplFrames {
    static final String MARK = "\u0001MONO-REPL ";
    private static final int MAX_LENGTH_DIGITS = 11;
    /** Stray bytes kept between drains; the rest is dropped with a note (like the server's own 8 MiB bound). */
    static final int MAX_STRAY = 8 * 1024 * 1024;
    /** Largest reply body accepted; the server keeps its replies below it (see repl-server.js MAX_BODY). */
    static final int MAX_BODY = 16 * 1024 * 1024;

    /** A token-marked frame claimed a body larger than {@link #MAX_BODY}: the stream cannot be trusted further. */
    static final class Overflow extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Overflow(long claimed) {
            super("the NodeRepl server announced a " + claimed + "-byte reply, over the " + MAX_BODY
                    + "-byte limit");
        }
    }

    private final byte[] marker;
    private byte[] buf = new byte[8192];
    private int start;
    private int end;
    private final ByteArrayOutputStream stray = new ByteArrayOutputStream();
    private long strayDropped;

    ReplFrames(String token) {
        this.marker = ("\n" + MARK + token + " ").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Adds {@code len} bytes of {@code chunk} and returns the JSON bodies of the frames completed by them.
     *
     * @throws Overflow when a frame with the token claims a body over {@link #MAX_BODY}
     */
    List<String> feed(byte[] chunk, int len) {
        append(chunk, len);
        List<String> frames = new ArrayList<>();
        for (;;) {
            int at = indexOfMarker();
            if (at < 0) {
                // everything except a possible marker prefix at the end is stray
                int keep = partialMarkerAtEnd();
                stray(start, end - keep - start);
                start = end - keep;
                return frames;
            }
            stray(start, at - start);
            start = at;
            int lenStart = at + marker.length;
            int nl = -1;
            for (int i = lenStart; i < end && i <= lenStart + MAX_LENGTH_DIGITS; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            if (nl < 0) {
                if (end - lenStart > MAX_LENGTH_DIGITS) {
                    skipMarker(lenStart);
                    continue;
                }
                return frames;
            }
            long bodyLen;
            try {
                bodyLen = Long.parseLong(new String(buf, lenStart, nl - lenStart, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                skipMarker(lenStart);
                continue;
            }
            if (bodyLen < 0) {
                skipMarker(lenStart);
                continue;
            }
            if (bodyLen > MAX_BODY) {
                throw new Overflow(bodyLen);
            }
            if (end - (nl + 1) < bodyLen) {
                return frames;
            }
            frames.add(new String(buf, nl + 1, (int) bodyLen, StandardCharsets.UTF_8));
            start = nl + 1 + (int) bodyLen;
        }
    }

    /** Stray output collected since the last call (then cleared), with a note when some was dropped. */
    String drainStray() {
        String s = stray.toString(StandardCharsets.UTF_8);
        if (strayDropped > 0) {
            s += "\n(" + strayDropped + " more bytes of output outside the REPL's capture were dropped)\n";
        }
        stray.reset();
        strayDropped = 0;
        return s;
    }

    /** Bytes held for an incomplete marker or frame (for tests of the bound). */
    int pending() {
        return end - start;
    }

    /** Keeps stray bytes up to {@link #MAX_STRAY}; counts the rest. */
    private void stray(int from, int len) {
        int room = MAX_STRAY - stray.size();
        int kept = Math.max(0, Math.min(room, len));
        stray.write(buf, from, kept);
        strayDropped += len - kept;
    }

    private void skipMarker(int upTo) {
        stray(start, upTo - start);
        start = upTo;
    }

    private void append(byte[] chunk, int len) {
        if (start > 0 && end + len > buf.length) {
            System.arraycopy(buf, start, buf, 0, end - start);
            end -= start;
            start = 0;
        }
        if (end + len > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, end + len));
        }
        System.arraycopy(chunk, 0, buf, end, len);
        end += len;
    }

    private int indexOfMarker() {
        outer:
        for (int i = start; i + marker.length <= end; i++) {
            if (buf[i] != marker[0]) {
                continue;
            }
            for (int j = 1; j < marker.length; j++) {
                if (buf[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private int partialMarkerAtEnd() {
        for (int k = Math.min(end - start, marker.length - 1); k > 0; k--) {
            boolean match = true;
            for (int i = 0; i < k; i++) {
                if (buf[end - k + i] != marker[i]) {
                    match = false;
                    break;
                }
            }
            if (match) {
                return k;
            }
        }
        return 0;
    }
}
