package dev.monoagent.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryStoreTest {
    @TempDir
    Path dir;

    @Test
    void rememberedFactIsJournaledAsMarkdownAndRecalledHybrid() throws Exception {
        try (MemoryStore m = MemoryFixtures.journal(dir, new WordHashEmbedder())) {
            var r = m.remember("The  billing service\u00A0rounds negative amounts up.");
            JournalEntry e = assertInstanceOf(MemoryStore.Remembered.Stored.class, r).entry();
            assertEquals("The billing service rounds negative amounts up.", e.text());
            String md = Files.readString(dir.resolve("daily/2026-11-30.md"));
            assertTrue(md.startsWith("### 2026-11-30T10:00:00Z remember " + e.hash() + "\n"
                    + "The billing service rounds negative amounts up.\n<!-- end " + e.hash() + " -->\n"), md);
            assertEquals("daily/2026-11-30.md:1", e.source());
            MemoryStore.Recall rc = m.recall("negative amounts billing", 64000);
            assertEquals(MemoryStore.HYBRID, rc.mode());
            assertEquals(1, rc.items().size());
            assertTrue(rc.items().get(0).keywordRank() == 1 && rc.items().get(0).vectorRank() == 1);
        }
    }

    @Test
    void rememberIsIdempotentByNormalizedContent() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            var first = m.remember("Use  ripgrep for   search.");
            var again = m.remember("Use ripgrep for search.");
            var fullwidth = m.remember("Use ripgrep for search\uFF0E"); // NFKC folds the fullwidth full stop
            assertInstanceOf(MemoryStore.Remembered.Stored.class, first);
            assertInstanceOf(MemoryStore.Remembered.Duplicate.class, again);
            assertInstanceOf(MemoryStore.Remembered.Duplicate.class, fullwidth);
            assertEquals(1, m.journal().size());
            assertEquals(1, Files.readString(dir.resolve("daily/2026-11-30.md")).split("### ", -1).length - 1);
        }
        try (MemoryStore reopened = MemoryFixtures.lite(dir)) {
            assertInstanceOf(MemoryStore.Remembered.Duplicate.class, reopened.remember("Use ripgrep for search."));
        }
    }

    @Test
    void rememberLimitsLengthAfterNormalisation() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            String five = "x".repeat(499) + "y";
            assertInstanceOf(MemoryStore.Remembered.Stored.class, m.remember("   " + five + "   \n\n"));
            var r = m.remember("z".repeat(501));
            assertTrue(assertInstanceOf(MemoryStore.Remembered.Rejected.class, r).reason().contains("501"));
            assertInstanceOf(MemoryStore.Remembered.Rejected.class, m.remember(" \n\t "));
            // 600 characters of ligatures fold to more under NFKC; the limit is on the folded text
            assertInstanceOf(MemoryStore.Remembered.Rejected.class, m.remember("\uFB03".repeat(200)));
        }
    }

    @Test
    void recallBlockFormatAndByteBudget() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            for (int i = 0; i < 20; i++) {
                m.remember("Deploy note " + i + ": the staging deploy needs the VPN and ünïcode ✓ tokens "
                        + "x".repeat(i * 10));
            }
            MemoryStore.Recall all = m.recall("staging deploy", 64000);
            assertEquals(MemoryStore.KEYWORD_ONLY, all.mode());
            assertEquals("memory.mode is lite", all.reason());
            assertEquals(MemoryStore.RECALL_ITEMS, all.items().size());
            String[] lines = all.block().split("\n");
            assertEquals(MemoryStore.RECALL_HEADER, lines[0]);
            assertEquals(MemoryStore.RECALL_ITEMS + 1, lines.length);
            for (int i = 1; i < lines.length; i++) {
                assertTrue(lines[i].matches("- \\[2026-11-30 10:00 UTC · daily/2026-11-30\\.md:\\d+\\] Deploy note .*"),
                        lines[i]);
            }
            for (int budget : new int[] {300, 400, 1024}) {
                MemoryStore.Recall r = m.recall("staging deploy", budget);
                assertTrue(r.bytes() <= budget, r.bytes() + " > " + budget);
                assertEquals(r.block().getBytes(StandardCharsets.UTF_8).length, r.bytes());
                assertFalse(r.items().isEmpty());
                assertTrue(r.items().size() < all.items().size());
            }
            assertEquals("", m.recall("kubernetes", 64000).block());
        }
        // memory.maxBytes caps whatever the caller asks for
        try (MemoryStore m = MemoryStore.open(dir, MemoryFixtures.config(dev.monoagent.config.Enums.MemoryMode.LITE,
                1024), null, MemoryFixtures.CLOCK)) {
            assertTrue(m.recall("staging deploy", 1_000_000).bytes() <= 1024);
        }
    }

    @Test
    void beforeTurnAppendsTheBlockToTheUserMessageAndEmitsMemoryRecalled() throws Exception {
        try (MemoryStore m = MemoryFixtures.journal(dir, new WordHashEmbedder())) {
            m.remember("The exporter escapes shell quotes in cmd/server/main.go.");
            List<Event> events = new ArrayList<>();
            MemoryStore.TurnRecall t = m.beforeTurn("run-1", "Does the exporter escape shell quotes?", events::add);
            assertTrue(t.message().startsWith("Does the exporter escape shell quotes?\n\n" + MemoryStore.RECALL_HEADER
                    + "\n- ["), t.message());
            Event.MemoryRecalled ev = assertInstanceOf(Event.MemoryRecalled.class, events.get(0));
            assertEquals(1, ev.items());
            assertEquals(t.recall().bytes(), ev.bytes());
            assertEquals("hybrid", ev.mode());
            assertEquals(List.of("daily/2026-11-30.md:1"), ev.sources());
            MemoryStore.TurnRecall none = m.beforeTurn("run-1", "kubernetes", events::add);
            assertEquals("kubernetes", none.message());
        }
    }

    @Test
    void keywordOnlyWhenTheEmbedderIsDownSaysWhy() throws Exception {
        WordHashEmbedder e = new WordHashEmbedder();
        e.down = true;
        try (MemoryStore m = MemoryFixtures.journal(dir, e)) {
            m.remember("The webhook retries redirect loops forever.");
            MemoryStore.Recall r = m.recall("webhook redirect loops", 64000);
            assertEquals(MemoryStore.KEYWORD_ONLY, r.mode());
            assertEquals("test embedder is down", r.reason());
            assertEquals(1, r.items().size());
            assertEquals(MemoryStore.VectorState.UNAVAILABLE, m.vectorState());
        }
        e.down = false; // back up: reopening backfills the missing vector and recall is hybrid again
        try (MemoryStore m = MemoryFixtures.journal(dir, e)) {
            MemoryStore.Recall r = m.recall("webhook redirect loops", 64000);
            assertEquals(MemoryStore.HYBRID, r.mode());
            assertEquals(1, m.stats().vectorDocs());
        }
    }

    @Test
    void afterTurnJournalsADeterministicRedactedObservationOnce() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            TurnObservation o = new TurnObservation("Why does login fail? my key is sk-proj-" + "a1B2".repeat(10),
                    "Because the cookie expired.", List.of("Read", "Bash", "Read"), List.of("src/b.java", "src/a.java"),
                    List.of("write denied: .env"));
            Journal.Append a = m.afterTurn(o);
            assertTrue(a.added());
            assertEquals("Asked: Why does login fail? my key is [redacted: OpenAI API key]\n"
                    + "Answered: Because the cookie expired.\nTools: Bash, Read\nFiles: src/a.java, src/b.java\n"
                    + "Violations: write denied: .env", a.entry().text());
            assertFalse(m.afterTurn(o).added());
            assertFalse(Files.readString(dir.resolve("daily/2026-11-30.md")).contains("a1B2a1B2"));
        }
    }

    @Test
    void tornTailIsIgnoredAndNeverGluedToTheNextEntry() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            m.remember("first fact about the router");
        }
        Path f = dir.resolve("daily/2026-11-30.md");
        Files.writeString(f, "### 2026-11-30T10:00:00Z remember 0123456789abcdef\nhalf writ", StandardOpenOption.APPEND);
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            assertEquals(1, m.journal().size());
            JournalEntry e = assertInstanceOf(MemoryStore.Remembered.Stored.class,
                    m.remember("second fact about the mailer")).entry();
            assertEquals(2, m.day(m.today()).size());
            assertEquals("### " + "2026-11-30T10:00:00Z remember " + e.hash(),
                    Files.readAllLines(f).get(e.line() - 1));
        }
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            assertEquals(2, m.search("router mailer", 10).size());
        }
    }

    @Test
    void missingOrCorruptIndexIsRebuiltFromTheJournal() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            m.ingest("remember", MemoryFixtures.corpus(40, 1));
        }
        try (var files = Files.list(dir.resolve("index"))) {
            for (Path p : files.toList()) {
                if (!p.getFileName().toString().equals("write.lock")) {
                    Files.write(p, new byte[] {1, 2, 3});
                }
            }
        }
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            assertTrue(m.stats().indexHealth().startsWith("was corrupt"), m.stats().indexHealth());
            assertEquals(40, m.stats().indexedDocs());
            assertEquals(5, m.search("sandbox symlinks", 5).size());
        }
        MemoryIndex.wipe(dir.resolve("index"));
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            assertEquals("was missing; rebuilt from the journal", m.stats().indexHealth());
            assertEquals(40, m.stats().indexedDocs());
        }
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            assertEquals("ok", m.stats().indexHealth());
        }
    }

    @Test
    void rebuildFromTheJournalEqualsTheIncrementalIndex() throws Exception {
        List<String> corpus = MemoryFixtures.corpus(600, 42);
        List<String> queries = MemoryFixtures.queries(50, 7);
        List<List<String>> incremental = new ArrayList<>();
        try (MemoryStore m = MemoryFixtures.journal(dir, new WordHashEmbedder())) {
            for (int i = 0; i < corpus.size(); i += 37) { // uneven batches, as turns and Remember calls arrive
                m.ingest("remember", corpus.subList(i, Math.min(corpus.size(), i + 37)));
            }
            m.remember(corpus.get(3)); // a duplicate changes nothing
            for (String q : queries) {
                incremental.add(top10(m, q));
            }
            MemoryStore.Stats s = m.rebuild();
            assertEquals(600, s.indexedDocs());
            assertEquals(600, s.vectorDocs());
            for (int i = 0; i < queries.size(); i++) {
                assertEquals(incremental.get(i), top10(m, queries.get(i)), queries.get(i));
            }
        }
        for (List<String> l : incremental) {
            assertEquals(10, l.size());
        }
    }

    private static List<String> top10(MemoryStore m, String q) throws Exception {
        return m.search(q, 10).stream().map(h -> h.entry().hash()).toList();
    }

    @Test
    void memoryPathOutsideTheStateDirIsRefused() throws Exception {
        var lc = MemoryFixtures.workspace(dir, "{\"memory\":{\"path\":\"notes/memory\"}}");
        var e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> MemoryStore.dir(lc));
        assertTrue(e.getMessage().contains("memory.path notes/memory"), e.getMessage());
        assertNotNull(e.getMessage());
    }
}
