package dev.monoagent.agent;

import dev.monoagent.model.Item;
import dev.monoagent.model.ToolSpec;
import dev.monoagent.tools.OutputBound;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Keeps a conversation inside the model's context window. Token counts are estimated (UTF-8 bytes / 4, the usual
 * rule of thumb; no tokenizer ships for every provider). When a request would pass {@link #TRIGGER} of the prompt
 * budget ({@code context.maxTokens - context.reserveTokens}), the oldest tool outputs are replaced by a one-line
 * note naming the file that holds their full text, until the estimate is back under {@link #TARGET}; the outputs of
 * the latest model turn are never elided. Only when that is not enough can a provider answer {@code context_limit}.
 */
final class ContextWindow {
    /** Elide when the estimate passes this share of the budget. */
    static final double TRIGGER = 0.85;
    /** Elide down to this share of the budget. */
    static final double TARGET = 0.60;
    /** What one tool result may show the model (the rest is in the artifact file). */
    static final int MODEL_OUTPUT_BYTES = 32 * 1024;
    static final String ELIDED_PREFIX = "[Earlier tool output elided to save context";

    private final long budget;
    private final Path artifacts;

    /**
     * @param budget    prompt tokens available ({@code context.maxTokens - context.reserveTokens})
     * @param artifacts the run's tool-output directory ({@code .mono-agent/artifacts/tool-output/<runId>})
     */
    ContextWindow(long budget, Path artifacts) {
        this.budget = Math.max(1, budget);
        this.artifacts = artifacts;
    }

    long budget() {
        return budget;
    }

    static long tokens(String s) {
        return s == null ? 0 : (s.getBytes(StandardCharsets.UTF_8).length + 3) / 4;
    }

    static long estimate(String instructions, List<Item> items, List<ToolSpec> tools) {
        long t = tokens(instructions);
        for (ToolSpec s : tools) {
            t += tokens(s.name()) + tokens(s.description()) + tokens(String.valueOf(s.parameters()));
        }
        for (Item i : items) {
            t += 4 + switch (i) {
                case Item.UserText u -> tokens(u.text());
                case Item.AssistantText a -> tokens(a.text());
                case Item.ToolCall c -> tokens(c.name()) + tokens(c.arguments());
                case Item.ToolOutput o -> tokens(o.output());
                case Item.Reasoning r -> tokens(r.json());
            };
        }
        return t;
    }

    /** Whether {@code estimate} asks for elision. */
    boolean near(long estimate) {
        return estimate > budget * TRIGGER;
    }

    /**
     * Elides the oldest tool outputs (not those after the last assistant tool call batch) until the estimate is
     * under {@link #TARGET} of the budget, or under {@code goal} when {@code all} (after a provider's
     * context_limit: every elidable output goes).
     *
     * @return how many outputs were elided
     */
    int elide(String instructions, List<Item> items, List<ToolSpec> tools, boolean all) {
        int protectFrom = lastTurnStart(items);
        long est = estimate(instructions, items, tools);
        long goal = (long) (budget * TARGET);
        int n = 0;
        for (int i = 0; i < protectFrom && (all || est > goal); i++) {
            if (items.get(i) instanceof Item.ToolOutput o && !o.output().startsWith(ELIDED_PREFIX)
                    && o.output().length() > 200) {
                String note = note(o);
                est -= tokens(o.output()) - tokens(note);
                items.set(i, new Item.ToolOutput(o.callId(), note, o.isError()));
                n++;
            }
        }
        return n;
    }

    /** Whether any output could still be elided. */
    boolean canElide(List<Item> items) {
        int protectFrom = lastTurnStart(items);
        for (int i = 0; i < protectFrom; i++) {
            if (items.get(i) instanceof Item.ToolOutput o && !o.output().startsWith(ELIDED_PREFIX)
                    && o.output().length() > 200) {
                return true;
            }
        }
        return false;
    }

    /** Index of the first item of the latest tool-call batch and its outputs (those stay visible). */
    private static int lastTurnStart(List<Item> items) {
        int i = items.size();
        while (i > 0 && items.get(i - 1) instanceof Item.ToolOutput) {
            i--;
        }
        while (i > 0 && items.get(i - 1) instanceof Item.ToolCall) {
            i--;
        }
        return i;
    }

    private String note(Item.ToolOutput o) {
        String where = savedPath(o.output());
        if (where == null) {
            where = save(o.callId(), o.output());
        }
        return ELIDED_PREFIX + " (" + o.output().length() + " characters); full text: " + where + "]";
    }

    /**
     * What the model sees of one tool result: at most {@link #MODEL_OUTPUT_BYTES}, head and tail, with the full text
     * in the artifact file (the tools already spilled results over 256 KB; those keep their file).
     */
    String bound(String callId, String text) {
        if (text.getBytes(StandardCharsets.UTF_8).length <= MODEL_OUTPUT_BYTES) {
            return text;
        }
        String saved = savedPath(text);
        if (saved != null) {
            // already cut by the tools with the full text on disk: cut further, keep pointing at that file
            String body = text.substring(0, text.lastIndexOf(OutputBound.SAVED_PREFIX)).stripTrailing();
            String cut = OutputBound.bytes(body, MODEL_OUTPUT_BYTES, null);
            int at = cut.lastIndexOf(OutputBound.SAVED_PREFIX);
            return (at >= 0 ? cut.substring(0, at) : cut) + OutputBound.SAVED_PREFIX + saved;
        }
        return OutputBound.bytes(text, MODEL_OUTPUT_BYTES, artifacts == null ? null : file(callId));
    }

    private Path file(String callId) {
        return artifacts.resolve(callId.replaceAll("[^A-Za-z0-9._-]", "_") + ".txt");
    }

    private String save(String callId, String text) {
        if (artifacts == null) {
            return "(not saved)";
        }
        Path f = artifacts.resolve("elided-" + callId.replaceAll("[^A-Za-z0-9._-]", "_") + ".txt");
        try {
            Files.createDirectories(artifacts);
            Files.writeString(f, text, StandardCharsets.UTF_8);
            return f.toString();
        } catch (IOException e) {
            return "(not saved: " + e.getMessage() + ")";
        }
    }

    /** The path in a result's closing {@code Full output saved to:} line, or null. */
    static String savedPath(String text) {
        int at = text.lastIndexOf(OutputBound.SAVED_PREFIX);
        if (at < 0) {
            return null;
        }
        String p = text.substring(at + OutputBound.SAVED_PREFIX.length()).strip();
        return p.isEmpty() || p.contains("\n") || p.startsWith("(") ? null : p;
    }
}
