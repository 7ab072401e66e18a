package dev.monoagent.memory;

import dev.monoagent.config.Enums.MemoryMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.host.HostEnv;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code validate} says about memory, found without changing anything: the journal is read, the index is opened
 * read-only, and a remote embedder is asked for one vector (the in-process model is only checked to be bundled; it
 * loads on first recall). {@code waiting} whenever recall would run keyword-only against the config's wish.
 */
public final class MemoryHealth {
    /** Section level, mapped to validate's words by the caller. */
    public enum Level { OK, WAITING, ERROR }

    public record Report(Level level, List<String> lines) {
        public Report {
            lines = List.copyOf(lines);
        }
    }

    private MemoryHealth() {}

    public static Report check(LoadedConfig lc) {
        MonoConfig.Memory m = lc.config().memory();
        List<String> lines = new ArrayList<>();
        Path dir;
        try {
            dir = MemoryStore.dir(lc);
        } catch (IOException e) {
            return new Report(Level.ERROR, List.of(e.getMessage()));
        }
        boolean vectors = MemoryStore.vectorsOn(m);
        lines.add("mode: " + m.mode().wire() + " — " + (vectors ? "keyword + vector hybrid recall"
                : m.mode() == MemoryMode.BUJO ? "bullet-journal log with keyword recall" : "keyword recall"));
        lines.add("path: " + dir);
        int entries;
        List<String> ignored;
        dev.monoagent.common.Seal seal;
        try {
            seal = MemoryStore.seal(MemoryStore.sealEnv(lc));
            Journal j = Journal.open(dir, seal);
            entries = j.size();
            lines.add("entries: " + entries + " in " + j.countsByDay().size() + " daily file(s)");
            ignored = j.foreign().keySet().stream().sorted().map(j::label).toList();
        } catch (IOException e) {
            return new Report(Level.ERROR, List.of("journal unreadable: " + e.getMessage()));
        }
        Level level = Level.OK;
        if (!ignored.isEmpty()) {
            lines.add("[WARN] " + MemoryStore.Stats.ignoredLine(ignored));
        }
        String idx = MemoryIndex.inspect(dir.resolve("index"), MemoryStore.indexMark(seal, dir));
        if (idx.startsWith("ok:")) {
            int docs = Integer.parseInt(idx.substring(3));
            lines.add("index: " + (docs == entries ? "ok (" + docs + " entries)"
                    : "behind (" + docs + " of " + entries + " entries committed; caught up on next use)"));
        } else if (idx.equals("foreign")) {
            lines.add("index: not built on this machine (it came with the workspace; rebuilt from the sealed journal "
                    + "on next use)");
        } else if (idx.equals("missing")) {
            lines.add("index: " + (entries == 0 ? "not created yet (created on first use)"
                    : "missing (rebuilt from the journal on next use)"));
        } else {
            lines.add("index: corrupt (" + idx.substring(8) + "; rebuilt from the journal on next use)");
        }
        if (!vectors) {
            lines.add("embeddings: not used (memory.mode " + m.mode().wire() + ")");
        } else {
            Embedder e = Embedders.of(m.embeddings(), lc.env(),
                    HostEnv.defaultCacheRoot(lc.env(), Path.of(System.getProperty("user.home"))));
            String problem = probe(e);
            if (problem == null) {
                lines.add("embeddings: " + e.id() + " — " + (e instanceof LocalMiniLm
                        ? "in-process model bundled in the jar; loads on first recall"
                        : "reachable" + (e instanceof HttpEmbedder h ? " at " + h.uri() : "")));
            } else {
                level = Level.WAITING;
                lines.add("[WARN] embeddings: " + e.id() + " unavailable: " + problem
                        + "; recall is keyword-only until it answers");
            }
        }
        return new Report(level, lines);
    }

    /** Null when usable, else why not. */
    private static String probe(Embedder e) {
        if (e instanceof LocalMiniLm) {
            return LocalMiniLm.bundled() ? null : "the model file " + LocalMiniLm.MODEL_RESOURCE
                    + " is not on the class path";
        }
        try {
            e.embed(List.of("ping"));
            return null;
        } catch (Embedder.Unavailable u) {
            return u.getMessage();
        }
    }
}
