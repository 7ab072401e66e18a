package dev.monoagent.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.MemoryMode;
import dev.monoagent.config.MonoConfig;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ollama, lmstudio and openai embeddings over their HTTP wire, against loopback fakes; failures are reported. */
class HttpEmbedderTest {
    @TempDir
    Path dir;

    static MonoConfig.Embeddings emb(String provider, String endpoint, String keyEnv) {
        return new MonoConfig.Embeddings(provider, "all-minilm-l6-v2-q", WordHashEmbedder.DIM, endpoint, keyEnv, 2000);
    }

    static MonoConfig.Memory journal(MonoConfig.Embeddings e) {
        MonoConfig.Memory d = MonoConfig.Memory.DEFAULTS;
        return new MonoConfig.Memory(MemoryMode.JOURNAL, d.path(), 64000, d.recallTool(), d.rememberTool(), e);
    }

    @Test
    void ollamaWireAndHybridRecall() throws Exception {
        try (FakeEmbeddingServer s = new FakeEmbeddingServer(FakeEmbeddingServer.Wire.OLLAMA)) {
            Embedder e = Embedders.of(emb("ollama", s.endpoint(), null), Map.of(), dir);
            assertEquals("ollama:all-minilm", e.id());
            try (MemoryStore m = MemoryStore.open(dir, journal(emb("ollama", s.endpoint(), null)), e,
                    MemoryFixtures.CLOCK)) {
                m.remember("The scheduler skips timezone offsets.");
                MemoryStore.Recall r = m.recall("scheduler timezone", 64000);
                assertEquals(MemoryStore.HYBRID, r.mode());
                assertNull(r.reason());
                assertEquals(1, r.items().get(0).vectorRank());
            }
            FakeEmbeddingServer.Request req = s.requests.get(0);
            assertEquals("/api/embed", req.path());
            assertEquals("all-minilm", req.body().get("model").asText());
            assertEquals("The scheduler skips timezone offsets.", req.body().get("input").get(0).asText());
            assertNull(req.authorization());
        }
    }

    @Test
    void openAiWireSendsTheKeyAndPlacesVectorsByIndex() throws Exception {
        try (FakeEmbeddingServer s = new FakeEmbeddingServer(FakeEmbeddingServer.Wire.OPENAI)) {
            Embedder e = Embedders.of(emb("openai", s.endpoint(), "EMB_KEY"), Map.of("EMB_KEY", "test-key-1"), dir);
            List<float[]> v = e.embed(List.of("alpha parser", "beta mailer", "alpha parser"));
            assertEquals(3, v.size());
            assertTrue(java.util.Arrays.equals(v.get(0), v.get(2)), "index order kept despite reversed answer");
            assertTrue(!java.util.Arrays.equals(v.get(0), v.get(1)));
            FakeEmbeddingServer.Request req = s.requests.get(0);
            assertEquals("/v1/embeddings", req.path());
            assertEquals("Bearer test-key-1", req.authorization());
            assertEquals("text-embedding-3-small", req.body().get("model").asText());
            assertEquals("float", req.body().get("encoding_format").asText());
        }
    }

    @Test
    void lmStudioSpeaksTheOpenAiWireWithoutAKey() throws Exception {
        try (FakeEmbeddingServer s = new FakeEmbeddingServer(FakeEmbeddingServer.Wire.OPENAI)) {
            Embedder e = Embedders.of(new MonoConfig.Embeddings("lmstudio", "nomic-embed-text-v1.5",
                    WordHashEmbedder.DIM, s.endpoint(), null, 2000), Map.of(), dir);
            assertEquals(1, e.embed(List.of("x")).size());
            assertEquals("nomic-embed-text-v1.5", s.requests.get(0).body().get("model").asText());
            assertNull(s.requests.get(0).authorization());
        }
    }

    @Test
    void errorsWrongShapesAndMissingKeysAreUnavailableWithTheReason() throws Exception {
        try (FakeEmbeddingServer s = new FakeEmbeddingServer(FakeEmbeddingServer.Wire.OPENAI)) {
            Embedder e = Embedders.of(emb("lmstudio", s.endpoint(), null), Map.of(), dir);
            s.failWith = 400;
            var u = assertThrows(Embedder.Unavailable.class, () -> e.embed(List.of("x")));
            assertTrue(u.getMessage().contains("HTTP 400: No models loaded"), u.getMessage());
            s.failWith = 0;
            s.dim = 12;
            u = assertThrows(Embedder.Unavailable.class, () -> e.embed(List.of("x")));
            assertTrue(u.getMessage().contains("12-dimension vector, memory.embeddings.dim is " + WordHashEmbedder.DIM),
                    u.getMessage());
        }
        Embedder noKey = Embedders.of(emb("openai", null, null), Map.of(), dir);
        u(noKey, "OPENAI_API_KEY is not set");
        u(Embedders.of(emb("cohere", null, null), Map.of(), dir), "memory.embeddings.provider \"cohere\" is unknown");
        u(Embedders.of(new MonoConfig.Embeddings("local", "hashing-v1", 256, null, null, 1000), Map.of(), dir),
                "\"hashing-v1\" is not built in");
    }

    private static void u(Embedder e, String expected) {
        var u = assertThrows(Embedder.Unavailable.class, () -> e.embed(List.of("x")));
        assertTrue(u.getMessage().contains(expected), u.getMessage());
    }

    @Test
    void providerDownMeansKeywordOnlyRecallThatSaysSo() throws Exception {
        int port;
        try (ServerSocket ss = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = ss.getLocalPort();
        }
        MonoConfig.Embeddings cfg = emb("ollama", "http://127.0.0.1:" + port, null);
        try (MemoryStore m = MemoryStore.open(dir, journal(cfg), Embedders.of(cfg, Map.of(), dir),
                MemoryFixtures.CLOCK)) {
            assertInstanceOf(MemoryStore.Remembered.Stored.class, m.remember("The uploader truncates null bytes."));
            MemoryStore.Recall r = m.recall("uploader null bytes", 64000);
            assertEquals(MemoryStore.KEYWORD_ONLY, r.mode());
            assertTrue(r.reason().startsWith("ollama embeddings at http://127.0.0.1:" + port + "/api/embed unreachable"),
                    r.reason());
            assertEquals(1, r.items().size());
            assertEquals(MemoryStore.VectorState.UNAVAILABLE, m.vectorState());
        }
    }
}
