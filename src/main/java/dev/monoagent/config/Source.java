package dev.monoagent.config;

/** Where a resolved config value came from, in precedence order (highest first). */
public enum Source {
    ENV("env"), DOTENV("dotenv"), JSON("json"), USER("user"), DEFAULT("default");

    private final String label;

    Source(String label) {
        this.label = label;
    }

    /** The tag printed by {@code mono-agent config}, e.g. {@code [env]}. */
    public String tag() {
        return "[" + label + "]";
    }
}
