package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReplFramesTest {
    static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OTHER_KEY = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);

    /** A frame as repl-server.js writes it, signed with {@code key}. */
    static String frame(byte[] key, long id, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return "\n\u0001MONO-REPL " + id + " " + body.length + " " + ReplFrames.mac(key, id, body, 0, body.length)
                + "\n" + json;
    }

    private static List<ReplFrames.Frame> feedAll(ReplFrames f, String stream, int chunk) {
        byte[] b = stream.getBytes(StandardCharsets.UTF_8);
        List<ReplFrames.Frame> got = new ArrayList<>();
        for (int i = 0; i < b.length; i += chunk) {
            int n = Math.min(chunk, b.length - i);
            got.addAll(f.feed(Arrays.copyOfRange(b, i, i + n), n));
        }
        return got;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 64, 100000})
    void framesSurviveAnyChunking(int chunk) {
        String stream = "noise before" + frame(KEY, 1, "{\"id\":1,\"v\":\"ü\"}") + "between"
                + frame(KEY, 3, "{\"id\":3}") + "\n\u0001MONO-RE";
        ReplFrames f = new ReplFrames(KEY);
        assertEquals(List.of(new ReplFrames.Frame(1, "{\"id\":1,\"v\":\"ü\"}"), new ReplFrames.Frame(3, "{\"id\":3}")),
                feedAll(f, stream, chunk));
        assertEquals("noise beforebetween", f.drainStray());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5, 100000})
    void aFrameSignedWithAnotherKeyIsForged(int chunk) {
        ReplFrames f = new ReplFrames(KEY);
        assertThrows(ReplFrames.Forged.class, () -> feedAll(f, frame(OTHER_KEY, 2, "{\"id\":2}"), chunk));
    }

    @Test
    void aRealFrameWithOtherBytesInterleavedIsForged() {
        // another writer's bytes landing inside a real frame keep the length but change the body: the MAC catches it
        String real = frame(KEY, 2, "{\"id\":2,\"value\":\"real value\"}");
        String spliced = real.replace("real value", "FORGED!!!!");
        ReplFrames f = new ReplFrames(KEY);
        assertThrows(ReplFrames.Forged.class, () -> feedAll(f, spliced, 100000));
    }

    @Test
    void aFrameRelabelledWithAnotherIdIsForged() {
        String real = frame(KEY, 2, "{\"id\":2}");
        ReplFrames f = new ReplFrames(KEY);
        assertThrows(ReplFrames.Forged.class, () -> feedAll(f, real.replace("REPL 2 ", "REPL 3 "), 100000));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n\u0001MONO-REPL xx 2 abc\n{}", "\n\u0001MONO-REPL 1 xx "})
    void aMarkerWithAMalformedHeaderIsForged(String s) {
        ReplFrames f = new ReplFrames(KEY);
        String stream = s + "x".repeat(200);
        assertThrows(ReplFrames.Forged.class, () -> feedAll(f, stream, 100000));
    }

    @Test
    void strayOutputIsCappedAndTheRestCounted() {
        ReplFrames f = new ReplFrames(KEY);
        byte[] chunk = new byte[1 << 20];
        Arrays.fill(chunk, (byte) 'x');
        for (int i = 0; i < 40; i++) {
            assertEquals(List.of(), f.feed(chunk, chunk.length));
            assertTrue(f.pending() < 64, "nothing waits for a frame");
        }
        String s = f.drainStray();
        assertTrue(s.length() <= ReplFrames.MAX_STRAY + 200, "bounded: " + s.length());
        long dropped = 40L * chunk.length - ReplFrames.MAX_STRAY;
        assertTrue(s.endsWith("(" + dropped + " more bytes of output outside the REPL's capture were dropped)\n"),
                s.substring(s.length() - 120));
        byte[] ok = frame(KEY, 1, "{\"id\":1}").getBytes(StandardCharsets.UTF_8);
        assertEquals(List.of(new ReplFrames.Frame(1, "{\"id\":1}")), f.feed(ok, ok.length),
                "frames still parse after the cap");
        assertEquals("", f.drainStray(), "the drop count resets with the drain");
    }

    @ParameterizedTest
    @ValueSource(strings = {"16777217", "2000000000", "99999999999"})
    void aFrameClaimingAnOversizedBodyIsOverflow(String len) {
        ReplFrames f = new ReplFrames(KEY);
        byte[] m = ("\n\u0001MONO-REPL 1 " + len + " " + "0".repeat(64) + "\n{").getBytes(StandardCharsets.UTF_8);
        assertThrows(ReplFrames.Overflow.class, () -> f.feed(m, m.length));
    }

    @Test
    void aFrameOfExactlyTheMaximumIsAccepted() {
        ReplFrames f = new ReplFrames(KEY);
        String body = "\"" + "y".repeat(ReplFrames.MAX_BODY - 2) + "\"";
        byte[] b = frame(KEY, 1, body).getBytes(StandardCharsets.UTF_8);
        assertEquals(1, f.feed(b, b.length).size());
    }
}
