package dev.monoagent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.memory.JournalEntry;
import dev.monoagent.memory.MemoryStore;
import java.io.IOException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mono-agent memory stats|today|show DATE|search QUERY|rebuild [--json]}: the journal memory from the shell.
 * Every subcommand opens the store the way the agent does (so it also repairs a missing or stale index).
 */
@Command(name = "memory", mixinStandardHelpOptions = true, description = "Inspect and rebuild the journal memory.",
        subcommands = {MemoryCommand.Stats.class, MemoryCommand.Today.class, MemoryCommand.Show.class,
                MemoryCommand.Search.class, MemoryCommand.Rebuild.class})
final class MemoryCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final CliContext ctx;

    @Spec
    CommandSpec spec;

    MemoryCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void run() {
        spec.commandLine().usage(ctx.out());
    }

    /** Options and store opening shared by the subcommands. */
    abstract static class Sub implements Callable<Integer> {
        final CliContext ctx;

        @Mixin
        ConfigOptions options;

        @Option(names = "--json", description = "Print JSON.")
        boolean json;

        Sub(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            LoadedConfig lc = options.load(ctx);
            try (MemoryStore m = MemoryStore.open(lc)) {
                int rc = run(m);
                // text that arrived with the repository is never shown as the reviewer's memory: say it is ignored
                String ignored = MemoryStore.Stats.ignoredLine(m.ignored());
                if (ignored != null && !(this instanceof Stats)) {
                    ctx.err().println("warning: " + ignored);
                }
                return rc;
            } catch (IOException e) {
                throw new CliException(ExitCodes.ERROR, "Memory error: " + e.getMessage());
            }
        }

        abstract int run(MemoryStore m) throws IOException;

        void print(Object o) throws IOException {
            ctx.out().println(JSON.writeValueAsString(o));
        }
    }

    static ObjectNode entryJson(JournalEntry e) {
        return JSON.createObjectNode().put("hash", e.hash()).put("time", e.time().toString()).put("kind", e.kind())
                .put("source", e.source()).put("text", e.text());
    }

    static ObjectNode statsJson(MemoryStore.Stats s) {
        ObjectNode o = JSON.createObjectNode().put("mode", s.mode()).put("path", s.path().toString())
                .put("entries", s.entries()).put("days", s.days()).put("indexedDocs", s.indexedDocs())
                .put("vectorDocs", s.vectorDocs()).put("indexHealth", s.indexHealth()).put("embedder", s.embedder())
                .put("vectorState", s.vectorState().word());
        o.put("vectorDetail", s.vectorDetail());
        ArrayNode ignored = o.putArray("ignored");
        s.ignored().forEach(ignored::add);
        return o;
    }

    @Command(name = "stats", mixinStandardHelpOptions = true, description = "Entries, days, index and embedder state.")
    static final class Stats extends Sub {
        Stats(CliContext ctx) {
            super(ctx);
        }

        @Override
        int run(MemoryStore m) throws IOException {
            MemoryStore.Stats s = m.stats();
            if (json) {
                print(statsJson(s));
                return ExitCodes.OK;
            }
            ctx.out().println("Memory (" + s.mode() + ") at " + s.path());
            ctx.out().println("entries: " + s.entries() + " in " + s.days() + " daily file(s)");
            ctx.out().println("index: " + s.indexHealth() + " — " + s.indexedDocs() + " entries, " + s.vectorDocs()
                    + " with vectors");
            ctx.out().println("embeddings: " + s.embedder() + " (" + s.vectorState().word()
                    + (s.vectorDetail() == null ? "" : ": " + s.vectorDetail()) + ")");
            if (s.ignoredLine() != null) {
                ctx.out().println("[WARN] " + s.ignoredLine());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "today", mixinStandardHelpOptions = true, description = "Today's journal (UTC), oldest first.")
    static final class Today extends Sub {
        Today(CliContext ctx) {
            super(ctx);
        }

        @Override
        int run(MemoryStore m) throws IOException {
            return printDay(this, m, m.today());
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "One day's journal, oldest first.")
    static final class Show extends Sub {
        @Parameters(paramLabel = "YYYY-MM-DD", description = "The day (UTC).")
        String date;

        Show(CliContext ctx) {
            super(ctx);
        }

        @Override
        public Integer call() throws Exception {
            try {
                LocalDate.parse(date);
            } catch (DateTimeParseException e) {
                throw new CliException(ExitCodes.USAGE, "memory show: \"" + date + "\" is not a date; use YYYY-MM-DD.");
            }
            return super.call();
        }

        @Override
        int run(MemoryStore m) throws IOException {
            return printDay(this, m, LocalDate.parse(date));
        }
    }

    static int printDay(Sub s, MemoryStore m, LocalDate day) throws IOException {
        List<JournalEntry> entries = m.day(day);
        if (s.json) {
            ArrayNode arr = JSON.createArrayNode();
            entries.forEach(e -> arr.add(entryJson(e)));
            s.print(JSON.createObjectNode().put("date", day.toString()).set("entries", arr));
            return ExitCodes.OK;
        }
        if (entries.isEmpty()) {
            s.ctx.out().println("No journal entries for " + day + ".");
        }
        for (JournalEntry e : entries) {
            // memory text is the agent's (and so possibly the reviewed repository's) words
            s.ctx.out().println(e.time() + "  " + e.kind() + "  " + s.ctx.shown(e.source()));
            e.text().lines().forEach(l -> s.ctx.out().println("  " + s.ctx.shown(l)));
        }
        return ExitCodes.OK;
    }

    @Command(name = "search", mixinStandardHelpOptions = true,
            description = "Hybrid (or keyword-only) search, best first, with source file and line.")
    static final class Search extends Sub {
        @Parameters(paramLabel = "QUERY", arity = "1..*", description = "What to look for.")
        List<String> words;

        @Option(names = "--limit", paramLabel = "N", description = "Most results (default 10).")
        int limit = 10;

        Search(CliContext ctx) {
            super(ctx);
        }

        @Override
        int run(MemoryStore m) throws IOException {
            if (limit < 1 || limit > 1000) {
                throw new CliException(ExitCodes.USAGE, "--limit must be between 1 and 1000, got " + limit + ".");
            }
            String q = String.join(" ", words);
            List<MemoryStore.Hit> hits = m.search(q, limit);
            String mode = m.vectorState() == MemoryStore.VectorState.READY ? MemoryStore.HYBRID
                    : MemoryStore.KEYWORD_ONLY;
            if (json) {
                ArrayNode arr = JSON.createArrayNode();
                for (MemoryStore.Hit h : hits) {
                    arr.add(entryJson(h.entry()).put("score", h.score()).put("keywordRank", h.keywordRank())
                            .put("vectorRank", h.vectorRank()));
                }
                ObjectNode o = JSON.createObjectNode().put("query", q).put("mode", mode);
                o.put("reason", m.vectorDetail());
                o.set("results", arr);
                print(o);
                return ExitCodes.OK;
            }
            ctx.out().println(hits.size() + " result(s), " + mode
                    + (m.vectorDetail() == null ? "" : " (" + m.vectorDetail() + ")") + ":");
            for (MemoryStore.Hit h : hits) {
                ctx.out().println(ctx.shown(h.entry().source() + "  " + h.entry().text().replace("\n", " / ")));
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "rebuild", mixinStandardHelpOptions = true,
            description = "Rebuild the index from the daily journal files.")
    static final class Rebuild extends Sub {
        Rebuild(CliContext ctx) {
            super(ctx);
        }

        @Override
        int run(MemoryStore m) throws IOException {
            long t0 = System.nanoTime();
            MemoryStore.Stats s = m.rebuild();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            if (json) {
                print(statsJson(s).put("rebuildMs", ms));
                return ExitCodes.OK;
            }
            ctx.out().println("Rebuilt the index from " + s.entries() + " journal entries in " + ms + " ms ("
                    + s.vectorDocs() + " with vectors from " + s.embedder() + ").");
            if (s.vectorDetail() != null) {
                ctx.out().println("[WARN] vectors: " + s.vectorDetail());
            }
            return ExitCodes.OK;
        }
    }
}
