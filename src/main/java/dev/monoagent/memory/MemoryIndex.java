package dev.monoagent.memory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * The derived index under {@code memory/index}: BM25 over the entry text and an HNSW graph over unit vectors, in one
 * embedded Lucene index. It is never the source of truth; {@link MemoryStore} keeps it in step with the journal and
 * throws it away and rebuilds it when it is missing, unreadable, or was built with another embedder.
 */
final class MemoryIndex implements AutoCloseable {
    static final String EMBEDDER_KEY = "embedder";
    /** Commit data: the seal mark of the machine that built the index. */
    static final String SEAL_KEY = "seal";
    static final String NO_VECTORS = "none";
    private static final String ID = "id";
    private static final String TEXT = "text";
    private static final String VEC = "vec";
    private static final String HAS_VEC = "hasvec";
    /** Up to this many documents, vector search is an exact scan; above it, the HNSW graph. */
    static final int EXACT_LIMIT = 20_000;

    /** How the index looked when opened. */
    enum Health { OK, MISSING, CORRUPT, OTHER_EMBEDDER, FOREIGN }

    /** One hit from one retriever, with what the recall block needs. */
    record Doc(String hash, String kind, String text, LocalDate date, int line, Instant time, float score) {}

    private final Directory dir;
    private final Analyzer analyzer = new StandardAnalyzer();
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final Health health;
    private final String healthDetail;

    private MemoryIndex(Directory dir, IndexWriter writer, Health health, String detail) throws IOException {
        this.dir = dir;
        this.writer = writer;
        this.searchers = writer != null ? new SearcherManager(writer, null) : new SearcherManager(dir, null);
        this.health = health;
        this.healthDetail = detail;
    }

