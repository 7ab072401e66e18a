package dev.monoagent.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Memory across real processes: one writes, another recalls; and a writer killed with SIGKILL 50 times. */
class MemoryProcessTest {
    @TempDir
    Path dir;

    private static List<String> runToEnd(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                .lines().toList();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "child finished");
        assertEquals(0, p.exitValue(), lines.toString());
        return lines;
    }

    @Test
    void writtenInOneProcessRecalledInAnotherWithTheInProcessModel() throws Exception {
        List<String> w = runToEnd(MemoryChild.command("write", dir.toString(),
                "The login page sends the session cookie over plain HTTP.",
                "Billing rounds negative amounts toward zero."));
        // A writer does not load the model just to write (entries are indexed keyword-first); the recalling
        // process loads it and backfills the vectors before it searches.
        assertEquals(List.of("Stored", "Stored", "STATE not loaded"), w);
        // No word in common with the first entry ("cookie" is not "cookies"): only the vectors can find it.
        List<String> r = runToEnd(MemoryChild.command("recall", dir.toString(), "authentication cookies leaking"));
        assertEquals("MODE hybrid", r.get(0));
        assertTrue(r.get(1).startsWith("ITEM The login page sends the session cookie over plain HTTP. |kw=0 vec=1"),
                r.toString());
    }

    @Test
    void killNineWhileWritingNeverLosesAnAcknowledgedEntryOrCorruptsTheJournal() throws Exception {
        Set<String> acked = new HashSet<>();
        Random rnd = new Random(20261130);
        int rounds = 50;
        int killedDuringOpen = 0;
        for (int round = 0; round < rounds; round++) {
            Process p = new ProcessBuilder(MemoryChild.command("crash", dir.toString(), "r" + round))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    for (String l = out.readLine(); l != null; l = out.readLine()) {
                        synchronized (lines) {
                            lines.add(l);
                            lines.notifyAll();
                        }
                    }
                } catch (java.io.IOException e) {
                    // the pipe closes when the child is killed
                }
            });
            boolean early = round % 5 == 0; // every fifth kill lands while the store is opening / re-indexing
            long deadline = System.currentTimeMillis() + 60_000;
            synchronized (lines) {
                while (!early && lines.stream().noneMatch(l -> l.startsWith("ACK"))
                        && System.currentTimeMillis() < deadline && p.isAlive()) {
                    lines.wait(50);
                }
            }
            Thread.sleep(early ? 150 + rnd.nextInt(400) : 5 + rnd.nextInt(80));
            p.destroyForcibly(); // SIGKILL on Linux
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            reader.join(10_000);
            synchronized (lines) {
                if (lines.stream().noneMatch(l -> l.startsWith("ACK"))) {
                    killedDuringOpen++;
                }
                lines.stream().filter(l -> l.startsWith("ACK ")).forEach(l -> acked.add(l.substring(4)));
            }
        }
        assertTrue(acked.size() >= rounds / 2, "writers acknowledged " + acked.size() + " entries");
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            for (String h : acked) {
                JournalEntry e = m.journal().find(h);
                assertNotNull(e, "acknowledged entry " + h + " is in the journal");
                assertTrue(e.text().startsWith("crash r"), e.text());
            }
            MemoryStore.Stats s = m.stats();
            assertEquals(s.entries(), s.indexedDocs(), s.toString());
            assertTrue(s.indexHealth().equals("ok") || s.indexHealth().startsWith("was "), s.indexHealth());
            // every daily file counts: the writers date entries by the real clock, this checker's store by the
            // fixtures' fixed one (they differed once the real date moved past it)
            int inFiles = 0;
            for (java.time.LocalDate day : m.journal().days()) {
                inFiles += m.day(day).size();
            }
            assertEquals(s.entries(), inFiles);
            assertTrue(m.search("indexer partial write segment", 5).size() == 5);
        }
        System.out.println("crash test: " + rounds + " SIGKILLs (" + killedDuringOpen + " before the first ack), "
                + acked.size() + " acknowledged entries, all present");
    }
}
