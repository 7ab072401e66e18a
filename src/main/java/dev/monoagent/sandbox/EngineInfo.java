package dev.monoagent.sandbox;

import java.nio.file.Path;

/**
 * Facts about the installed engine, for status surfaces and the run log header.
 *
 * @param source      managed, external, absent, corrupt or unsupported
 * @param detail      what is wrong (corrupt/unsupported), or null
 * @param version     the pinned engine version
 * @param digest      the verified tree digest (managed) / pinned cli SHA-256 (external), or null
 * @param installRoot where the engine lives, or null
 */
public record EngineInfo(SrtRuntime.Source source, String detail, String version, String digest, Path installRoot) {

    static EngineInfo of(SrtRuntime.Resolution r) {
        return new EngineInfo(r.source(), r.detail(), SrtRuntime.VERSION, r.digest(), r.installRoot());
    }

    /** Nothing is known about an engine (no facade was opened). */
    public static EngineInfo absent() {
        return new EngineInfo(SrtRuntime.Source.ABSENT, null, SrtRuntime.VERSION, null, null);
    }

    /** {@code present}, {@code absent}, {@code corrupt: …}, {@code unsupported: …}. */
    public String word() {
        return switch (source) {
            case MANAGED, EXTERNAL -> "present";
            case ABSENT -> "absent";
            case CORRUPT -> "corrupt: " + detail;
            case UNSUPPORTED -> "unsupported: " + detail;
        };
    }

    /** {@code srt (present)} and friends, as the status lines print it. */
    public String line() {
        return "srt (" + word() + ")";
    }

    public boolean present() {
        return source == SrtRuntime.Source.MANAGED || source == SrtRuntime.Source.EXTERNAL;
    }
}