    /**
     * Opens the index at {@code path}, creating it empty when it is missing, unreadable, built for another embedder,
     * or does not carry {@code sealMark} (not built on this machine: it came with the repository); the caller then
     * refills it from the journal.
     */
    static MemoryIndex open(Path path, String embedderId, String sealMark) throws IOException {
        Files.createDirectories(path);
        Health health = Health.OK;
        String detail = null;
        Directory d = FSDirectory.open(path);
        try {
            Map<String, String> user = SegmentInfos.readLatestCommit(d).getUserData();
            String built = user.getOrDefault(EMBEDDER_KEY, NO_VECTORS);
            if (!sealMark.equals(user.get(SEAL_KEY))) {
                health = Health.FOREIGN;
                detail = "not built on this machine";
            } else if (!built.equals(embedderId)) {
                health = Health.OTHER_EMBEDDER;
                detail = "built with " + built + ", now " + embedderId;
            }
        } catch (IndexNotFoundException e) {
            health = Health.MISSING;
        } catch (IOException | RuntimeException e) {
            health = Health.CORRUPT;
            detail = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        if (health != Health.OK) {
            d.close();
            wipe(path);
            d = FSDirectory.open(path);
        }
        IndexWriter w;
        try {
            w = new IndexWriter(d, config(health == Health.OK ? IndexWriterConfig.OpenMode.CREATE_OR_APPEND
                    : IndexWriterConfig.OpenMode.CREATE));
        } catch (IOException | RuntimeException e) {
            // Readable commit point but broken segments: start over.
            d.close();
            wipe(path);
            d = FSDirectory.open(path);
            w = new IndexWriter(d, config(IndexWriterConfig.OpenMode.CREATE));
            health = Health.CORRUPT;
            detail = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        w.setLiveCommitData(Map.of(EMBEDDER_KEY, embedderId, SEAL_KEY, sealMark).entrySet());
        MemoryIndex idx = new MemoryIndex(d, w, health, detail);
        if (health != Health.OK) {
            w.commit();
        }
        return idx;
    }

    /** Read-only view of the last commit, for when another process holds the writer lock. */
    static MemoryIndex openShared(Path path) throws IOException {
        Directory d = FSDirectory.open(path);
        try {
            return new MemoryIndex(d, null, Health.OK, "shared");
        } catch (IOException | RuntimeException e) {
            d.close();
            throw e;
        }
    }

    private static IndexWriterConfig config(IndexWriterConfig.OpenMode mode) {
        IndexWriterConfig c = new IndexWriterConfig(new StandardAnalyzer());
        c.setOpenMode(mode);
        c.setRAMBufferSizeMB(64);
        return c;
    }

    /** Deletes the index files (only ours: the directory holds nothing else). */
    static void wipe(Path path) throws IOException {
        if (!Files.isDirectory(path)) {
            return;
        }
        try (var s = Files.list(path)) {
            for (Path p : s.toList()) {
                if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.delete(p);
                }
            }
        }
    }

    Health health() {
        return health;
    }

    String healthDetail() {
        return healthDetail;
    }

    void add(JournalEntry e, float[] vector) throws IOException {
        Document doc = new Document();
        doc.add(new StringField(ID, e.hash(), Field.Store.YES));
        doc.add(new SortedDocValuesField(ID, new BytesRef(e.hash())));
        doc.add(new StoredField("kind", e.kind()));
        doc.add(new StoredField("date", e.date().toString()));
        doc.add(new StoredField("line", e.line()));
        doc.add(new StoredField("time", e.time().getEpochSecond()));
        doc.add(new TextField(TEXT, e.text(), Field.Store.YES));
        doc.add(new NumericDocValuesField(HAS_VEC, vector == null ? 0 : 1));
        if (vector != null) {
            doc.add(new KnnFloatVectorField(VEC, vector, VectorSimilarityFunction.DOT_PRODUCT));
        }
        writer.updateDocument(new Term(ID, e.hash()), doc);
    }

    void delete(String hash) throws IOException {
        writer.deleteDocuments(new Term(ID, hash));
    }

    void deleteAll() throws IOException {
        writer.deleteAll();
    }

    /** Makes recent changes durable (the journal already is; this only saves re-indexing after a crash). */
    void commit() throws IOException {
        writer.commit();
    }

    /** Makes recent changes visible to searches. */
    void refresh() throws IOException {
        searchers.maybeRefreshBlocking();
    }

    /** Hashes of the live documents, and which of them carry a vector. */
    Map<String, Boolean> ids() throws IOException {
        refresh();
        IndexSearcher s = searchers.acquire();
        try {
            Map<String, Boolean> out = new HashMap<>();
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                var live = leaf.reader().getLiveDocs();
                SortedDocValues ids = leaf.reader().getSortedDocValues(ID);
                NumericDocValues hv = leaf.reader().getNumericDocValues(HAS_VEC);
                if (ids == null) {
                    continue;
                }
                for (int doc = ids.nextDoc(); doc != SortedDocValues.NO_MORE_DOCS; doc = ids.nextDoc()) {
                    if (live != null && !live.get(doc)) {
                        continue;
                    }
                    boolean vec = hv != null && hv.advanceExact(doc) && hv.longValue() == 1;
                    out.put(ids.lookupOrd(ids.ordValue()).utf8ToString(), vec);
                }
            }
            return out;
        } finally {
            searchers.release(s);
        }
    }

