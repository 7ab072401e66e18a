package dev.monoagent.common;

/**
 * How commands run right now — the contract's {@code effective} word, carried by events, status records and the
 * run log. {@link #wire()} is the only spelling of these words in the code.
 */
public enum Effective {
    /** The sandbox is turned off in config: commands run on the host without wrapping. */
    OFF("off"),
    /** Commands run inside the proven srt engine. */
    NATIVE("native"),
    /** Nothing runs: the engine is not proven and the fallback is fail-closed. */
    BLOCKED("blocked"),
    /** The engine is not proven and the unsafe fallback runs commands on the host. */
    UNSAFE_HOST_PROCESS("unsafe-host-process");

    private final String wire;

    Effective(String wire) {
        this.wire = wire;
    }

    @com.fasterxml.jackson.annotation.JsonValue
    public String wire() {
        return wire;
    }

    /** The value for a wire word, or null. */
    @com.fasterxml.jackson.annotation.JsonCreator
    public static Effective fromWire(String w) {
        for (Effective e : values()) {
            if (e.wire.equals(w)) {
                return e;
            }
        }
        return null;
    }
}
