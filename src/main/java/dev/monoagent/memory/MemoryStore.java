package dev.monoagent.memory;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Seal;
import dev.monoagent.config.Enums.MemoryMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.store.LockObtainFailedException;

/**
 * The memory package's facade for tools, the agent loop, the CLI and the window: the journal (truth) plus the index
 * (derived), kept in step. Opening it re-reads the journal and repairs the index (rebuilds a missing or corrupt one,
 * indexes entries another process appended, drops entries no longer in the journal). Recall is hybrid (BM25 and
 * vectors fused by reciprocal rank) in {@code journal} mode and says {@code keyword-only} with the reason whenever
 * vectors are off or the embedder is unavailable. Thread-safe; writes are serialized.
 */
public final class MemoryStore implements AutoCloseable {
    /** The line that opens the recall block in the user message. */
    public static final String RECALL_HEADER =
            "[Recalled long-term memory — background context for this turn, not the user's words:]";
    public static final String HYBRID = "hybrid";
    public static final String KEYWORD_ONLY = "keyword-only";
    /** Reciprocal-rank-fusion constant (the usual 60: later ranks still count, top ranks dominate). */
    static final int RRF_K = 60;
    /** Candidates each retriever contributes before fusion. */
    static final int CANDIDATES = 50;
    /** Most entries in one recall block. */
    static final int RECALL_ITEMS = 8;
    /** Vector hits below this cosine similarity are noise for recall (they would always fill the block). */
    static final float MIN_COSINE = 0.30f;
    private static final long RETRY_AFTER_MS = 30_000;
    /** Lucene logs a start-up hint about the incubating vector API to stderr; the CLI's output is ours. */
    private static final java.util.logging.Logger LUCENE_LOG = quiet("org.apache.lucene");
    private static final int COMMIT_EVERY = 2_000;
    private int uncommitted;

    /** Where the vector side stands. */
    public enum VectorState {
        OFF("off"), NOT_LOADED("not loaded"), READY("ready"), UNAVAILABLE("unavailable");
        private final String word;

        VectorState(String w) {
            word = w;
        }

        public String word() {
            return word;
        }
    }

    /** The outcome of {@link #remember}. */
    public sealed interface Remembered {
        /** Newly written and fsynced. */
        record Stored(JournalEntry entry) implements Remembered {}

        /** The same content was already remembered; nothing written. */
        record Duplicate(JournalEntry entry) implements Remembered {}

        /** Not written; {@code reason} names the rule (never echoes a secret). */
        record Rejected(String reason) implements Remembered {}
    }

    /** One fused result. */
    public record Hit(JournalEntry entry, double score, int keywordRank, int vectorRank) {}

    /**
     * What a recall found and the block to append to the user message.
     *
     * @param mode   {@link #HYBRID} or {@link #KEYWORD_ONLY}
     * @param reason why keyword-only, or null
     * @param block  the recall block (empty when nothing was recalled), at most the byte budget
     * @param items  the entries in the block
     */
    public record Recall(String mode, String reason, String block, List<Hit> items) {
        public int bytes() {
            return MemoryText.utf8Length(block);
        }
    }

    /** Numbers for {@code memory stats} and validate. */
    /**
     * The memory's state for {@code memory stats} and the window.
     *
     * @param ignored the day files (workspace-relative) holding text this machine did not write and seal: ignored
     */
    public record Stats(String mode, Path path, int entries, int days, int indexedDocs, int vectorDocs,
                        String indexHealth, String embedder, VectorState vectorState, String vectorDetail,
                        List<String> ignored) {
        public Stats {
            ignored = List.copyOf(ignored);
        }

        /** The sentence that names the ignored files, or null when there are none. */
        public String ignoredLine() {
            return ignoredLine(ignored);
        }

        /** "N memory files were not written on this machine and are ignored: a, b", or null for none. */
        public static String ignoredLine(List<String> ignored) {
            if (ignored.isEmpty()) {
                return null;
            }
            return ignored.size() + " memory file" + (ignored.size() == 1 ? " was" : "s were")
                    + " not written on this machine and " + (ignored.size() == 1 ? "is" : "are") + " ignored: "
                    + String.join(", ", ignored);
        }
    }

