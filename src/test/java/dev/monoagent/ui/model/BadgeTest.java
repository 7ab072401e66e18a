package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BadgeTest {
    private static final Instant T = Instant.parse("2026-11-29T10:42:00Z");

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "native|                      |true |ENFORCING |Sandbox: ENFORCING (verified %s)",
        "native|                      |false|UNVERIFIED|Sandbox: NOT YET VERIFIED — run Check",
        "blocked|sandbox_unavailable: srt (absent)|false|BLOCKED|BLOCKED — sandbox_unavailable: srt (absent)",
        "blocked|                     |false|BLOCKED   |BLOCKED — sandbox not proven",
        "unsafe-host-process|x        |false|UNSAFE    |UNSAFE HOST FALLBACK",
        "off|                         |false|OFF       |Sandbox: OFF — commands run on the host"})
    void wordsFollowTheEffectiveState(String effective, String reason, boolean verified, Badge.Level level,
                                      String text) {
        Badge b = Badge.of(dev.monoagent.common.Effective.fromWire(effective), reason, verified ? T : null);
        String hhmm = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneId.systemDefault()).format(T);
        assertEquals(new Badge(level, text.formatted(hhmm)), b);
    }
}
