package dev.monoagent.memory;

import dev.monoagent.config.Enums.MemoryMode;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Shared set-up for the memory tests and the benchmark: configs, stores, and a synthetic corpus. */
final class MemoryFixtures {
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);

    private MemoryFixtures() {}

    static MonoConfig.Memory config(MemoryMode mode, int maxBytes) {
        MonoConfig.Memory d = MonoConfig.Memory.DEFAULTS;
        return new MonoConfig.Memory(mode, d.path(), maxBytes, d.recallTool(), d.rememberTool(), d.embeddings());
    }

    static MemoryStore journal(Path dir, Embedder e) throws IOException {
        return MemoryStore.open(dir, config(MemoryMode.JOURNAL, 64000), e, CLOCK);
    }

    static MemoryStore lite(Path dir) throws IOException {
        return MemoryStore.open(dir, config(MemoryMode.LITE, 64000), null, CLOCK);
    }

    /** A workspace at {@code ws} with this config JSON, loaded as the CLI would (no process env). */
    static dev.monoagent.config.LoadedConfig workspace(Path ws, String configJson) throws Exception {
        java.nio.file.Files.writeString(ws.resolve(dev.monoagent.config.ConfigLoader.CONFIG_FILE), configJson);
        return dev.monoagent.config.Trusted.load(
                new dev.monoagent.config.ConfigLoader.Options(ws, null, null, java.util.Map.of()));
    }

    private static final String[] SUBJECTS = {"sandbox", "parser", "login", "billing", "cache", "scheduler",
            "exporter", "webhook", "session", "tokenizer", "uploader", "indexer", "migration", "router", "mailer"};
    private static final String[] VERBS = {"rejects", "leaks", "retries", "corrupts", "validates", "skips",
            "logs", "throttles", "signs", "escapes", "truncates", "caches"};
    private static final String[] OBJECTS = {"symlinks", "unicode paths", "empty headers", "large uploads",
            "expired cookies", "negative amounts", "nested archives", "null bytes", "redirect loops",
            "duplicate keys", "timezone offsets", "gzip bombs", "relative imports", "shell quotes"};
    private static final String[] FILES = {"src/auth/Login.java", "lib/parse.ts", "cmd/server/main.go",
            "app/models/user.rb", "pkg/cache/lru.go", "web/upload.py", "core/Router.kt", "billing/invoice.rs"};

    /** {@code n} distinct review-style facts, deterministic for a seed. */
    static List<String> corpus(int n, long seed) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add("Finding " + i + ": the " + pick(r, SUBJECTS) + " " + pick(r, VERBS) + " " + pick(r, OBJECTS)
                    + " in " + pick(r, FILES) + "; reviewer note " + Integer.toString(r.nextInt(1 << 20), 36) + ".");
        }
        return out;
    }

    /** {@code n} queries over the corpus vocabulary. */
    static List<String> queries(int n, long seed) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(pick(r, SUBJECTS) + " " + pick(r, OBJECTS) + (r.nextBoolean() ? " " + pick(r, VERBS) : ""));
        }
        return out;
    }

    private static String pick(Random r, String[] a) {
        return a[r.nextInt(a.length)];
    }
}
