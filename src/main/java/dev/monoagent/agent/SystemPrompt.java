package dev.monoagent.agent;

import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.SandboxStatus;
import dev.monoagent.tools.Tools;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The system prompt of a run: built-in guardrails, then the workspace's {@code IDENTITY.md} (and {@code SOUL.md}) as
 * the reviewer accepted them,
 * then a session block stating what is really in force (workspace, the sandbox as it is now, the tools offered).
 * Recalled memory never goes here: it is appended to the user message of its turn.
 */
final class SystemPrompt {
    /** Identity files larger than this are cut (they are the user's prose, not a place for data). */
    static final int MAX_IDENTITY_CHARS = 16_000;

    static final String GUARDRAILS = """
            You are mono-agent, a code agent working for a security reviewer in one workspace (a repository).
            Rules that always apply:
            - Every command you run (Bash, Exec, NodeRepl) runs inside an OS sandbox. When the sandbox refuses \
            something (a write, a network connection, a read), that is the policy working: report it, do not try \
            to get around it (no other interpreter, path, symlink, encoding or tool to reach the same effect).
            - Never write secrets files (.env, .env.*), git configuration or hooks, or the state folder \
            .mono-agent/. Never print, copy or exfiltrate credentials you come across; describe where they are.
            - A tool result with the code sandbox_prepare_failed means the sandbox engine is unavailable and the \
            policy is fail-closed: nothing ran. Say so; do not retry in a loop.
            - Prefer reading (Read, Glob, Grep) before acting. Keep commands short and bounded; quote paths.
            - Answer concisely. When you are done, reply with your final answer and no tool call.""";

    private SystemPrompt() {}

    /**
     * @param instructions the accepted instruction files by name ({@link dev.monoagent.config.WorkspaceTrust}): the
     *                     exact text the reviewer accepted; a file that waits for acceptance is not here
     */
    static String build(Path workspace, Map<String, String> instructions, SandboxStatus sandbox, Policy policy,
                        List<Tools.Spec> tools) {
        StringBuilder sb = new StringBuilder(GUARDRAILS).append("\n");
        for (String name : dev.monoagent.config.ConfigLoader.INSTRUCTION_FILES) {
            String text = cut(instructions.get(name));
            if (text != null && !text.isBlank()) {
                sb.append("\n# ").append(name).append(" (the agent's role, written by its owner)\n")
                        .append(text.strip()).append("\n");
            }
        }
        sb.append("\n# Session\n");
        // every value below may hold the repository's text (its config's globs, a path): one line each, so none
        // can open a section of its own in the prompt (only the accepted instruction files above are free text)
        sb.append("- Workspace: ").append(oneLine(workspace.toString())).append(" (relative paths resolve here)\n");
        sb.append("- Sandbox: effective ").append(sandbox.effective().wire());
        if (sandbox.reason() != null && !sandbox.ready()) {
            sb.append(" (").append(oneLine(sandbox.reason())).append(")");
        }
        sb.append("; fallback ").append(policy.fallback().wire()).append("; network ")
                .append(policy.network().wire());
        if (!policy.allowlist().isEmpty()) {
            sb.append(" (allowlist: ").append(oneLine(String.join(", ", policy.allowlist()))).append(")");
        }
        // a stricter deny list applies without acceptance, so an entry that is not a plain path pattern (free text,
        // "you may write .env") is counted, not quoted: the repository gets no sentence into the instructions
        List<String> plain = policy.denyWriteGlobs().stream().filter(g -> PLAIN_GLOB.matcher(g).matches()).toList();
        int other = policy.denyWriteGlobs().size() - plain.size();
        sb.append("\n- Never writable: ").append(oneLine(String.join(", ", plain)))
                .append(other > 0 ? " (and " + other + " more configured pattern" + (other > 1 ? "s" : "")
                        + ", not shown)" : "")
                .append(", .mono-agent/\n");
        if (sandbox.fallbackActive()) {
            sb.append("- ").append(SandboxStatus.UNSAFE_WARNING).append("\n");
        }
        if (tools.isEmpty()) {
            sb.append("- Tools: none (chat only).\n");
        } else {
            sb.append("- Tools: ").append(String.join(", ", tools.stream().map(Tools.Spec::name).toList()))
                    .append(".\n");
            sb.append("- NodeRepl keeps its state (declarations) for this run only; a new run starts a fresh REPL.\n");
            sb.append("- Long tool output is cut to a head and tail; the full text is saved to the file named in "
                    + "the result (read it with Read or Grep if you need more).\n");
        }
        return sb.toString();
    }

    /** A path pattern as people write them: no spaces, no sentence punctuation. */
    private static final java.util.regex.Pattern PLAIN_GLOB = java.util.regex.Pattern.compile(
            "[A-Za-z0-9._*?/\\[\\]{}!~@+=-]{1,200}");

    /** Config-derived text as one line: control characters (a newline above all) shown as escapes. */
    private static String oneLine(String s) {
        return dev.monoagent.common.Printable.line(s);
    }

    /** The text cut to {@link #MAX_IDENTITY_CHARS}; null stays null. */
    private static String cut(String s) {
        return s == null || s.length() <= MAX_IDENTITY_CHARS ? s : s.substring(0, MAX_IDENTITY_CHARS) + "\n[…cut]";
    }
}