    int docCount() throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            return s.getIndexReader().numDocs();
        } finally {
            searchers.release(s);
        }
    }

    /** Both retrievers' ranked lists (each up to {@code k}); {@code vector} may be null for keyword-only. */
    Ranked search(String query, float[] vector, int k) throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            List<Doc> kw = new ArrayList<>();
            Query q = keywordQuery(query);
            if (q != null) {
                // Score, then hash: equal scores must not fall back to doc ids, which merges reorder.
                Sort byScoreThenId = new Sort(SortField.FIELD_SCORE, new SortField(ID, SortField.Type.STRING));
                for (ScoreDoc sd : s.search(q, k, byScoreThenId, true).scoreDocs) {
                    kw.add(load(s, sd.doc, sd.score));
                }
            }
            List<Doc> vec = new ArrayList<>();
            int n = s.getIndexReader().numDocs();
            if (vector != null && n > 0) {
                ScoreDoc[] top = n <= EXACT_LIMIT ? exact(s.getIndexReader(), vector, k)
                        : s.search(new KnnFloatVectorQuery(VEC, vector, k), k).scoreDocs;
                for (ScoreDoc sd : top) {
                    vec.add(load(s, sd.doc, sd.score));
                }
            }
            return new Ranked(kw, vec);
        } finally {
            searchers.release(s);
        }
    }

    /**
     * Exact nearest neighbours by scanning every vector: below {@link #EXACT_LIMIT} documents this costs a few
     * milliseconds and, unlike the HNSW graph, gives the same answer however the index was built (incrementally in
     * many segments or rebuilt in one). Scores use Lucene's dot-product scale, (1 + cos) / 2.
     */
    private static ScoreDoc[] exact(IndexReader reader, float[] q, int k) throws IOException {
        record Cand(int doc, float score, String id) {}
        // Worst first; equal scores by id (not doc id, which merges reorder).
        java.util.PriorityQueue<Cand> heap = new java.util.PriorityQueue<>(
                (a, b) -> a.score != b.score ? Float.compare(a.score, b.score) : b.id.compareTo(a.id));
        for (LeafReaderContext leaf : reader.leaves()) {
            FloatVectorValues values = leaf.reader().getFloatVectorValues(VEC);
            if (values == null) {
                continue;
            }
            var live = leaf.reader().getLiveDocs();
            SortedDocValues ids = leaf.reader().getSortedDocValues(ID);
            KnnVectorValues.DocIndexIterator it = values.iterator();
            for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
                if (live != null && !live.get(doc)) {
                    continue;
                }
                float[] v = values.vectorValue(it.index());
                float dot = 0;
                for (int i = 0; i < v.length; i++) {
                    dot += v[i] * q[i];
                }
                String id = ids != null && ids.advanceExact(doc) ? ids.lookupOrd(ids.ordValue()).utf8ToString() : "";
                heap.add(new Cand(leaf.docBase + doc, (1 + dot) / 2, id));
                if (heap.size() > k) {
                    heap.poll();
                }
            }
        }
        ScoreDoc[] out = new ScoreDoc[heap.size()];
        for (int i = out.length - 1; i >= 0; i--) {
            Cand c = heap.poll();
            out[i] = new ScoreDoc(c.doc(), c.score());
        }
        return out;
    }

    /** The keyword and vector rankings of one query. */
    record Ranked(List<Doc> keyword, List<Doc> vector) {}

    private Query keywordQuery(String text) throws IOException {
        Set<String> terms = new HashSet<>();
        try (TokenStream ts = analyzer.tokenStream(TEXT, text)) {
            CharTermAttribute att = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken() && terms.size() < 64) {
                terms.add(att.toString());
            }
            ts.end();
        }
        if (terms.isEmpty()) {
            return null;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        terms.stream().sorted().forEach(t -> b.add(new TermQuery(new Term(TEXT, t)), BooleanClause.Occur.SHOULD));
        return b.build();
    }

    private static Doc load(IndexSearcher s, int docId, float score) throws IOException {
        StoredFields sf = s.storedFields();
        Document d = sf.document(docId);
        return new Doc(d.get(ID), d.get("kind"), d.get(TEXT), LocalDate.parse(d.get("date")),
                d.getField("line").numericValue().intValue(),
                Instant.ofEpochSecond(d.getField("time").numericValue().longValue()), score);
    }

    static boolean exists(Path path) {
        try (Directory d = FSDirectory.open(path)) {
            return DirectoryReader.indexExists(d);
        } catch (IOException e) {
            return false;
        }
    }

    /** Opens the index read-only to report its state (validate), without repairing anything. */
    static String inspect(Path path, String sealMark) {
        if (!Files.isDirectory(path)) {
            return "missing";
        }
        try (Directory d = FSDirectory.open(path); DirectoryReader r = DirectoryReader.open(d)) {
            if (!sealMark.equals(r.getIndexCommit().getUserData().get(SEAL_KEY))) {
                return "foreign";
            }
            return "ok:" + r.numDocs();
        } catch (IndexNotFoundException e) {
            return "missing";
        } catch (IOException | RuntimeException e) {
            return "corrupt:" + e.getClass().getSimpleName();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            searchers.close();
            if (writer != null) {
                writer.close();
            }
        } finally {
            dir.close();
        }
    }
}
