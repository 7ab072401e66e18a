package dev.monoagent.config;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in presets: a starting config for {@code init --preset ID} and the expectations
 * {@code validate --preset ID} checks against the loaded config.
 */
public final class Presets {
    private Presets() {}

    /** One expectation: a description and what the loaded config must satisfy. */
    public record Expectation(String text, java.util.function.Predicate<MonoConfig> holds) {}

    /**
     * A preset.
     *
     * @param id           the name used on the command line
     * @param summary      one line for {@code presets list}
     * @param config       the JSON object {@code init} writes ({@code --model} replaces its {@code runtime.model};
     *                     without either, the config has no model)
     * @param expectations what {@code validate --preset} checks
     */
    public record Preset(String id, String summary, Map<String, Object> config, List<Expectation> expectations) {}

    /** The reference playbook's {@code runtime.model}, which the {@code code-sandbox} preset writes. */
    public static final String PLAYBOOK_MODEL = "openai-codex:gpt-5.6-terra";

    private static final List<String> CODE_TOOLS = List.of("Read", "Write", "Edit", "Glob", "Grep", "Bash", "NodeRepl");

    private static Map<String, Object> sandbox(String network) {
        Map<String, Object> sb = new LinkedHashMap<>();
        sb.put("mode", SandboxMode.NATIVE.wire());
        sb.put("network", Map.of("mode", network));
        sb.put("readableRoots", List.of("."));
        sb.put("writableRoots", List.of("."));
        sb.put("denyWrite", MonoConfig.Sandbox.DEFAULT_DENY_WRITE);
        sb.put("fallback", "fail-closed");
        return sb;
    }

    private static Map<String, Object> base(String memory, String network) {
        return base(null, memory, network);
    }

    private static Map<String, Object> base(String model, String memory, String network) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (model != null) {
            m.put("runtime", Map.of("model", model));
        }
        m.put("tools", Map.of("allowedTools", List.of("*")));
        m.put("sandbox", sandbox(network));
        m.put("memory", Map.of("mode", memory));
        return m;
    }

    private static boolean toolAllowed(MonoConfig c, String tool) {
        List<String> allowed = c.tools().allowedTools();
        boolean inAllow = allowed.contains("*") || allowed.stream().anyMatch(t -> t.equalsIgnoreCase(tool));
        return inAllow && c.tools().disallowedTools().stream().noneMatch(t -> t.equalsIgnoreCase(tool));
    }

    private static final Expectation NATIVE = new Expectation("sandbox.mode is native",
            c -> c.sandbox().mode() == SandboxMode.NATIVE);
    private static final Expectation FAIL_CLOSED = new Expectation("sandbox.fallback is fail-closed",
            c -> c.sandbox().fallback() == Fallback.FAIL_CLOSED);
    private static final Expectation DENY_DEFAULTS = new Expectation(
            "sandbox.denyWrite keeps .env, .env.*, .git/config, .git/hooks/**",
            c -> c.sandbox().denyWrite().containsAll(MonoConfig.Sandbox.DEFAULT_DENY_WRITE));

    public static final List<Preset> ALL = List.of(
            new Preset("starter", "A general assistant: all tools, native sandbox with no network, lite memory.",
                    base("lite", "none"), List.of(NATIVE, FAIL_CLOSED, DENY_DEFAULTS)),
            new Preset("telegram-assistant",
                    "A personal assistant reached over Telegram (channel support is not built yet).",
                    base("journal", "none"), List.of(NATIVE, FAIL_CLOSED)),
            new Preset("slack-bot", "A team bot in Slack (channel support is not built yet).",
                    base("lite", "none"), List.of(NATIVE, FAIL_CLOSED)),
            new Preset("local-private", "Everything stays on this machine: a local model, no network at all.",
                    base("lite", "none"), List.of(
                            new Expectation("runtime.model uses a local provider (ollama or lmstudio)",
                                    c -> c.runtime().model() != null
                                            && (c.runtime().model().startsWith("ollama:")
                                            || c.runtime().model().startsWith("lmstudio:"))),
                            new Expectation("sandbox.network.mode is none",
                                    c -> c.sandbox().network().mode() == NetworkMode.NONE),
                            NATIVE, FAIL_CLOSED)),
            new Preset("code-sandbox",
                    "Code assistant: native srt sandbox, workspace-only filesystem, code tools, fails closed, "
                            + "localhost network.",
                    base(PLAYBOOK_MODEL, "journal", "localhost"), codeSandboxExpectations()));

    private static List<Expectation> codeSandboxExpectations() {
        List<Expectation> e = new ArrayList<>(List.of(NATIVE,
                new Expectation("sandbox.network.mode is localhost",
                        c -> c.sandbox().network().mode() == NetworkMode.LOCALHOST),
                new Expectation("sandbox.readableRoots and writableRoots are the workspace only ([\".\"])",
                        c -> c.sandbox().readableRoots().equals(List.of("."))
                                && c.sandbox().writableRoots().equals(List.of("."))),
                DENY_DEFAULTS, FAIL_CLOSED));
        e.add(new Expectation("code tools are allowed (" + String.join(", ", CODE_TOOLS) + ")",
                c -> CODE_TOOLS.stream().allMatch(t -> toolAllowed(c, t))));
        return List.copyOf(e);
    }

    public static Optional<Preset> find(String id) {
        return ALL.stream().filter(p -> p.id().equals(id)).findFirst();
    }

    public static List<String> ids() {
        return ALL.stream().map(Preset::id).toList();
    }
}
