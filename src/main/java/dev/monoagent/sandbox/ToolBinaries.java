package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import java.nio.file.Path;

/**
 * The host programs the tools package starts itself: {@code rg} for Glob/Grep (on the host, read-only, inside a
 * bubblewrap mount namespace that holds only the readable roots) and {@code node} for NodeRepl (inside the sandbox, or
 * on the host in mode off). Found by the same rule as the engine's own tools ({@link HostTools#trusted}): never from a
 * relative PATH entry or one the agent can write to (the workspace, writable roots, our cache and temp dirs), and
 * only a real, safely owned executable. An {@code rg} planted in {@code <ws>/bin} on the user's PATH would otherwise
 * run unsandboxed on the host.
 *
 * @param rg    ripgrep, or null when no trusted one is installed
 * @param node  Node.js ({@link HostTools#chooseNode}), or null when none qualifies
 * @param bwrap bubblewrap for the search namespace (Linux), or null when none is installed
 */
public record ToolBinaries(Path rg, Path node, Path bwrap) {

    /** Without bubblewrap: searches then run only in sandbox mode off (see {@code Ripgrep}). */
    public ToolBinaries(Path rg, Path node) {
        this(rg, node, null);
    }

    /** The binaries for {@code policy}'s workspace, searched on {@code env}'s PATH. */
    public static ToolBinaries find(HostEnv env, Policy policy) {
        // node by the engine's own choice: the host's when it is >= 20.11, else the verified managed one (never a
        // too-old host node, never a corrupt managed one), so NodeRepl runs on the Node the self-check proved
        return new ToolBinaries(HostTools.trusted(env, policy.agentWritable(), "rg"),
                HostTools.chooseNode(env, policy.agentWritable()).node(),
                env.isLinux() ? HostTools.trusted(env, policy.agentWritable(), "bwrap") : null);
    }
}
