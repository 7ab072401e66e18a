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
    static final String TOKEN = "a1b2c3";

    static String frame(String token, String json) {
        return "\n\u0001MONO-REPL " + token + " " + json.getBytes(StandardCharsets.UTF_8).length + "\n" + json;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 64, 100000})
    void framesSurviveAnyChunking(int chunk) {
        String stream = "noise before" + frame(TOKEN, "{\"id\":1,\"v\":\"ü\"}") + "between"
                + frame("forged", "{\"id\":2}") + frame(TOKEN, "{\"id\":3}") + "\n\u0001MONO-RE";
        byte[] b = stream.getBytes(StandardCharsets.UTF_8);
        ReplFrames f = new ReplFrames(TOKEN);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < b.length; i += chunk) {
            int n = Math.min(chunk, b.length - i);
            byte[] part = new byte[n];
            System.arraycopy(b, i, part, 0, n);
            got.addAll(f.feed(part, n));
        }
        assertEquals(List.of("{\"id\":1,\"v\":\"ü\"}", "{\"id\":3}"), got);
        assertEquals("noise beforebetween" + frame("forged", "{\"id\":2}"), f.drainStray());
    }

    @Test
    void garbageLengthIsStray() {
        ReplFrames f = new ReplFrames(TOKEN);
        String s = "\n\u0001MONO-REPL " + TOKEN + " xx\n{}" + frame(TOKEN, "{}");
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        assertEquals(List.of("{}"), f.feed(b, b.length));
        assertEquals("\n\u0001MONO-REPL " + TOKEN + " xx\n{}", f.drainStray());
    }

    @Test
    void strayOutputIsCappedAndTheRestCounted() {
        ReplFrames f = new ReplFrames(TOKEN);
        // a marker without the token followed by a huge claimed length: all of it is stray, none of it buffered
        byte[] m = "\n\u0001MONO-REPL anything 2000000000\n".getBytes(StandardCharsets.UTF_8);
        f.feed(m, m.length);
        byte[] chunk = new byte[1 << 20];
        Arrays.fill(chunk, (byte) 'x');
        for (int i = 0; i < 40; i++) {
            assertEquals(List.of(), f.feed(chunk, chunk.length));
            assertTrue(f.pending() < 64, "nothing waits for a frame");
        }
        String s = f.drainStray();
        assertTrue(s.length() <= ReplFrames.MAX_STRAY + 200, "bounded: " + s.length());
        long dropped = 40L * chunk.length + m.length - ReplFrames.MAX_STRAY;
        assertTrue(s.endsWith("(" + dropped + " more bytes of output outside the REPL's capture were dropped)\n"),
                s.substring(s.length() - 120));
        byte[] ok = frame(TOKEN, "{\"id\":1}").getBytes(StandardCharsets.UTF_8);
        assertEquals(List.of("{\"id\":1}"), f.feed(ok, ok.length), "frames still parse after the cap");
        assertEquals("", f.drainStray(), "the drop count resets with the drain");
    }

    @ParameterizedTest
    @ValueSource(strings = {"16777217", "2000000000", "99999999999"})
    void aFrameClaimingAnOversizedBodyIsOverflow(String len) {
        ReplFrames f = new ReplFrames(TOKEN);
        byte[] m = ("\n\u0001MONO-REPL " + TOKEN + " " + len + "\n{").getBytes(StandardCharsets.UTF_8);
        assertThrows(ReplFrames.Overflow.class, () -> f.feed(m, m.length));
    }

    @Test
    void aFrameOfExactlyTheMaximumIsAccepted() {
        ReplFrames f = new ReplFrames(TOKEN);
        String body = "\"" + "y".repeat(ReplFrames.MAX_BODY - 2) + "\"";
        byte[] b = frame(TOKEN, body).getBytes(StandardCharsets.UTF_8);
        assertEquals(1, f.feed(b, b.length).size());
    }
}