    private final Path dir;
    private final MonoConfig.Memory cfg;
    private final Embedder embedder;
    private final Clock clock;
    private final Journal journal;
    private MemoryIndex index;
    private final boolean readOnlyIndex;
    private volatile VectorState vectorState;
    private volatile String vectorDetail;
    private volatile long unavailableAt;

    private MemoryStore(Path dir, MonoConfig.Memory cfg, Embedder embedder, Clock clock, Seal seal)
            throws IOException {
        this.dir = dir;
        this.cfg = cfg;
        this.embedder = vectorsOn(cfg) ? embedder : null;
        this.clock = clock;
        this.vectorState = this.embedder == null ? VectorState.OFF
                : this.embedder instanceof LocalMiniLm l && !l.loaded() ? VectorState.NOT_LOADED : VectorState.READY;
        this.vectorDetail = this.embedder == null ? "memory.mode is " + cfg.mode().wire() : null;
        this.journal = Journal.open(dir, seal);
        MemoryIndex idx;
        boolean ro = false;
        Path indexDir = dir.resolve("index");
        // the index is derived: one this machine did not build (it came with the repository) is thrown away
        try {
            idx = MemoryIndex.open(indexDir, embedderId(), indexMark(seal, dir));
        } catch (LockObtainFailedException e) {
            // Another process (the window, a running agent) owns the index writer: search its last commit.
            idx = MemoryIndex.openShared(dir.resolve("index"));
            ro = true;
        }
        this.index = idx;
        this.readOnlyIndex = ro;
        if (!ro) {
            sync();
        }
    }

    private static java.util.logging.Logger quiet(String name) {
        java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
        l.setLevel(java.util.logging.Level.SEVERE);
        return l;
    }

    /** Opens the workspace's memory as configured. */
    public static MemoryStore open(LoadedConfig lc) throws IOException {
        return open(lc, dev.monoagent.host.HostEnv.defaultCacheRoot(lc.env(),
                Path.of(System.getProperty("user.home"))));
    }

    static MemoryStore open(LoadedConfig lc, Path cacheDir) throws IOException {
        MonoConfig.Memory m = lc.config().memory();
        return new MemoryStore(dir(lc), m, Embedders.of(m.embeddings(), lc.env(), cacheDir), Clock.systemUTC(),
                seal(sealEnv(lc)));
    }

    /**
     * The environment that locates the seal key: the config's, in which the variables that place the user config dir
     * come from the exported environment only (never from an env file, which may arrive with the repository and
     * would let it bring a key of its own).
     */
    public static Map<String, String> sealEnv(LoadedConfig lc) {
        return lc.env();
    }

    /** What an index built on this machine for the memory dir {@code dir} carries in its commit data. */
    static String indexMark(Seal seal, Path dir) {
        byte[] b = "memory index".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return seal.mac(Seal.label(Journal.workspaceOf(dir), dir.resolve("index")), b, 0, b.length);
    }

    /** The user's seal (its key in the user config dir, outside every workspace). */
    public static Seal seal(Map<String, String> env) throws IOException {
        return Seal.at(dev.monoagent.host.HostEnv.defaultConfigRoot(env, Path.of(System.getProperty("user.home"))));
    }

    /** For tests and benchmarks: an explicit directory, config and embedder, sealed with the process user's key. */
    static MemoryStore open(Path dir, MonoConfig.Memory cfg, Embedder embedder, Clock clock) throws IOException {
        return new MemoryStore(dir, cfg, embedder, clock, seal(System.getenv()));
    }

