package dev.monoagent.memory;

import java.util.List;
import java.util.TreeSet;

/**
 * What the host saw of one completed turn; {@link #text()} is its deterministic journal form (same turn, same text,
 * same hash), with secret-shaped text redacted and long parts cut.
 *
 * @param question   the user's message
 * @param answer     the assistant's final text
 * @param tools      tool names called (repeats allowed)
 * @param files      workspace-relative paths the turn read or wrote
 * @param violations one line per sandbox violation seen
 */
public record TurnObservation(String question, String answer, List<String> tools, List<String> files,
                              List<String> violations) {
    static final int QUESTION_CHARS = 400;
    static final int ANSWER_CHARS = 600;

    public TurnObservation {
        tools = List.copyOf(tools);
        files = List.copyOf(files);
        violations = List.copyOf(violations);
    }

    public String text() {
        StringBuilder sb = new StringBuilder();
        sb.append("Asked: ").append(cut(question, QUESTION_CHARS)).append('\n');
        sb.append("Answered: ").append(cut(answer, ANSWER_CHARS)).append('\n');
        sb.append("Tools: ").append(tools.isEmpty() ? "none" : String.join(", ", new TreeSet<>(tools))).append('\n');
        sb.append("Files: ").append(files.isEmpty() ? "none" : String.join(", ", new TreeSet<>(files))).append('\n');
        sb.append("Violations: ").append(violations.isEmpty() ? "none" : String.join("; ", violations));
        return MemoryText.normalizeLines(SecretShapes.redact(sb.toString()));
    }

    private static String cut(String s, int max) {
        String one = MemoryText.normalize(s == null ? "" : s);
        return one.codePointCount(0, one.length()) <= max ? one
                : one.substring(0, one.offsetByCodePoints(0, max)) + "…";
    }
}
