package dev.monoagent.tools;

import java.util.List;

/** The tool implementations this package provides without outside state (the memory tools need a store: {@link MemoryTools}). */
final class BuiltinTools {
    private BuiltinTools() {}

    static List<Tool> all() {
        return List.of(new ReadTool(), new WriteTool(), new EditTool(), new GlobTool(), new GrepTool(), new BashTool(),
                new ExecTool(), new NodeReplTool());
    }
}
