package dev.monoagent.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code mono-agent init} writes into an agent folder: the config file, {@code IDENTITY.md}, the state dir and
 * a {@code .gitignore} entry. {@link #plan} decides without touching disk (so {@code --dry-run} shows the truth);
 * {@link #apply} writes. An existing config is never overwritten without {@code force}, and then it is backed up.
 */
public final class Scaffold {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    static final List<String> GITIGNORE_LINES = List.of(".mono-agent/", ".env", ".env.*");

    private Scaffold() {}

    /**
     * Inputs of {@code init}. {@code model}, {@code memory}, {@code name} and {@code network} may be null (the
     * preset's value, or none); {@code network} is {@code sandbox.network.mode}.
     */
    public record Request(Path workspace, String model, String memory, String presetId, String name, boolean force,
                          String network) {
        public Request(Path workspace, String model, String memory, String presetId, String name, boolean force) {
            this(workspace, model, memory, presetId, name, force, null);
        }
    }

    /** One file-system change. */
    public record Action(Kind kind, Path path, String content) {
        /** What happens to the path. */
        public enum Kind { CREATE, OVERWRITE, BACKUP, MKDIR, APPEND, KEEP }
    }

    /** The model the config written for {@code r} names: {@code --model}, else the preset's, else null. */
    public static String model(Request r) {
        if (r.model() != null) {
            return r.model().trim();
        }
        return Presets.find(r.presetId() == null ? "starter" : r.presetId())
                .map(p -> p.config().get("runtime") instanceof Map<?, ?> rt ? (String) rt.get("model") : null)
                .orElse(null);
    }

    public static List<Action> plan(Request r) throws ConfigException {
        Presets.Preset preset = Presets.find(r.presetId() == null ? "starter" : r.presetId())
                .orElseThrow(() -> new ConfigException("--preset", "--preset " + r.presetId()
                        + " is not a preset; choose one of " + String.join(", ", Presets.ids()) + "."));
        if (r.model() != null) {
            ModelRefGrammar.parse(r.model(), "--model", Set.of());
        }
        if (r.memory() != null && Enums.parse(Enums.MemoryMode.class, r.memory()) == null) {
            throw new ConfigException("--memory", "--memory must be one of "
                    + Enums.choices(Enums.MemoryMode.class) + ", got \"" + r.memory() + "\".");
        }
        if (r.network() != null && Enums.parse(Enums.NetworkMode.class, r.network()) == null) {
            throw new ConfigException("--network", "--network must be one of "
                    + Enums.choices(Enums.NetworkMode.class) + ", got \"" + r.network() + "\".");
        }
        Path ws = r.workspace();
        Path cfg = ws.resolve(ConfigLoader.CONFIG_FILE);
        List<Action> actions = new ArrayList<>();
        if (Files.exists(cfg)) {
            if (!r.force()) {
                throw new ConfigException("--force", cfg + " already exists; nothing was changed. "
                        + "Use --force to replace it (the old file is kept as " + ConfigLoader.CONFIG_FILE + ".bak).");
            }
            actions.add(new Action(Action.Kind.BACKUP, ws.resolve(ConfigLoader.CONFIG_FILE + ".bak"), null));
            actions.add(new Action(Action.Kind.OVERWRITE, cfg, configJson(r, preset)));
        } else {
            actions.add(new Action(Action.Kind.CREATE, cfg, configJson(r, preset)));
        }
        Path identity = ws.resolve("IDENTITY.md");
        actions.add(Files.exists(identity) ? new Action(Action.Kind.KEEP, identity, null)
                : new Action(Action.Kind.CREATE, identity, identity(r, preset)));
        Path state = ws.resolve(".mono-agent");
        if (!Files.isDirectory(state)) {
            actions.add(new Action(Action.Kind.MKDIR, state, null));
        }
        Path gitignore = ws.resolve(".gitignore");
        List<String> missing = new ArrayList<>(GITIGNORE_LINES);
        if (Files.isRegularFile(gitignore)) {
            try {
                for (String line : Files.readAllLines(gitignore, StandardCharsets.UTF_8)) {
                    missing.remove(line.strip());
                }
            } catch (IOException e) {
                throw new ConfigException(".gitignore", "cannot read " + gitignore + ": " + e.getMessage());
            }
        }
        if (!missing.isEmpty()) {
            actions.add(new Action(Files.exists(gitignore) ? Action.Kind.APPEND : Action.Kind.CREATE, gitignore,
                    String.join("\n", missing) + "\n"));
        }
        return List.copyOf(actions);
    }

    public static void apply(List<Action> actions) throws IOException {
        // the workspace is the repository under review: any name written here (or its .tmp, or the config copied to
        // .bak) may be a link it shipped, and writing through one would change or copy a file outside it
        for (Action a : actions) {
            List<Path> names = new ArrayList<>(List.of(a.path(), a.path().resolveSibling(a.path().getFileName()
                    + ".tmp")));
            if (a.kind() == Action.Kind.BACKUP) {
                names.add(a.path().resolveSibling(ConfigLoader.CONFIG_FILE));
            }
            for (Path n : names) {
                if (Files.isSymbolicLink(n)) {
                    throw new IOException(n + " is a symbolic link; init writes no file through one (it may lead "
                            + "out of the workspace). Remove it and run init again.");
                }
            }
        }
        for (Action a : actions) {
            switch (a.kind()) {
                case BACKUP -> Files.copy(a.path().resolveSibling(ConfigLoader.CONFIG_FILE), a.path(),
                        StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES,
                        java.nio.file.LinkOption.NOFOLLOW_LINKS);
                case CREATE, OVERWRITE -> {
                    Path tmp = a.path().resolveSibling(a.path().getFileName() + ".tmp");
                    Files.deleteIfExists(tmp);
                    Files.writeString(tmp, a.content(), StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE_NEW,
                            java.nio.file.StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS);
                    Files.move(tmp, a.path(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
                case MKDIR -> Files.createDirectories(a.path());
                case APPEND -> {
                    String existing = Files.readString(a.path(), StandardCharsets.UTF_8);
                    String sep = existing.isEmpty() || existing.endsWith("\n") ? "" : "\n";
                    Files.writeString(a.path(), existing + sep + a.content(), StandardCharsets.UTF_8);
                }
                case KEEP -> { }
            }
        }
    }

    static String configJson(Request r, Presets.Preset preset) {
        Map<String, Object> root = new LinkedHashMap<>();
        if (r.name() != null) {
            root.put("agent", Map.of("name", r.name()));
        }
        Map<String, Object> body = new LinkedHashMap<>(preset.config());
        if (r.model() != null) {
            root.put("runtime", Map.of("model", r.model().trim()));
            body.remove("runtime");
        }
        if (r.memory() != null) {
            body.put("memory", Map.of("mode", r.memory()));
        }
        if (r.network() != null && body.get("sandbox") instanceof Map<?, ?> presetSandbox) {
            Map<Object, Object> sandbox = new LinkedHashMap<>(presetSandbox);
            sandbox.put("network", Map.of("mode", r.network()));
            body.put("sandbox", sandbox);
        }
        root.putAll(body);
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String identity(Request r, Presets.Preset preset) {
        String name = r.name() == null ? "mono-agent" : r.name();
        return """
                # %s

                ## Role

                You are a careful code-reading assistant for a security review. You read the repository, run
                commands and JavaScript only inside the mono-agent sandbox, and report what you find with file and
                line references. You never try to read or change secrets (.env files, .git/config, .git/hooks).

                Preset: %s — %s
                """.formatted(name, preset.id(), preset.summary());
    }
}
