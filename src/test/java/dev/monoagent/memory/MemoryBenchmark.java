package dev.monoagent.memory;

import dev.monoagent.config.Enums.MemoryMode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On demand: {@code mvn -B test -Dtest=MemoryBenchmark -Dsurefire.failIfNoSpecifiedTests=false}
 * (size with {@code -Dmemory.bench.entries=100000}). Prints recall p50/p95 at N entries (hybrid), keyword ingest rate
 * against a journal-only baseline measured in the same process, ingest rate with the in-process model, the model's
 * size and first-load time, and the jar-size increase. The 100,000-entry index gets its vectors from a fast
 * 384-dimension stand-in (embedding 100,000 texts with the real model would take the run's whole budget); the real
 * model's per-query embedding time is measured separately and added for the end-to-end figure.
 */
class MemoryBenchmark {
    @TempDir
    Path tmp;

    /** Runs outside Maven too: {@code java -cp ... dev.monoagent.memory.MemoryBenchmark}. */
    public static void main(String[] args) throws Exception {
        MemoryBenchmark b = new MemoryBenchmark();
        b.tmp = Files.createTempDirectory("memory-bench-");
        b.run();
    }

    @Test
    void run() throws Exception {
        int n = Integer.getInteger("memory.bench.entries", 100_000);
        System.out.println("== MemoryBenchmark (entries " + n + ", load " + load() + ", cpus "
                + Runtime.getRuntime().availableProcessors() + ")");
        sizes();
        LocalMiniLm model = firstLoad();
        double embedMs = modelThroughput(model);
        ingest(n, model);
        recall(n, model, embedMs);
        System.out.println("== end (load " + load() + ")");
    }

    private static String load() {
        return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static void sizes() throws IOException {
        URLConnection c = LocalMiniLm.class.getResource(LocalMiniLm.MODEL_RESOURCE) == null ? null
                : dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel.class
                        .getResource(LocalMiniLm.MODEL_RESOURCE).openConnection();
        long model = c == null ? -1 : c.getContentLengthLong();
        System.out.printf("model file %s: %.1f MB uncompressed%n", LocalMiniLm.MODEL_RESOURCE, model / 1e6);
        long total = 0;
        List<String> parts = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            String name = Path.of(e).getFileName().toString();
            if (name.matches("(lucene-core|langchain4j|onnxruntime|tokenizers|api-0\\.|slf4j-api).*\\.jar")) {
                long s = Files.size(Path.of(e));
                total += s;
                parts.add(String.format("%s %.1f MB", name, s / 1e6));
            }
        }
        System.out.printf("added jars (as downloaded): %.1f MB: %s%n", total / 1e6, String.join(", ", parts));
        Path fat = Path.of(System.getProperty("monoagent.projectDir", "."), "target", "mono-agent.jar");
        if (Files.exists(fat)) {
            System.out.printf("fat jar now: %.1f MB (%s)%n", Files.size(fat) / 1e6, fat);
        }
    }

    private LocalMiniLm firstLoad() throws Exception {
        LocalMiniLm m = new LocalMiniLm(tmp.resolve("cache"));
        long t0 = System.nanoTime();
        m.embed(List.of("first load"));
        System.out.printf("model first load + first embedding: %d ms (load alone %d ms)%n",
                (System.nanoTime() - t0) / 1_000_000, m.loadMillis());
        return m;
    }

    private static double modelThroughput(LocalMiniLm m) throws Exception {
        List<String> q = MemoryFixtures.queries(200, 3);
        double[] ms = new double[q.size()];
        for (int i = 0; i < q.size(); i++) {
            long t0 = System.nanoTime();
            m.embed(List.of(q.get(i)));
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        System.out.printf("model query embedding: p50 %.2f ms, p95 %.2f ms (200 queries)%n", ms[100], ms[190]);
        return ms[100];
    }

    private void ingest(int n, LocalMiniLm model) throws Exception {
        List<String> corpus = MemoryFixtures.corpus(n, 11);
        // baseline: the journal alone (one write + fsync per batch of 500)
        Journal j = Journal.open(tmp.resolve("baseline"), MemoryStore.seal(java.util.Map.of()));
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i += 500) {
            j.appendAll("remember", corpus.subList(i, Math.min(n, i + 500)), java.time.Instant.now());
        }
        double journalRate = n / ((System.nanoTime() - t0) / 1e9);
        try (MemoryStore m = MemoryStore.open(tmp.resolve("kw"), MemoryFixtures.config(MemoryMode.LITE, 64000), null,
                Clock.systemUTC())) {
            t0 = System.nanoTime();
            for (int i = 0; i < n; i += 500) {
                m.ingest("remember", corpus.subList(i, Math.min(n, i + 500)));
            }
            double kwRate = n / ((System.nanoTime() - t0) / 1e9);
            System.out.printf("ingest keyword (journal + BM25 index, batches of 500): %.0f entries/s; journal-only "
                    + "baseline %.0f entries/s; ratio %.2f%n", kwRate, journalRate, kwRate / journalRate);
            long t1 = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                m.remember("single remember " + i + " about the cache");
            }
            System.out.printf("ingest one at a time (Remember, fsync each): %.0f entries/s%n",
                    200 / ((System.nanoTime() - t1) / 1e9));
        }
        int vn = Math.min(n, 1_000);
        try (MemoryStore m = MemoryStore.open(tmp.resolve("vec"), MemoryFixtures.config(MemoryMode.JOURNAL, 64000),
                model, Clock.systemUTC())) {
            t0 = System.nanoTime();
            for (int i = 0; i < vn; i += 100) {
                m.ingest("remember", corpus.subList(i, Math.min(vn, i + 100)));
            }
            System.out.printf("ingest with in-process vectors (all-MiniLM-L6-v2-q, batches of 100): %.0f entries/s "
                    + "(%d entries)%n", vn / ((System.nanoTime() - t0) / 1e9), vn);
        }
    }

    private void recall(int n, LocalMiniLm model, double modelQueryMs) throws Exception {
        List<String> corpus = MemoryFixtures.corpus(n, 11);
        List<String> queries = MemoryFixtures.queries(300, 5);
        Embedder stand = new WordHashEmbedder(LocalMiniLm.DIM);
        try (MemoryStore m = MemoryStore.open(tmp.resolve("hybrid"), MemoryFixtures.config(MemoryMode.JOURNAL,
                64000), stand, Clock.systemUTC())) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i += 1000) {
                m.ingest("remember", corpus.subList(i, Math.min(n, i + 1000)));
            }
            System.out.printf("built hybrid index of %d entries (384-d stand-in vectors) in %.1f s%n", n,
                    (System.nanoTime() - t0) / 1e9);
            for (int i = 0; i < 50; i++) {
                m.recall(queries.get(i), 64000); // warm-up
            }
            double[] ms = new double[queries.size() - 50];
            for (int i = 50; i < queries.size(); i++) {
                long t1 = System.nanoTime();
                MemoryStore.Recall r = m.recall(queries.get(i), 8000);
                ms[i - 50] = (System.nanoTime() - t1) / 1e6;
                if (!r.mode().equals(MemoryStore.HYBRID)) {
                    throw new AssertionError("not hybrid: " + r.reason());
                }
            }
            Arrays.sort(ms);
            double p50 = ms[ms.length / 2];
            double p95 = ms[(int) (ms.length * 0.95)];
            System.out.printf("recall at %d entries, hybrid (BM25 + HNSW + RRF + block), index side: p50 %.2f ms, "
                    + "p95 %.2f ms (goal p50 <= 10, p95 <= 25)%n", n, p50, p95);
            System.out.printf("recall end to end with the in-process model's query embedding (p50 %.2f ms added): "
                    + "p50 ~%.2f ms%n", modelQueryMs, p50 + modelQueryMs);
        }
    }
}
