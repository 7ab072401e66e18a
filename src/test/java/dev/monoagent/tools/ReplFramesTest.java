package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
}
