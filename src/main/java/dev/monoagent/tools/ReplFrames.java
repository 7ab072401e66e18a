package dev.monoagent.tools;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits the NodeRepl server's stdout into authenticated reply frames and stray bytes. A frame is
 * {@code \n\x01MONO-REPL <id> <length> <hmac>\n<json>} with {@code hmac = HMAC-SHA256(key, "<id>\n" + json)}; the key
 * is random per process, known to the host and to the server's main thread (repl-server.js), never to the worker the
 * user's code runs in. Bytes before a marker are stray output (what the program wrote to fd 1 itself). A marker
 * followed by anything but a frame whose MAC verifies is {@link Forged}: the real server never writes one, so code in
 * the REPL tried to pass bytes off as a reply (or interleaved its bytes with a real one) and the caller ends the REPL.
 * Not a proof of origin: code in the worker can read the key from {@code /proc/self/mem}, so a reply is data from
 * sandboxed code (docs/sandbox-probes.md, "What a NodeRepl result is").
 * Incremental: feed chunks as they arrive; a marker or body split across chunks is kept until complete.
 * <p>Both buffers are bounded because the bytes come from sandboxed code: stray output beyond {@link #MAX_STRAY}
 * is counted and dropped, and a frame claiming a body over {@link #MAX_BODY} is {@link Overflow} (the caller kills
 * the REPL), so the program can never make the host hold more than about {@code MAX_STRAY + MAX_BODY}.
 */
final class ReplFrames {
    static final String MARK = "\u0001MONO-REPL ";
    private static final byte[] MARKER = ("\n" + MARK).getBytes(StandardCharsets.UTF_8);
    /** "<id> <length> <64 hex>": ids and lengths are at most 16 and 11 digits. */
    private static final int MAX_HEADER = 16 + 1 + 11 + 1 + 64;
    /** Stray bytes kept between drains; the rest is dropped with a note (like the server's own 8 MiB bound). */
    static final int MAX_STRAY = 8 * 1024 * 1024;
    /** Largest reply body accepted; the server keeps its replies below it (see repl-worker.js MAX_BODY). */
    static final int MAX_BODY = 16 * 1024 * 1024;

    /** A frame claimed a body larger than {@link #MAX_BODY}: the stream cannot be trusted further. */
    static final class Overflow extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Overflow(long claimed) {
            super("the NodeRepl server announced a " + claimed + "-byte reply, over the " + MAX_BODY
                    + "-byte limit");
        }
    }

    /** A reply marker whose frame did not authenticate: something other than the server wrote it. */
    static final class Forged extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Forged(String why) {
            super("a reply frame failed its integrity check (" + why + "): code in the REPL wrote bytes posing as "
                    + "a reply, so the REPL was ended");
        }
    }

    /** One authenticated reply. */
    record Frame(long id, String json) {}

    private final SecretKeySpec key;
    private byte[] buf = new byte[8192];
    private int start;
    private int end;
    private final ByteArrayOutputStream stray = new ByteArrayOutputStream();
    private long strayDropped;

    ReplFrames(byte[] key) {
        this.key = new SecretKeySpec(key, "HmacSHA256");
    }

    /** The MAC the server puts on reply {@code id} with body {@code body} (also for tests' and the host's checks). */
    static String mac(byte[] key, long id, byte[] body, int off, int len) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            m.update((id + "\n").getBytes(StandardCharsets.US_ASCII));
            m.update(body, off, len);
            return HexFormat.of().formatHex(m.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /**
     * Adds {@code len} bytes of {@code chunk} and returns the frames completed by them.
     *
     * @throws Overflow when a frame claims a body over {@link #MAX_BODY}
     * @throws Forged   when a marker is not followed by a frame that authenticates
     */
    List<Frame> feed(byte[] chunk, int len) {
        append(chunk, len);
        List<Frame> frames = new ArrayList<>();
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
            int headStart = at + MARKER.length;
            int nl = -1;
            for (int i = headStart; i < end && i <= headStart + MAX_HEADER; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            if (nl < 0) {
                if (end - headStart > MAX_HEADER) {
                    throw new Forged("malformed header");
                }
                return frames;
            }
            String[] head = new String(buf, headStart, nl - headStart, StandardCharsets.US_ASCII).split(" ", -1);
            long id;
            long bodyLen;
            try {
                if (head.length != 3 || head[2].length() != 64) {
                    throw new NumberFormatException();
                }
                id = Long.parseLong(head[0]);
                bodyLen = Long.parseLong(head[1]);
            } catch (NumberFormatException e) {
                throw new Forged("malformed header");
            }
            if (bodyLen < 0 || id < 0) {
                throw new Forged("malformed header");
            }
            if (bodyLen > MAX_BODY) {
                throw new Overflow(bodyLen);
            }
            if (end - (nl + 1) < bodyLen) {
                return frames;
            }
            String expected = mac(key.getEncoded(), id, buf, nl + 1, (int) bodyLen);
            if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                    head[2].getBytes(StandardCharsets.US_ASCII))) {
                throw new Forged("wrong MAC for reply " + id);
            }
            frames.add(new Frame(id, new String(buf, nl + 1, (int) bodyLen, StandardCharsets.UTF_8)));
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
        for (int i = start; i + MARKER.length <= end; i++) {
            if (buf[i] != MARKER[0]) {
                continue;
            }
            for (int j = 1; j < MARKER.length; j++) {
                if (buf[i + j] != MARKER[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private int partialMarkerAtEnd() {
        for (int k = Math.min(end - start, MARKER.length - 1); k > 0; k--) {
            boolean match = true;
            for (int i = 0; i < k; i++) {
                if (buf[end - k + i] != MARKER[i]) {
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
