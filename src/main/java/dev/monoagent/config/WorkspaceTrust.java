package dev.monoagent.config;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the trust boundary decided for one load: the workspace settings that wait for the reviewer (not in effect) and
 * those the reviewer accepted (in effect), plus the accepted instruction files' text. Every surface reads this one
 * report: the CLI's notice line, {@code validate}'s section, the window's dialog and sandbox panel.
 *
 * @param pending      workspace settings not in effect until {@code mono-agent trust}
 * @param accepted     workspace settings the reviewer accepted earlier (in effect)
 * @param instructions accepted instruction files by name ({@code IDENTITY.md}, {@code SOUL.md}) with the exact text
 *                     that was accepted; a pending one is absent
 */
public record WorkspaceTrust(List<TrustItem> pending, List<TrustItem> accepted, Map<String, String> instructions) {
    public static final WorkspaceTrust NONE = new WorkspaceTrust(List.of(), List.of(), Map.of());

    /** The command that accepts the pending items. */
    public static final String ACCEPT_COMMAND = "mono-agent trust";

    public WorkspaceTrust {
        pending = List.copyOf(pending);
        accepted = List.copyOf(accepted);
        instructions = Map.copyOf(instructions);
    }

    /** Whether nothing waits. */
    public boolean settled() {
        return pending.isEmpty();
    }

    /**
     * One line saying what was ignored and how to accept it, or null when nothing waits:
     * {@code Ignored from the workspace until you accept it: sandbox.mode=off (.env), … — see: mono-agent trust --show}.
     */
    public String notice() {
        if (pending.isEmpty()) {
            return null;
        }
        String items = pending.stream().limit(4).map(TrustItem::shortForm).collect(Collectors.joining(", "));
        String more = pending.size() > 4 ? " and " + (pending.size() - 4) + " more" : "";
        return "Ignored from the workspace until you accept it: " + items + more + ". Review: " + ACCEPT_COMMAND
                + " --show; accept: " + ACCEPT_COMMAND + ".";
    }
}
