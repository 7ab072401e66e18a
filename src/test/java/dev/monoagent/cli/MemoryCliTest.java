package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.memory.MemoryStore;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mono-agent memory ...} and validate's Memory section through the real command tree. */
class MemoryCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path ws;

    @TempDir
    Path cache;

    CliHarness.Result run(String... args) {
        return CliHarness.run(ws, Map.of("MONO_AGENT_CACHE_DIR", cache.toString()), args);
    }

    /** The reviewer's own config for this test, accepted as written (mono-agent trust). */
    private void config(String json) throws Exception {
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), json);
        run("trust");
    }

    private JsonNode memorySection() throws Exception {
        CliHarness.Result r = run("validate", "--json");
        for (JsonNode s : JSON.readTree(r.out()).get("sections")) {
            if (s.get("id").asText().equals("memory")) {
                return s;
            }
        }
        throw new AssertionError("no memory section in " + r.out());
    }

    @Test
    void validateSaysWaitingWhenTheEmbeddingsProviderIsDown() throws Exception {
        int port;
        try (ServerSocket ss = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = ss.getLocalPort();
        }
        config("{\"runtime\":{\"model\":\"openai:gpt-5\"},\"memory\":{\"mode\":\"journal\",\"embeddings\":"
                + "{\"provider\":\"ollama\",\"model\":\"all-minilm\",\"endpoint\":\"http://127.0.0.1:" + port + "\"}}}");
        JsonNode mem = memorySection();
        assertEquals("waiting", mem.get("status").asText(), mem.toString());
        assertTrue(mem.get("details").toString().contains("ollama:all-minilm unavailable"), mem.toString());
        assertTrue(mem.get("details").toString().contains("recall is keyword-only"), mem.toString());
    }

    @Test
    void validateDescribesLiteAndTheBundledModelHonestly() throws Exception {
        config("{\"runtime\":{\"model\":\"openai:gpt-5\"},\"memory\":{\"mode\":\"lite\"}}");
        JsonNode lite = memorySection();
        assertEquals("ok", lite.get("status").asText());
        assertTrue(lite.get("details").toString().contains("mode: lite — keyword recall"), lite.toString());
        assertTrue(lite.get("details").toString().contains("embeddings: not used"), lite.toString());
        config("{\"runtime\":{\"model\":\"openai:gpt-5\"},\"memory\":{\"mode\":\"journal\"}}");
        JsonNode journal = memorySection();
        assertEquals("ok", journal.get("status").asText());
        assertTrue(journal.get("details").toString().contains("local:all-minilm-l6-v2-q — in-process model bundled"),
                journal.toString());
        config("{\"runtime\":{\"model\":\"openai:gpt-5\"},\"memory\":{\"path\":\"../elsewhere\"}}");
        assertEquals("error", memorySection().get("status").asText());
        assertEquals(1, run("memory", "stats").exit());
    }

    @Test
    void statsTodayShowSearchRebuild() throws Exception {
        config("{\"runtime\":{\"model\":\"openai:gpt-5\"},\"memory\":{\"mode\":\"lite\"}}");
        try (MemoryStore m = MemoryStore.open(dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, Map.of())))) {
            m.remember("The router escapes shell quotes before calling git.");
            m.remember("Billing rounds negative amounts toward zero.");
        }
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        JsonNode stats = JSON.readTree(run("memory", "stats", "--json").out());
        assertEquals(2, stats.get("entries").asInt());
        assertEquals(2, stats.get("indexedDocs").asInt());
        assertEquals("ok", stats.get("indexHealth").asText());
        assertEquals("off", stats.get("vectorState").asText());

        JsonNode day = JSON.readTree(run("memory", "today", "--json").out());
        assertEquals(today, day.get("date").asText());
        assertEquals("daily/" + today + ".md:1", day.get("entries").get(0).get("source").asText());
        assertEquals(day, JSON.readTree(run("memory", "show", today, "--json").out()));
        assertTrue(run("memory", "show", "2020-01-01").out().contains("No journal entries for 2020-01-01."));
        CliHarness.Result bad = run("memory", "show", "yesterday");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("\"yesterday\" is not a date; use YYYY-MM-DD."), bad.err());

        JsonNode found = JSON.readTree(run("memory", "search", "negative", "amounts", "--json").out());
        assertEquals("keyword-only", found.get("mode").asText());
        assertEquals("memory.mode is lite", found.get("reason").asText());
        assertEquals(1, found.get("results").size());
        assertEquals("Billing rounds negative amounts toward zero.", found.get("results").get(0).get("text").asText());
        CliHarness.Result text = run("memory", "search", "shell", "quotes");
        assertTrue(text.out().contains("daily/" + today + ".md:1  The router escapes shell quotes"), text.out());

        MemoryTestFiles.wipeIndex(ws.resolve(".mono-agent/memory/index"));
        JsonNode rebuilt = JSON.readTree(run("memory", "rebuild", "--json").out());
        assertEquals(2, rebuilt.get("indexedDocs").asInt());
        assertEquals("ok", JSON.readTree(run("memory", "stats", "--json").out()).get("indexHealth").asText());
    }
}