    /** For tests: as {@link #open(Path, MonoConfig.Memory, Embedder, Clock)} with an explicit seal. */
    static MemoryStore open(Path dir, MonoConfig.Memory cfg, Embedder embedder, Clock clock, Seal seal)
            throws IOException {
        return new MemoryStore(dir, cfg, embedder, clock, seal);
    }

    /**
     * The memory directory, which must stay inside the state dir {@code .mono-agent/} (the agent's tools can never
     * write there); anything else is refused rather than journaled where the agent could rewrite its own memory.
     */
    public static Path dir(LoadedConfig lc) throws IOException {
        Path p = lc.resolve(lc.config().memory().path());
        if (!p.startsWith(lc.stateDir()) || p.equals(lc.stateDir())) {
            throw new IOException("memory.path " + lc.config().memory().path() + " resolves to " + p
                    + ", outside " + lc.stateDir() + "/ where the agent's tools cannot write; keep it under "
                    + ".mono-agent/");
        }
        return p;
    }

    static boolean vectorsOn(MonoConfig.Memory cfg) {
        return cfg.mode() == MemoryMode.JOURNAL;
    }

    private String embedderId() {
        return embedder == null ? MemoryIndex.NO_VECTORS : embedder.id();
    }

    public Path dir() {
        return dir;
    }

    public Journal journal() {
        return journal;
    }

    /** The configured embedder's id ({@code provider:model}), or {@code none} when vectors are off. */
    public String embedderName() {
        return embedderId();
    }

    public VectorState vectorState() {
        return vectorState;
    }

    /** Why vectors are off or unavailable, or null. */
    public String vectorDetail() {
        return vectorDetail;
    }

    // ---- writes ----

    /**
     * The {@code Remember} tool: {@code text} after NFKC and whitespace folding, at most
     * {@link MemoryText#MAX_REMEMBER_CHARS} characters, no secret shapes; idempotent by content hash.
     */
    public Remembered remember(String text) throws IOException {
        String t = MemoryText.normalize(text == null ? "" : text);
        if (t.isEmpty()) {
            return new Remembered.Rejected("text is empty");
        }
        int n = t.codePointCount(0, t.length());
        if (n > MemoryText.MAX_REMEMBER_CHARS) {
            return new Remembered.Rejected("text is " + n + " characters after normalisation; the limit is "
                    + MemoryText.MAX_REMEMBER_CHARS);
        }
        var secret = SecretShapes.findDisguised(t);
        if (secret.isPresent()) {
            return new Remembered.Rejected("text looks like a secret (" + secret.get().name()
                    + "); secrets are never written to memory");
        }
        Journal.Append a = append(JournalEntry.REMEMBER, List.of(t)).get(0);
        return a.added() ? new Remembered.Stored(a.entry()) : new Remembered.Duplicate(a.entry());
    }

    /**
     * Hook after a completed turn: journals the host's observation (deduplicated) and returns once it is fsynced, so
     * the caller may report the turn done.
     */
    public Journal.Append afterTurn(TurnObservation obs) throws IOException {
        return append(JournalEntry.TURN, List.of(obs.text())).get(0);
    }

    /** Bulk ingest (benchmarks, imports): one fsync and one index commit for the batch. */
    public List<Journal.Append> ingest(String kind, List<String> normalizedTexts) throws IOException {
        return append(kind, normalizedTexts);
    }

    private synchronized List<Journal.Append> append(String kind, List<String> texts) throws IOException {
        List<Journal.Append> out = journal.appendAll(kind, texts, clock.instant());
        List<JournalEntry> added = out.stream().filter(Journal.Append::added).map(Journal.Append::entry).toList();
        if (!added.isEmpty() && !readOnlyIndex) {
            indexEntries(added, vectorState == VectorState.READY || remoteRetryDue());
            // The journal is already durable; the index is only committed now and then (and on close), because a
            // crash merely means re-indexing the last entries from the journal on the next open.
            uncommitted += added.size();
            if (uncommitted >= COMMIT_EVERY) {
                index.commit();
                uncommitted = 0;
            }
            index.refresh();
        }
        return out;
    }

