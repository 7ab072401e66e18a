package dev.monoagent.memory;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The default embedder: quantized all-MiniLM-L6-v2 (384 dimensions) run in-process by ONNX Runtime, with the model
 * file inside a Maven jar, so vector recall works offline with no service (docs/decisions/0012-memory-index-and-
 * embeddings.md). Loaded on first use, never at start-up; a load failure is remembered and reported as unavailable.
 */
final class LocalMiniLm implements Embedder {
    static final String MODEL = "all-minilm-l6-v2-q";
    static final int DIM = 384;
    /** Where the ONNX model sits inside its jar (for the size check in validate and the benchmark). */
    static final String MODEL_RESOURCE = "/all-minilm-l6-v2-q.onnx";

    private final Path cacheDir;
    private volatile EmbeddingModel model;
    private volatile String loadFailure;
    private volatile long loadMillis = -1;

    LocalMiniLm(Path cacheDir) {
        this.cacheDir = cacheDir;
    }

    @Override
    public String id() {
        return "local:" + MODEL;
    }

    @Override
    public boolean inProcess() {
        return true;
    }

    boolean loaded() {
        return model != null;
    }

    /** Milliseconds the first load took, or -1 before it. */
    long loadMillis() {
        return loadMillis;
    }

    /** The model file is on the class path (the jar shipped it). */
    static boolean bundled() {
        return AllMiniLmL6V2QuantizedEmbeddingModel.class.getResource(MODEL_RESOURCE) != null;
    }

    private EmbeddingModel model() throws Unavailable {
        EmbeddingModel m = model;
        if (m != null) {
            return m;
        }
        synchronized (this) {
            if (model != null) {
                return model;
            }
            if (loadFailure != null) {
                throw new Unavailable(loadFailure);
            }
            long t0 = System.nanoTime();
            try {
                // The tokenizer library would otherwise try to fetch natives and write under ~/.djl.ai.
                if (System.getProperty("ai.djl.offline") == null) {
                    System.setProperty("ai.djl.offline", "true");
                }
                if (System.getProperty("DJL_CACHE_DIR") == null && System.getenv("DJL_CACHE_DIR") == null) {
                    System.setProperty("DJL_CACHE_DIR", cacheDir.resolve("djl").toString());
                }
                model = new AllMiniLmL6V2QuantizedEmbeddingModel();
            } catch (RuntimeException | LinkageError e) {
                loadFailure = "the in-process model " + MODEL + " did not load: " + e;
                throw new Unavailable(loadFailure, e);
            }
            loadMillis = (System.nanoTime() - t0) / 1_000_000;
            return model;
        }
    }

    @Override
    public List<float[]> embed(List<String> texts) throws Unavailable {
        EmbeddingModel m = model();
        List<TextSegment> segs = new ArrayList<>(texts.size());
        texts.forEach(t -> segs.add(TextSegment.from(t.isBlank() ? "." : t)));
        try {
            List<float[]> out = new ArrayList<>(texts.size());
            m.embedAll(segs).content().forEach(e -> out.add(Embedder.unit(e.vector())));
            return out;
        } catch (RuntimeException e) {
            throw new Unavailable("the in-process model failed: " + e, e);
        }
    }
}
