package dev.monoagent.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tools a run may offer: the implementations present, filtered by the {@link ToolPolicy}. Lookup is
 * case-insensitive. A name the policy denies (or no implementation exists for) is not offered and not callable.
 */
public final class ToolRegistry {
    private final ToolPolicy policy;
    private final Map<String, Tool> tools = new LinkedHashMap<>();

    public ToolRegistry(ToolPolicy policy, List<Tool> implementations) {
        this.policy = policy;
        for (String name : ToolNames.ALL) {
            for (Tool t : implementations) {
                if (t.name().equals(name)) {
                    tools.put(name, t);
                }
            }
        }
        for (Tool t : implementations) {
            if (ToolNames.canonical(t.name()) == null) {
                throw new IllegalArgumentException("not a known tool name: " + t.name());
            }
        }
    }

    public ToolPolicy policy() {
        return policy;
    }

    /** The tools the model is offered, in {@link ToolNames#ALL} order. */
    public List<Tool> offered() {
        List<Tool> out = new ArrayList<>();
        for (Tool t : tools.values()) {
            if (policy.allows(t.name())) {
                out.add(t);
            }
        }
        return List.copyOf(out);
    }

    /** The callable tool for {@code name} (any case), or empty when unknown, without an implementation, or not allowed. */
    public Optional<Tool> find(String name) {
        String canon = ToolNames.canonical(name);
        if (canon == null || !policy.allows(canon)) {
            return Optional.empty();
        }
        return Optional.ofNullable(tools.get(canon));
    }

    /** Why {@code name} cannot be called (for the {@code tool_not_allowed} text). */
    public String refusal(String name) {
        String canon = ToolNames.canonical(name);
        if (canon == null) {
            String hint = dev.monoagent.config.Suggest.closest(String.valueOf(name), ToolNames.ALL);
            return "Error: Unknown tool \"" + name + "\"" + (hint != null ? "; did you mean \"" + hint + "\"?" : ".");
        }
        if (!policy.allows(canon)) {
            return "Error: Tool " + canon + " is not allowed by tools.allowedTools/disallowedTools.";
        }
        return "Error: Tool " + canon + " is not available in this build.";
    }
}
