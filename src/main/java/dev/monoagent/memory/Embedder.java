package dev.monoagent.memory;

import java.util.List;

/**
 * Turns text into vectors for the index. Implementations: the in-process model ({@link LocalMiniLm}) and the HTTP
 * providers ({@link HttpEmbedder}). Thread-safe.
 */
public interface Embedder {
    /** {@code provider:model}; the index is rebuilt when this changes. */
    String id();

    /** Whether {@link #embed} works without a network hop or a separate service. */
    boolean inProcess();

    /** One unit-length vector per text, in order. */
    List<float[]> embed(List<String> texts) throws Unavailable;

    /** The provider could not embed: not running, refused, timed out, answered with an error, or wrong shape. */
    final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        public Unavailable(String message) {
            super(message);
        }

        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Scales {@code v} to unit length in place (cosine similarity as a dot product). */
    static float[] unit(float[] v) {
        double n = 0;
        for (float x : v) {
            n += x * x;
        }
        if (n > 0) {
            float inv = (float) (1 / Math.sqrt(n));
            for (int i = 0; i < v.length; i++) {
                v[i] *= inv;
            }
        }
        return v;
    }
}