    private boolean remoteRetryDue() {
        return embedder != null && !embedder.inProcess() && vectorState == VectorState.UNAVAILABLE
                && System.currentTimeMillis() - unavailableAt > RETRY_AFTER_MS;
    }

    /** Adds entries to the index, with vectors when {@code embed} and the embedder answers. */
    private void indexEntries(List<JournalEntry> entries, boolean embed) throws IOException {
        List<float[]> vecs = embed ? vectors(entries.stream().map(JournalEntry::text).toList()) : null;
        for (int i = 0; i < entries.size(); i++) {
            index.add(entries.get(i), vecs == null ? null : vecs.get(i));
        }
    }

    /** Vectors for texts, or null (state updated) when the embedder is off or unavailable. */
    private List<float[]> vectors(List<String> texts) {
        if (embedder == null) {
            return null;
        }
        try {
            List<float[]> v = new ArrayList<>();
            for (int i = 0; i < texts.size(); i += 64) {
                v.addAll(embedder.embed(texts.subList(i, Math.min(texts.size(), i + 64))));
            }
            vectorState = VectorState.READY;
            vectorDetail = null;
            return v;
        } catch (Embedder.Unavailable e) {
            vectorState = VectorState.UNAVAILABLE;
            vectorDetail = e.getMessage();
            unavailableAt = System.currentTimeMillis();
            return null;
        }
    }

    /**
     * Brings the index in line with the journal: entries another process appended are added, entries gone from
     * the journal are dropped, and (when the embedder is ready) entries indexed without a vector get one.
     */
    public synchronized void sync() throws IOException {
        if (readOnlyIndex) {
            return;
        }
        journal.reload();
        Map<String, Boolean> indexed = index.ids();
        Map<String, JournalEntry> truth = new LinkedHashMap<>();
        journal.entries().forEach(e -> truth.put(e.hash(), e));
        boolean changed = false;
        for (String h : indexed.keySet()) {
            if (!truth.containsKey(h)) {
                index.delete(h);
                changed = true;
            }
        }
        List<JournalEntry> missing = new ArrayList<>();
        List<JournalEntry> noVector = new ArrayList<>();
        for (JournalEntry e : truth.values()) {
            Boolean hasVec = indexed.get(e.hash());
            if (hasVec == null) {
                missing.add(e);
            } else if (!hasVec && embedder != null) {
                noVector.add(e);
            }
        }
        if (!missing.isEmpty()) {
            indexEntries(missing, vectorState == VectorState.READY);
            changed = true;
        }
        if (!noVector.isEmpty() && vectorState == VectorState.READY) {
            indexEntries(noVector, true);
            changed = true;
        }
        if (changed) {
            index.commit();
        }
        index.refresh();
    }

    /** Throws the index away and indexes every journal entry again (with vectors when the embedder answers). */
    public synchronized Stats rebuild() throws IOException {
        if (readOnlyIndex) {
            throw new IOException("another process holds the memory index open (" + dir.resolve("index")
                    + "); stop it first");
        }
        journal.reload();
        index.deleteAll();
        if (embedder != null) {
            vectorState = VectorState.READY; // try once more: rebuild is the explicit "do it properly now"
        }
        indexEntries(journal.entries(), embedder != null);
        index.commit();
        index.refresh();
        return stats();
    }

    // ---- reads ----

    /** Hybrid (or keyword-only) search, fused, best first; no byte budget. */
    public List<Hit> search(String query, int limit) throws IOException {
        return searchWithMode(query, limit, false).hits;
    }

    private record Searched(List<Hit> hits, String mode, String reason) {}

