package dev.monoagent.tools;

import dev.monoagent.config.ConfigError;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.config.Suggest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which tools the model may call, compiled from {@code tools.allowedTools} / {@code tools.disallowedTools}.
 * Pure: needs no tool instances, so {@code validate} can use it on a config alone.
 *
 * <p>Rules (the contract): omitted or {@code ["*"]} = all; a list = exactly those; {@code []} = chat-only; deny
 * wins; a name in both lists, a duplicate (case-insensitive) or an unknown name is {@code invalid_tool_policy}
 * (unknown names carry a "did you mean" hint). Names match case-insensitively and are kept in canonical spelling.
 *
 * @param allowAll   true when allowedTools was {@code ["*"]} (or omitted)
 * @param listed     the explicitly allowed names when not {@code allowAll}, canonical, in config order
 * @param disallowed the denied names, canonical, in config order
 */
public record ToolPolicy(boolean allowAll, List<String> listed, List<String> disallowed) {

    /** The outcome code of every policy error. */
    public static final String INVALID_TOOL_POLICY = "invalid_tool_policy";

    /** The sentence the contract gives for a name in both lists. */
    public static final String BOTH_LISTS = "Tools cannot be both allowed and disallowed.";

    /** The validate line for an empty effective set. */
    public static final String CHAT_ONLY = "No tools allowed; the agent is chat-only.";

    /** Allow everything, deny nothing (the default). */
    public static final ToolPolicy ALL = new ToolPolicy(true, List.of(), List.of());

    public ToolPolicy {
        listed = List.copyOf(listed);
        disallowed = List.copyOf(disallowed);
    }

    /**
     * One problem in the tool lists.
     *
     * @param code    always {@link #INVALID_TOOL_POLICY}
     * @param field   {@code tools.allowedTools} or {@code tools.disallowedTools}
     * @param message the complete sentence, one line (a tool name it quotes has its control characters escaped)
     */
    public record Error(String code, String field, String message) {
        public Error {
            message = dev.monoagent.common.Printable.oneLine(message);
        }

        /** The same problem in the config package's shape (for validate's error section). */
        public ConfigError toConfigError() {
            return new ConfigError(field, "[" + code + "] " + message);
        }
    }

    /** A compiled policy or the errors that prevent one. */
    public sealed interface Result {
        /** A usable policy. */
        record Valid(ToolPolicy policy) implements Result {}

        /** Every problem found (never empty). */
        record Invalid(List<Error> errors) implements Result {
            public Invalid {
                errors = List.copyOf(errors);
            }
        }
    }

    /** Compiles the config's tool lists; null lists mean "omitted". */
    public static Result of(MonoConfig.Tools tools) {
        List<String> allowedRaw = tools == null || tools.allowedTools() == null ? List.of("*") : tools.allowedTools();
        List<String> deniedRaw = tools == null || tools.disallowedTools() == null ? List.of() : tools.disallowedTools();
        List<Error> errors = new ArrayList<>();

        boolean allowAll = allowedRaw.size() == 1 && "*".equals(allowedRaw.get(0).trim());
        List<String> listed = allowAll ? List.of() : names("tools.allowedTools", allowedRaw, errors);
        List<String> denied = names("tools.disallowedTools", deniedRaw, errors);

        List<String> both = listed.stream().filter(denied::contains).toList();
        if (!both.isEmpty()) {
            errors.add(new Error(INVALID_TOOL_POLICY, "tools.disallowedTools",
                    BOTH_LISTS + " Named in both lists: " + String.join(", ", both) + "."));
        }
        if (!errors.isEmpty()) {
            return new Result.Invalid(errors);
        }
        return new Result.Valid(new ToolPolicy(allowAll, listed, denied));
    }

    private static List<String> names(String field, List<String> raw, List<Error> errors) {
        Set<String> seen = new LinkedHashSet<>();
        Set<String> reportedDup = new LinkedHashSet<>();
        for (String entry : raw) {
            String e = entry == null ? "" : entry.trim();
            if (e.equals("*")) {
                errors.add(new Error(INVALID_TOOL_POLICY, field, field.equals("tools.allowedTools")
                        ? field + " may use \"*\" only as its single entry."
                        : field + " cannot contain \"*\"; use tools.allowedTools: [] for a chat-only agent."));
                continue;
            }
            String canon = ToolNames.canonical(e);
            if (canon == null) {
                String hint = Suggest.closest(e, ToolNames.ALL);
                errors.add(new Error(INVALID_TOOL_POLICY, field, field + " has unknown tool \"" + e + "\""
                        + (hint != null ? "; did you mean \"" + hint + "\"?" : ".")
                        + " Known tools: " + String.join(", ", ToolNames.ALL) + "."));
                continue;
            }
            if (!seen.add(canon) && reportedDup.add(canon)) {
                errors.add(new Error(INVALID_TOOL_POLICY, field, field + " lists \"" + canon
                        + "\" more than once (names are case-insensitive)."));
            }
        }
        return List.copyOf(seen);
    }

    /** Whether the model may call {@code name} (any case). */
    public boolean allows(String name) {
        String canon = ToolNames.canonical(name);
        if (canon == null || disallowed.contains(canon)) {
            return false;
        }
        return allowAll || listed.contains(canon);
    }

    /** The allowed names, in {@link ToolNames#ALL} order. */
    public List<String> enabled() {
        return ToolNames.ALL.stream().filter(this::allows).toList();
    }

    /** True when no tool is allowed. */
    public boolean chatOnly() {
        return enabled().isEmpty();
    }

    /** The one-line summary validate prints in the Tools section. */
    public String summary() {
        if (chatOnly()) {
            return CHAT_ONLY;
        }
        if (allowAll) {
            return disallowed.isEmpty() ? "All tools allowed."
                    : "All tools allowed (except: " + String.join(", ", disallowed) + ").";
        }
        return "Allowed tools: " + String.join(", ", listed.stream().filter(this::allows).toList()) + ".";
    }
}
