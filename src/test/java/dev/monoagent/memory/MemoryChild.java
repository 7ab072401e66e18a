package dev.monoagent.memory;

import dev.monoagent.config.Enums.MemoryMode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * A separate JVM for the process tests: {@code crash DIR TAG} writes entries forever, printing {@code ACK hash} after
 * each acknowledged (fsynced) one, until it is killed; {@code write DIR TEXT...} writes and exits; {@code recall DIR
 * QUERY} prints the recall block. Journal mode uses the real in-process model.
 */
public final class MemoryChild {
    private MemoryChild() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        Path dir = Path.of(args[1]);
        switch (args[0]) {
            case "crash" -> {
                try (MemoryStore m = MemoryStore.open(dir, MemoryFixtures.config(MemoryMode.LITE, 64000), null,
                        Clock.systemUTC())) {
                    out.println("OPEN " + m.journal().size());
                    for (int i = 0; ; i++) {
                        var r = m.remember("crash " + args[2] + " entry " + i + ": the indexer retries after a "
                                + "partial write of segment " + (i * 7919 % 1000));
                        if (r instanceof MemoryStore.Remembered.Stored s) {
                            out.println("ACK " + s.entry().hash());
                        }
                    }
                }
            }
            case "write" -> {
                try (MemoryStore m = journalStore(dir)) {
                    for (int i = 2; i < args.length; i++) {
                        out.println(m.remember(args[i]).getClass().getSimpleName());
                    }
                    out.println("STATE " + m.vectorState().word());
                }
            }
            case "recall" -> {
                try (MemoryStore m = journalStore(dir)) {
                    MemoryStore.Recall r = m.recall(args[2], 64000);
                    out.println("MODE " + r.mode());
                    List<String> texts = new ArrayList<>();
                    r.items().forEach(h -> texts.add(h.entry().text() + " |kw=" + h.keywordRank() + " vec="
                            + h.vectorRank()));
                    texts.forEach(t -> out.println("ITEM " + t));
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static MemoryStore journalStore(Path dir) throws java.io.IOException {
        var cfg = MemoryFixtures.config(MemoryMode.JOURNAL, 64000);
        return MemoryStore.open(dir, cfg, Embedders.of(cfg.embeddings(), java.util.Map.of(), dir.resolve("cache")),
                Clock.systemUTC());
    }

    /** The argv to start this class in a fresh JVM with the test class path. */
    static List<String> command(String... args) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> argv = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                MemoryChild.class.getName()));
        argv.addAll(List.of(args));
        return argv;
    }
}