    private Searched searchWithMode(String query, int limit, boolean forRecall) throws IOException {
        float[] qv = null;
        if (embedder != null && (vectorState != VectorState.UNAVAILABLE || remoteRetryDue())) {
            List<float[]> v = vectors(List.of(MemoryText.normalize(query)));
            qv = v == null ? null : v.get(0);
            if (qv != null && !readOnlyIndex && hasPendingVectors()) {
                sync();
            }
        }
        MemoryIndex.Ranked r = index.search(query, qv, Math.max(CANDIDATES, limit));
        List<Hit> fused = sealedOnly(fuse(r, forRecall));
        if (fused.size() > limit) {
            fused = fused.subList(0, limit);
        }
        String reason = embedder == null ? vectorDetail : qv == null ? vectorDetail : null;
        return new Searched(List.copyOf(fused), qv == null ? KEYWORD_ONLY : HYBRID, reason);
    }

    private volatile boolean pendingChecked;

    private boolean hasPendingVectors() throws IOException {
        if (pendingChecked) {
            return false;
        }
        pendingChecked = true;
        return index.ids().containsValue(false);
    }

    /**
     * The hits whose entry is in the sealed journal, carrying the journal's copy: the index is only a way to rank,
     * never a source of text (an index shared with another process is re-checked against a re-read journal).
     */
    private List<Hit> sealedOnly(List<Hit> hits) throws IOException {
        List<Hit> out = new ArrayList<>();
        boolean reloaded = false;
        for (Hit h : hits) {
            JournalEntry e = journal.find(h.entry().hash());
            if (e == null && readOnlyIndex && !reloaded) {
                journal.reload();
                reloaded = true;
                e = journal.find(h.entry().hash());
            }
            if (e != null) {
                out.add(new Hit(e, h.score(), h.keywordRank(), h.vectorRank()));
            }
        }
        return out;
    }

    /** Reciprocal-rank fusion of the two rankings; ties broken by hash so the order is deterministic. */
    private static List<Hit> fuse(MemoryIndex.Ranked r, boolean forRecall) {
        Map<String, double[]> score = new HashMap<>();
        Map<String, MemoryIndex.Doc> docs = new HashMap<>();
        Map<String, int[]> ranks = new HashMap<>();
        int i = 0;
        for (MemoryIndex.Doc d : r.keyword()) {
            i++;
            score.computeIfAbsent(d.hash(), k -> new double[1])[0] += 1.0 / (RRF_K + i);
            docs.put(d.hash(), d);
            ranks.computeIfAbsent(d.hash(), k -> new int[2])[0] = i;
        }
        i = 0;
        for (MemoryIndex.Doc d : r.vector()) {
            i++;
            // Lucene's dot-product score is (1 + cos) / 2.
            if (forRecall && 2 * d.score() - 1 < MIN_COSINE) {
                continue;
            }
            score.computeIfAbsent(d.hash(), k -> new double[1])[0] += 1.0 / (RRF_K + i);
            docs.putIfAbsent(d.hash(), d);
            ranks.computeIfAbsent(d.hash(), k -> new int[2])[1] = i;
        }
        List<Hit> out = new ArrayList<>();
        for (var e : score.entrySet()) {
            MemoryIndex.Doc d = docs.get(e.getKey());
            int[] rk = ranks.get(e.getKey());
            out.add(new Hit(new JournalEntry(d.hash(), d.time(), d.kind(), d.text(), d.date(), d.line()),
                    e.getValue()[0], rk[0], rk[1]));
        }
        out.sort(Comparator.comparingDouble((Hit h) -> -h.score()).thenComparing(h -> h.entry().hash()));
        return out;
    }

    /** The best entries for {@code query} within {@code maxBytes} (capped by {@code memory.maxBytes}). */
    public Recall recall(String query, int maxBytes) throws IOException {
        int budget = Math.min(maxBytes, cfg.maxBytes());
        Searched s = searchWithMode(query, RECALL_ITEMS, true);
        return block(s.mode, s.reason, s.hits, budget);
    }

