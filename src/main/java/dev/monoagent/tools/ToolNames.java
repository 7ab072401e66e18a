package dev.monoagent.tools;

import java.util.List;
import java.util.Locale;

/**
 * The model-facing tool names, in their one canonical spelling and display order. Config lists, the registry, the
 * validate summary and the CLI all read this constant, so a name exists in exactly one place.
 */
public final class ToolNames {
    private ToolNames() {}

    public static final String READ = "Read";
    public static final String WRITE = "Write";
    public static final String EDIT = "Edit";
    public static final String GLOB = "Glob";
    public static final String GREP = "Grep";
    public static final String BASH = "Bash";
    public static final String EXEC = "Exec";
    public static final String NODE_REPL = "NodeRepl";
    public static final String MEMORY_RECALL = "MemoryRecall";
    public static final String MEMORY_JOURNAL = "MemoryJournal";
    public static final String REMEMBER = "Remember";

    /** Every tool name the product knows, in display order. */
    public static final List<String> ALL = List.of(READ, WRITE, EDIT, GLOB, GREP, BASH, EXEC, NODE_REPL,
            MEMORY_RECALL, MEMORY_JOURNAL, REMEMBER);

    /** The canonical spelling of {@code name} (case-insensitive), or null when it is not a tool name. */
    public static String canonical(String name) {
        if (name == null) {
            return null;
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (String t : ALL) {
            if (t.toLowerCase(Locale.ROOT).equals(n)) {
                return t;
            }
        }
        return null;
    }
}
