package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The engine events' times are read by a direct parser for the bridge's own form: it must agree with Instant.parse. */
class SrtBridgeTimeTest {
    /** What the bridge's {@code new Date(ms).toISOString()} writes. */
    private static final DateTimeFormatter JS_ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Test
    void agreesWithInstantParseOnTheBridgesForm() {
        Random r = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            // 1970 .. 2100, millisecond precision, as Date.toISOString() writes it
            Instant t = Instant.ofEpochMilli((long) (r.nextDouble() * 4_102_444_800_000L));
            String s = JS_ISO.format(t);
            assertEquals(Instant.parse(s), SrtBridge.isoTime(s), s);
        }
        for (String s : List.of("2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "2026-12-02T07:43:16.544Z")) {
            assertEquals(Instant.parse(s), SrtBridge.isoTime(s), s);
        }
    }

    @Test
    void otherAndOddFormsAreDecidedByInstantParse() {
        for (String s : List.of("2026-12-02T07:43:16Z", "2026-12-02T07:43:16.544123Z", "2023-02-29T10:00:00.000Z",
                "2026-12-02T24:00:00.000Z", "2026-12-02T07:60:00.000Z", "2026-13-02T07:43:16.544Z",
                "+026-12-02T07:43:16.544Z", "2026-12-02 07:43:16.544Z", "")) {
            Object want;
            try {
                want = Instant.parse(s);
            } catch (DateTimeParseException e) {
                want = DateTimeParseException.class;
            }
            Object got;
            try {
                got = SrtBridge.isoTime(s);
            } catch (DateTimeParseException e) {
                got = DateTimeParseException.class;
            }
            assertEquals(want, got, s);
        }
        assertThrows(DateTimeParseException.class, () -> SrtBridge.isoTime("2023-02-29T10:00:00.000Z"));
    }
}