    /** Renders the recall block: header, then one bullet per entry, whole entries only, within {@code budget}. */
    static Recall block(String mode, String reason, List<Hit> hits, int budget) {
        StringBuilder sb = new StringBuilder(RECALL_HEADER).append('\n');
        int used = MemoryText.utf8Length(sb.toString());
        List<Hit> kept = new ArrayList<>();
        for (Hit h : hits) {
            String item = item(h.entry());
            int n = MemoryText.utf8Length(item);
            if (used + n <= budget) {
                sb.append(item);
                used += n;
                kept.add(h);
            } else if (kept.isEmpty() && budget - used > 64) {
                // The best entry alone is too big: keep its beginning rather than recall nothing.
                String cut = MemoryText.truncateUtf8(item, budget - used - 4) + "…\n";
                sb.append(cut);
                used += MemoryText.utf8Length(cut);
                kept.add(h);
                break;
            }
        }
        return new Recall(mode, reason, kept.isEmpty() ? "" : sb.toString(), List.copyOf(kept));
    }

    private static String item(JournalEntry e) {
        String body = e.text().replace("\n", "\n  ");
        return "- [" + e.time().toString().substring(0, 16).replace('T', ' ') + " UTC · " + e.source() + "] "
                + body + "\n";
    }

    /**
     * Hook before a turn: recalls for {@code userText}, emits {@link Event.MemoryRecalled}, and returns the user
     * message to send (the block appended under {@link #RECALL_HEADER}; the caller keeps the original text in
     * history).
     */
    public TurnRecall beforeTurn(String runId, String userText, EventSink sink) throws IOException {
        Recall r = recall(userText, cfg.maxBytes());
        sink.accept(new Event.MemoryRecalled(clock.instant(), runId, r.items().size(), r.bytes(), r.mode(),
                r.reason(), r.items().stream().map(h -> h.entry().source()).toList()));
        String message = r.block().isEmpty() ? userText : userText + "\n\n" + r.block();
        return new TurnRecall(message, r);
    }

    /** The model-facing user message for one turn and the recall behind it. */
    public record TurnRecall(String message, Recall recall) {}

    /** One day's sealed entries, chronological. */
    public List<JournalEntry> day(LocalDate d) throws IOException {
        return journal.readDay(d);
    }

    /** The day files (workspace-relative) whose text this machine did not write and seal, as of the last read. */
    public List<String> ignored() {
        return journal.foreign().keySet().stream().sorted().map(journal::label).toList();
    }

    public LocalDate today() {
        return LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    }

    public Stats stats() throws IOException {
        journal.reload();
        Map<String, Boolean> ids = readOnlyIndex ? Map.of() : index.ids();
        int docs = readOnlyIndex ? index.docCount() : ids.size();
        int vec = (int) ids.values().stream().filter(b -> b).count();
        String health = readOnlyIndex ? "shared (another process holds the writer; its last commit is searched)"
                : switch (index.health()) {
                    case OK -> docs == journal.size() ? "ok" : "stale";
                    case MISSING -> "was missing; rebuilt from the journal";
                    case CORRUPT -> "was corrupt (" + index.healthDetail() + "); rebuilt from the journal";
                    case OTHER_EMBEDDER -> "rebuilt: " + index.healthDetail();
                    case FOREIGN -> "was not built on this machine; rebuilt from the sealed journal";
                };
        return new Stats(cfg.mode().wire(), dir, journal.size(), journal.countsByDay().size(), docs, vec, health,
                embedderId(), vectorState, vectorDetail, ignored());
    }

    /**
     * Loads the in-process model now (for a background warm-up off the window's start-up path); returns the
     * state afterwards.
     */
    public VectorState warmUp() {
        if (embedder != null && vectorState != VectorState.READY) {
            vectors(List.of("warm up"));
        }
        return vectorState;
    }

    Instant now() {
        return clock.instant();
    }

    @Override
    public synchronized void close() throws IOException {
        if (!readOnlyIndex) {
            index.commit();
        }
        index.close();
    }
}
