package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.memory.JournalEntry;
import dev.monoagent.memory.MemoryStore;
import java.io.IOException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory tools over the {@link MemoryStore} facade: {@code MemoryRecall {query}}, {@code MemoryJournal {date?}}
 * and {@code Remember {text}}. They run in the host process (not the sandbox): the journal lives in the protected
 * state dir, which the agent's Write/Edit/Bash can never touch, so these are its only way in, and Remember refuses
 * secret-shaped text before anything is written.
 */
public final class MemoryTools {
    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryTools() {}

    /** The memory tools the config enables, for {@link Tools#open}'s {@code extra}. */
    public static List<Tool> of(MemoryStore store, MonoConfig.Memory cfg) {
        return of(() -> store, cfg);
    }

    /**
     * As {@link #of(MemoryStore, MonoConfig.Memory)} with the store opened on the first memory call (an instance
     * that never uses memory never opens its index); a supplier that fails or returns null makes the call
     * {@code failed} with the reason.
     */
    public static List<Tool> of(java.util.function.Supplier<MemoryStore> store, MonoConfig.Memory cfg) {
        List<Tool> out = new ArrayList<>();
        if (cfg.recallTool().enabled()) {
            out.add(new Recall(store, cfg.maxBytes()));
            out.add(new JournalTool(store));
        }
        if (cfg.rememberTool().enabled()) {
            out.add(new Remember(store));
        }
        return List.copyOf(out);
    }

    /** The store, or an IOException saying why there is none. */
    private static MemoryStore open(java.util.function.Supplier<MemoryStore> store) throws IOException {
        MemoryStore s;
        try {
            s = store.get();
        } catch (RuntimeException e) {
            throw new IOException(e.getMessage(), e);
        }
        if (s == null) {
            throw new IOException("the memory store could not be opened");
        }
        return s;
    }

    private static ToolResult failed(IOException e) {
        return new ToolResult.Failed(ToolResult.FAILED, "Error: memory is unavailable: " + e.getMessage());
    }

    static final class Recall extends BasicTool {
        private final java.util.function.Supplier<MemoryStore> store;
        private final int maxBytes;

        Recall(java.util.function.Supplier<MemoryStore> store, int maxBytes) {
            super(ToolNames.MEMORY_RECALL, "Search long-term memory (the daily journal of earlier turns and "
                    + "remembered facts) and return the best entries with their source file and line.",
                    Args.schema().str("query", "What to look for.", true).build());
            this.store = store;
            this.maxBytes = maxBytes;
        }

        @Override
        ToolResult run(JsonNode args, ToolContext ctx) {
            String q = Args.requireNonBlank(args, "query");
            try {
                MemoryStore.Recall r = open(store).recall(q, maxBytes);
                ObjectNode data = JSON.createObjectNode().put("mode", r.mode()).put("bytes", r.bytes());
                data.put("reason", r.reason());
                var items = data.putArray("items");
                r.items().forEach(h -> items.addObject().put("source", h.entry().source())
                        .put("hash", h.entry().hash()));
                String head = "Recall (" + r.mode() + (r.reason() == null ? "" : ": " + r.reason()) + "): ";
                return new ToolResult.Ok(r.items().isEmpty() ? head + "nothing found for \"" + q + "\"."
                        : head + r.items().size() + " entries.\n" + r.block(), data);
            } catch (IOException e) {
                return failed(e);
            }
        }
    }

    static final class JournalTool extends BasicTool {
        private final java.util.function.Supplier<MemoryStore> store;

        JournalTool(java.util.function.Supplier<MemoryStore> store) {
            super(ToolNames.MEMORY_JOURNAL, "Read one day of the memory journal in chronological order (default: "
                    + "today, UTC).", Args.schema().str("date", "The day as YYYY-MM-DD (UTC).", false).build());
            this.store = store;
        }

        @Override
        ToolResult run(JsonNode args, ToolContext ctx) {
            String d = Args.optString(args, "date");
            LocalDate day;
            try {
                day = d == null ? open(store).today() : LocalDate.parse(d);
            } catch (DateTimeParseException e) {
                return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                        "Error: date must be YYYY-MM-DD, got \"" + d + "\".");
            } catch (IOException e) {
                return failed(e);
            }
            try {
                List<JournalEntry> entries = open(store).day(day);
                if (entries.isEmpty()) {
                    return new ToolResult.Ok("No journal entries for " + day + ".");
                }
                StringBuilder sb = new StringBuilder("Journal " + day + " (" + entries.size() + " entries):\n");
                for (JournalEntry e : entries) {
                    sb.append("- [").append(e.time()).append(" · ").append(e.kind()).append(" · ")
                            .append(e.source()).append("] ").append(e.text().replace("\n", "\n  ")).append('\n');
                }
                return new ToolResult.Ok(sb.toString());
            } catch (IOException e) {
                return failed(e);
            }
        }
    }

    static final class Remember extends BasicTool {
        private final java.util.function.Supplier<MemoryStore> store;

        Remember(java.util.function.Supplier<MemoryStore> store) {
            super(ToolNames.REMEMBER, "Save one durable fact to long-term memory (at most 500 characters; never "
                    + "secrets such as API keys, tokens, passwords or private keys, which are refused).",
                    Args.schema().str("text", "The fact to remember.", true).build());
            this.store = store;
        }

        @Override
        ToolResult run(JsonNode args, ToolContext ctx) {
            String text = Args.requireString(args, "text");
            try {
                return switch (open(store).remember(text)) {
                    case MemoryStore.Remembered.Stored s -> new ToolResult.Ok("Remembered (" + s.entry().source()
                            + ").", JSON.createObjectNode().put("hash", s.entry().hash()).put("added", true));
                    case MemoryStore.Remembered.Duplicate dup -> new ToolResult.Ok("Already remembered ("
                            + dup.entry().source() + "); nothing written.",
                            JSON.createObjectNode().put("hash", dup.entry().hash()).put("added", false));
                    case MemoryStore.Remembered.Rejected r -> new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS,
                            "Error: not remembered: " + r.reason() + ".");
                };
            } catch (IOException e) {
                return failed(e);
            }
        }
    }
}
