package dev.monoagent.config;

/** The enumerated config values, spelled as the contract spells them. */
public final class Enums {
    private Enums() {}

    /** {@code sandbox.mode}. */
    public enum SandboxMode implements WireEnum {
        NATIVE("native"), OFF("off");
        private final String wire;
        SandboxMode(String w) { wire = w; }
        @Override public String wire() { return wire; }
    }

    /** {@code sandbox.network.mode}. */
    public enum NetworkMode implements WireEnum {
        NONE("none"), LOCALHOST("localhost"), ALLOWLIST("allowlist"), ALL("all");
        private final String wire;
        NetworkMode(String w) { wire = w; }
        @Override public String wire() { return wire; }
    }

    /** {@code sandbox.fallback}. */
    public enum Fallback implements WireEnum {
        FAIL_CLOSED("fail-closed"), UNSAFE_HOST_PROCESS("unsafe-host-process");
        private final String wire;
        Fallback(String w) { wire = w; }
        @Override public String wire() { return wire; }
    }

    /** {@code memory.mode}. */
    public enum MemoryMode implements WireEnum {
        LITE("lite"), JOURNAL("journal"), BUJO("bujo");
        private final String wire;
        MemoryMode(String w) { wire = w; }
        @Override public String wire() { return wire; }
    }

    /** {@code providers.<name>.api}: which wire protocol a configured provider speaks. */
    public enum ProviderApi implements WireEnum {
        OPENAI_RESPONSES("openai-responses"), ANTHROPIC_MESSAGES("anthropic-messages"), OPENAI_CHAT("openai-chat");
        private final String wire;
        ProviderApi(String w) { wire = w; }
        @Override public String wire() { return wire; }
    }

    /** Parses a wire spelling; returns null when it is not one of the constants. */
    public static <E extends Enum<E> & WireEnum> E parse(Class<E> type, String text) {
        for (E e : type.getEnumConstants()) {
            if (e.wire().equals(text)) {
                return e;
            }
        }
        return null;
    }

    /** The allowed spellings joined with {@code |}, for messages. */
    public static String choices(Class<?> type) {
        StringBuilder sb = new StringBuilder();
        for (Object e : type.getEnumConstants()) {
            if (!sb.isEmpty()) {
                sb.append('|');
            }
            sb.append(((WireEnum) e).wire());
        }
        return sb.toString();
    }
}
