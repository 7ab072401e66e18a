package dev.monoagent.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A deterministic stand-in for a real embedding model in tests that need many vectors fast: each word adds to a few
 * hashed dimensions, so texts sharing words are close. Not semantic, and not shipped.
 */
final class WordHashEmbedder implements Embedder {
    static final int DIM = 256;
    private final int dim;
    volatile boolean down;
    volatile int calls;

    WordHashEmbedder() {
        this(DIM);
    }

    WordHashEmbedder(int dim) {
        this.dim = dim;
    }

    @Override
    public String id() {
        return "test:word-hash";
    }

    @Override
    public boolean inProcess() {
        return true;
    }

    @Override
    public List<float[]> embed(List<String> texts) throws Unavailable {
        calls++;
        if (down) {
            throw new Unavailable("test embedder is down");
        }
        List<float[]> out = new ArrayList<>();
        for (String t : texts) {
            float[] v = new float[dim];
            for (String w : t.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
                if (!w.isEmpty()) {
                    int h = w.hashCode();
                    v[Math.floorMod(h, dim)] += 1;
                    v[Math.floorMod(h * 31 + 7, dim)] += 0.5f;
                }
            }
            v[0] += 0.01f;
            out.add(Embedder.unit(v));
        }
        return out;
    }
}
