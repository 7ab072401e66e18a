package dev.monoagent.ui.port;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.memory.JournalEntry;
import dev.monoagent.memory.MemoryStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What the Memory tab needs from the journal memory: today's entries, hybrid search with source file and line, and a
 * one-line status. Calls block (they may open the index or load the embedding model) and run on the task executor.
 */
public interface MemoryPort extends AutoCloseable {
    /** One entry as shown: {@code source} is {@code daily/DATE.md:LINE}. */
    record Row(String time, String kind, String source, String text) {
        static Row of(JournalEntry e) {
            return new Row(e.time().toString().substring(11, 16) + " UTC", e.kind(), e.source(), e.text());
        }
    }

    /** Search results and how they were found ({@code hybrid} or {@code keyword-only: why}). */
    record Found(List<Row> rows, String how) {}

    List<Row> today() throws IOException;

    Found search(String query) throws IOException;

    String status() throws IOException;

    @Override
    void close();

    /**
     * The workspace's memory as its config describes it, opened on first use (never on the window's start-up path;
     * the embedding model loads on the first search).
     */
    static MemoryPort forWorkspace(Path workspace) {
        return new MemoryPort() {
            private MemoryStore store;

            private synchronized MemoryStore store() throws IOException {
                if (store == null) {
                    try {
                        store = MemoryStore.open(ConfigLoader.load(ConfigLoader.Options.of(workspace)));
                    } catch (ConfigException e) {
                        throw new IOException("config: " + e.getMessage(), e);
                    }
                }
                return store;
            }

            @Override
            public List<Row> today() throws IOException {
                MemoryStore s = store();
                return s.day(s.today()).stream().map(Row::of).toList();
            }

            @Override
            public Found search(String query) throws IOException {
                MemoryStore s = store();
                List<Row> rows = s.search(query, 20).stream().map(h -> Row.of(h.entry())).toList();
                boolean hybrid = s.vectorState() == MemoryStore.VectorState.READY;
                return new Found(rows, hybrid ? MemoryStore.HYBRID
                        : MemoryStore.KEYWORD_ONLY + (s.vectorDetail() == null ? "" : ": " + s.vectorDetail()));
            }

            @Override
            public String status() throws IOException {
                MemoryStore.Stats st = store().stats();
                return "Memory " + st.mode() + " · " + st.entries() + " entries · index " + st.indexHealth()
                        + " · embeddings " + st.embedder() + " (" + st.vectorState().word() + ")"
                        + (st.ignoredLine() == null ? "" : " · ⚠ " + st.ignoredLine());
            }

            @Override
            public synchronized void close() {
                if (store != null) {
                    try {
                        store.close();
                    } catch (IOException e) {
                        // closing at exit: the journal is already durable
                    }
                    store = null;
                }
            }
        };
    }
}
