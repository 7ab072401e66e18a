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
 * Incremental: feed chunks as they arrive.
 */
final class ReplFrames {
    static final String MARK = "\u0001MONO-REPL ";

    private final byte[] marker;
    private byte[] buf = new byte[0];
    private final ByteArrayOutputStream stray = new ByteArrayOutputStream();

    ReplFrames(String token) {
        this.marker = ("\n" + MARK + token + " ").getBytes(StandardCharsets.UTF_8);
    }

    /** Adds bytes and returns the complete frames' JSON bodies found so far. */
    List<String> feed(byte[] chunk, int len) {
        byte[] nb = Arrays.copyOf(buf, buf.length + len);
        System.arraycopy(chunk, 0, nb, buf.length, len);
        buf = nb;
        List<String> frames = new ArrayList<>();
        for (;;) {
            int at = indexOf(buf, marker);
            if (at < 0) {
                // keep a possible marker prefix at the end; the rest is stray
                int cut = buf.length;
                for (int k = Math.min(buf.length, marker.length - 1); k > 0; k--) {
                    if (startsWithPrefix(buf, buf.length - k, k)) {
                        cut = buf.length - k;
                        break;
                    }
                }
                stray.write(buf, 0, cut);
                buf = Arrays.copyOfRange(buf, cut, buf.length);
                return frames;
            }
            int lenStart = at + marker.length;
            int nl = -1;
            for (int i = lenStart; i < buf.length && i < lenStart + 12; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            if (nl < 0) {
                if (buf.length - lenStart >= 12) {
                    // not a length: treat the marker as stray text
                    stray.write(buf, 0, lenStart);
                    buf = Arrays.copyOfRange(buf, lenStart, buf.length);
                    continue;
                }
                stray.write(buf, 0, at);
                buf = Arrays.copyOfRange(buf, at, buf.length);
                return frames;
            }
            int bodyLen;
            try {
                bodyLen = Integer.parseInt(new String(buf, lenStart, nl - lenStart, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                stray.write(buf, 0, lenStart);
                buf = Arrays.copyOfRange(buf, lenStart, buf.length);
                continue;
            }
            if (buf.length < nl + 1 + bodyLen) {
                stray.write(buf, 0, at);
                buf = Arrays.copyOfRange(buf, at, buf.length);
                return frames;
            }
            stray.write(buf, 0, at);
            frames.add(new String(buf, nl + 1, bodyLen, StandardCharsets.UTF_8));
            buf = Arrays.copyOfRange(buf, nl + 1 + bodyLen, buf.length);
        }
    }

    /** Stray output collected since the last call (then cleared). */
    String drainStray() {
        String s = stray.toString(StandardCharsets.UTF_8);
        stray.reset();
        return s;
    }

    private boolean startsWithPrefix(byte[] b, int from, int k) {
        for (int i = 0; i < k; i++) {
            if (b[from + i] != marker[i]) {
                return false;
            }
        }
        return true;
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
