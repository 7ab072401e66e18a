package dev.monoagent.config;

import dev.monoagent.host.UserConfigRoot;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Loads the configuration once: the reviewer's user-level config, the JSON file, then {@code .env}, then exported env
 * vars on top (exported &gt; {@code .env} &gt; JSON &gt; user config &gt; default; {@code KEY=} counts as unset), binds it
 * onto the records and validates it. Every problem is reported with the field (or env var) it concerns.
 *
 * <p>The workspace's own files (its JSON, its {@code .env}, {@code IDENTITY.md}, {@code SOUL.md}) are attacker input:
 * the configuration is bound twice, once from the reviewer's sources alone and once with the workspace's, and every
 * workspace value that would widen the sandbox, send a credential or become instructions ({@link TrustRules}) is put
 * back to the reviewer's value unless its exact digest was accepted ({@link TrustStore}). What was held back is in
 * {@link LoadedConfig#trust()}.
 */
public final class ConfigLoader {
    public static final String CONFIG_FILE = "mono-agent.config.json";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final Pattern HOST_SUFFIX =
            Pattern.compile("^(\\*\\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$");

    /**
     * What to load.
     *
     * @param cwd        the directory the command runs in
     * @param configPath {@code --config}, or null for {@code <workspace>/mono-agent.config.json}
     * @param envFile    {@code --env-file}, or null for {@code <workspace>/.env} when present
     * @param processEnv the exported environment
     */
    public record Options(Path cwd, Path configPath, Path envFile, Map<String, String> processEnv) {
        public static Options of(Path cwd) {
            return new Options(cwd, null, null, System.getenv());
        }
    }

    private ConfigLoader() {}

    /** Where the workspace and config file are for these options, without reading anything. */
    public static Path[] locate(Options o) {
        Path cwd = o.cwd().toAbsolutePath().normalize();
        String wsEnv = o.processEnv().get(EnvVars.WORKSPACE);
        Path configPath = o.configPath() == null ? null : cwd.resolve(o.configPath()).normalize();
        Path workspace;
        if (wsEnv != null && !wsEnv.isEmpty()) {
            workspace = cwd.resolve(wsEnv).normalize();
        } else if (configPath != null) {
            workspace = configPath.getParent();
        } else {
            workspace = cwd;
        }
        if (configPath == null) {
            configPath = workspace.resolve(CONFIG_FILE);
        }
        return new Path[] {workspace, configPath};
    }

    /** The first errors of a failed load on one line (each message names its field), for a window or a notice. */
    public static String summary(ConfigException e) {
        List<String> msgs = e.errors().stream().map(er -> er.message().replace('\n', ' ')).limit(3).toList();
        String more = e.errors().size() > 3 ? " (and " + (e.errors().size() - 3) + " more)" : "";
        return msgs.isEmpty() ? String.valueOf(e.getMessage()) : String.join("; ", msgs) + more;
    }

    public static LoadedConfig load(Options o) throws ConfigException {
        Path[] located = locate(o);
        Path workspace = located[0];
        Path configPath = located[1];
        if (Files.isDirectory(configPath)) {
            throw new ConfigException("--config", configPath + " is a directory, not a config file.");
        }
        Path userRoot = UserConfigRoot.of(o.processEnv(), Path.of(System.getProperty("user.home")));

        Map<String, String> dotenv = Map.of();
        Path envFile = null;
        if (o.envFile() != null) {
            Path f = o.cwd().toAbsolutePath().resolve(o.envFile()).normalize();
            if (!Files.isRegularFile(f)) {
                throw new ConfigException("--env-file", "--env-file " + f + ": no such file.");
            }
            dotenv = DotEnv.read(f);
            envFile = f;
        } else if (Files.isRegularFile(workspace.resolve(".env"))) {
            envFile = workspace.resolve(".env");
            dotenv = DotEnv.read(envFile);
        }
        // the workspace's own files are attacker input until accepted; a file the reviewer named outside it is theirs
        boolean envFromWorkspace = envFile != null && inside(envFile, workspace);
        boolean jsonFromWorkspace = inside(configPath, workspace);

        Path userFile = userRoot.resolve(UserConfigRoot.USER_CONFIG_FILE);
        ObjectNode userJson = Files.isRegularFile(userFile) ? readJson(userFile)
                : JsonNodeFactory.instance.objectNode();
        boolean exists = Files.isRegularFile(configPath);
        ObjectNode fileJson = exists ? readJson(configPath) : JsonNodeFactory.instance.objectNode();
        ObjectNode full = userJson.deepCopy();
        merge(full, fileJson);
        ObjectNode reviewer = userJson.deepCopy();
        if (!jsonFromWorkspace) {
            merge(reviewer, fileJson);
        }

        Map<String, Source> provenance = new LinkedHashMap<>();
        markJson(userJson, "", Source.USER, provenance);
        markJson(fileJson, "", Source.JSON, provenance);
        Map<String, String> envNameOf = new HashMap<>();
        for (EnvVars.Binding b : EnvVars.BINDINGS) {
            String exported = o.processEnv().get(b.env());
            String fromFile = dotenv.get(b.env());
            if (exported != null && (!exported.isEmpty() || EnvVars.emptyIsMeaningful(b.env()))) {
                put(full, b.path(), envNode(exported, b.kind()));
                put(reviewer, b.path(), envNode(exported, b.kind()));
                provenance.put(b.path(), Source.ENV);
            } else if (fromFile != null && (!fromFile.isEmpty() || EnvVars.emptyIsMeaningful(b.env()))) {
                put(full, b.path(), envNode(fromFile, b.kind()));
                if (!envFromWorkspace) {
                    put(reviewer, b.path(), envNode(fromFile, b.kind()));
                }
                provenance.put(b.path(), Source.DOTENV);
            } else {
                continue;
            }
            envNameOf.put(b.path(), b.env());
        }

        java.util.function.Function<String, String> names = path -> {
            String base = path.replaceAll("\\[\\d+]$", "");
            String envName = envNameOf.get(base);
            return envName == null ? path : envName + (path.equals(base) ? "" : path.substring(base.length()));
        };
        RecordBinder binder = new RecordBinder(names);
        MonoConfig cfg = binder.bindRecord(full, MonoConfig.class, "", MonoConfig.DEFAULTS);
        List<ConfigError> errors = new ArrayList<>(binder.errors());
        errors.addAll(StateDirCheck.problems(workspace));
        // provider ids name key paths below (providers.<id>.baseUrl): one that is not a plain word cannot be one
        java.util.Iterator<String> ids = full.path("providers").fieldNames();
        while (ids.hasNext()) {
            String id = ids.next();
            if (!id.matches("[A-Za-z0-9_-]+")) {
                errors.add(new ConfigError("providers", "providers has the id \"" + dev.monoagent.common.Printable
                        .line(id) + "\": a provider id may only hold letters, digits, - and _."));
            }
        }
        RecordBinder reviewerBinder = new RecordBinder(names);
        MonoConfig reviewerCfg = reviewerBinder.bindRecord(reviewer, MonoConfig.class, "", MonoConfig.DEFAULTS);
        reviewerBinder.errors().stream().filter(e -> !errors.contains(e)).forEach(errors::add);
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }

        Judged judged = new Judged(new TrustStore(userRoot), workspace);
        List<TrustItem> pending = judged.pending;
        List<TrustItem> acceptedItems = judged.accepted;
        // roots are compared where they really lead: "lib" may be a link to / that the repository shipped
        List<TrustRules.Change> changes = TrustRules.changes(reviewerCfg, cfg, e -> real(resolveEntry(workspace, e)));
        boolean reverted = false;
        MonoConfig asWritten = cfg;
        ObjectNode asWrittenRoot = full.deepCopy();
        // every item is described from the configuration as written, before anything is put back
        List<TrustItem> items = new ArrayList<>();
        for (TrustRules.Change c : changes) {
            StringBuilder exact = new StringBuilder();
            c.revert().forEach(path -> exact.append(path).append('=').append(at(asWrittenRoot, path)).append('\n'));
            exact.append(c.value()); // for roots it names where they lead now: a repointed link waits again
            items.add(TrustItem.of(c.key(), c.value(), exact.toString(),
                    sourceLabel(c.revert(), provenance, configPath, envFile), c.kind()));
        }
        for (int i = 0; i < changes.size(); i++) {
            if (judged.accepts(items.get(i))) {
                continue;
            }
            for (String path : changes.get(i).revert()) {
                JsonNode was = at(reviewer, path);
                remove(full, path);
                provenance.keySet().removeIf(k -> k.equals(path) || k.startsWith(path + ".") || k.startsWith(path + "["));
                if (was != null) {
                    put(full, path, was.deepCopy());
                    markJson(was, path, Source.USER, provenance);
                }
            }
            reverted = true;
        }
        if (reverted) {
            RecordBinder again = new RecordBinder(names);
            cfg = again.bindRecord(full, MonoConfig.class, "", MonoConfig.DEFAULTS);
            errors.addAll(again.errors());
        }

        Map<String, String> instructions = new LinkedHashMap<>();
        List<String> unusedInstructions = new ArrayList<>();
        for (String name : INSTRUCTION_FILES) {
            byte[] bytes = regularFileBytes(workspace.resolve(name));
            if (bytes == null) {
                String why = unusableInstructions(workspace.resolve(name));
                if (why != null) {
                    unusedInstructions.add(name + " is not used as the agent's instructions: " + why + ".");
                }
                continue;
            }
            String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
            TrustItem item = TrustItem.of(name, bytes.length + " bytes, sha256 "
                    + TrustItem.sha256(bytes).substring(0, 12), text, name, TrustItem.Kind.INSTRUCTIONS);
            if (judged.accepts(item)) {
                instructions.put(name, text);
            }
        }

        Map<String, String> env = new HashMap<>(o.processEnv());
        if (!envFromWorkspace) {
            dotenv.forEach((k, v) -> {
                if ((!v.isEmpty() || !env.containsKey(k)) && !NEVER_FROM_WORKSPACE_ENV.contains(k)) {
                    env.put(k, v);
                }
            });
        } else {
            java.util.TreeMap<String, String> used = new java.util.TreeMap<>();
            // named from the config as written alone, before anything is put back: the item is then the same
            // whether its held-back settings are accepted or not, and one trust step accepts everything shown (a
            // reviewer's key variable the workspace replaced is not the workspace's .env to set meanwhile)
            java.util.Set<String> usedNames = usedEnvNames(asWritten);
            dotenv.forEach((k, v) -> {
                boolean exported = o.processEnv().get(k) != null && !o.processEnv().get(k).isEmpty();
                if (!v.isEmpty() && !exported && !NEVER_FROM_WORKSPACE_ENV.contains(k)
                        && (usedNames.contains(k) || (k.startsWith("MONO_AGENT_") && !EnvVars.isBinding(k))
                        || k.startsWith("CODEX_"))) {
                    used.put(k, v);
                }
            });
            if (!used.isEmpty()) {
                StringBuilder exact = new StringBuilder();
                used.forEach((k, v) -> exact.append(k).append('=').append(v).append('\n'));
                List<String> shown = new ArrayList<>();
                used.forEach((k, v) -> shown.add(k + "=" + shownEnvValue(k, v, usedNames)));
                TrustItem item = TrustItem.of(envFile.getFileName().toString(), String.join(", ", shown),
                        exact.toString(), envFile.getFileName().toString(), TrustItem.Kind.SENDS_CREDENTIAL);
                if (judged.accepts(item)) {
                    env.putAll(used);
                }
            }
        }

        List<String> warnings = new ArrayList<>(unusedInstructions);
        if (errors.isEmpty()) {
            // what the workspace wrote is checked too: a held-back value is still reported when it is malformed
            if (reverted) {
                List<ConfigError> written = new ArrayList<>();
                validate(asWritten, workspace, o.processEnv(), envNameOf, written, new ArrayList<>());
                errors.addAll(written);
            }
            List<ConfigError> effective = new ArrayList<>();
            validate(cfg, workspace, o.processEnv(), envNameOf, effective, warnings);
            effective.stream().filter(e -> !errors.contains(e)).forEach(errors::add);
        }
        if (!errors.isEmpty()) {
            WorkspaceTrust trust = new WorkspaceTrust(pending, acceptedItems, instructions);
            if (!pending.isEmpty()) {
                errors.add(new ConfigError("trust", trust.notice()));
            }
            throw new ConfigException(errors, workspace, trust);
        }
        return new LoadedConfig(configPath, exists, workspace, cfg, provenance, warnings, env, envFile,
                new WorkspaceTrust(pending, acceptedItems, instructions));
    }

    /**
     * Sorts trust items into accepted and pending against the reviewer's records, which are read once, and only when
     * some item is judged (a workspace that asks for nothing costs no read of the user config dir).
     */
    private static final class Judged {
        final List<TrustItem> pending = new ArrayList<>();
        final List<TrustItem> accepted = new ArrayList<>();
        private final TrustStore store;
        private final Path workspace;
        private java.util.Set<String> digests;

        Judged(TrustStore store, Path workspace) {
            this.store = store;
            this.workspace = workspace;
        }

        /** Whether the reviewer accepted exactly {@code item}; files it under accepted or pending. */
        boolean accepts(TrustItem item) {
            if (digests == null) {
                digests = store.accepted(workspace);
            }
            boolean ok = digests.contains(item.digest());
            (ok ? accepted : pending).add(item);
            return ok;
        }
    }

    /** The workspace files whose text becomes the agent's instructions once accepted. */
    public static final List<String> INSTRUCTION_FILES = List.of("IDENTITY.md", "SOUL.md");

    /** Instruction files larger than this are not read at all (they are prose, not a place for data). */
    static final int MAX_INSTRUCTION_BYTES = 64 * 1024;

    /**
     * Variables no env file sets, the workspace's accepted or not, nor one the reviewer names: they locate the
     * reviewer's own files (the trust records, the seal key, the sign-in, the engine cache) or the host's programs,
     * and every part of the product must find those in the same place, the exported environment's.
     */
    static final java.util.Set<String> NEVER_FROM_WORKSPACE_ENV = java.util.Set.of("HOME", "PATH", "USER",
            "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "MONO_AGENT_CONFIG_DIR",
            "MONO_AGENT_CACHE_DIR", EnvVars.WORKSPACE, "MONO_AGENT_JAVA_OPTS", "MONO_AGENT_JAR");

    /** A variable name that says it holds a secret. */
    private static final Pattern SECRET_NAME = Pattern.compile("KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL",
            Pattern.CASE_INSENSITIVE);

    /**
     * How a workspace {@code .env} value is shown to the reviewer who is asked to accept it: quoted on one line
     * ({@link dev.monoagent.common.Printable#line}, and a quote as {@code \"}, so one value cannot pass for the next
     * variable), or {@code (secret, N characters)} for a key: a name that says so, a provider's key variable, or one
     * the configuration reads a key from. mono-agent's own settings ({@code MONO_AGENT_*}, {@code CODEX_*}) are
     * shown unless their name says they are a secret, so a configuration that names one as a key variable cannot
     * hide an endpoint the reviewer accepts.
     */
    static String shownEnvValue(String name, String value, java.util.Set<String> keyNames) {
        boolean own = name.startsWith("MONO_AGENT_") || name.startsWith("CODEX_");
        if (SECRET_NAME.matcher(name).find() || ConfigView.PROVIDER_KEY_ENV.containsValue(name)
                || (keyNames.contains(name) && !own)) {
            return "(secret, " + value.length() + " characters)";
        }
        return "\"" + dev.monoagent.common.Printable.line(value).replace("\"", "\\\"") + "\"";
    }

    /** Names of the variables this configuration reads secrets from. */
    private static java.util.Set<String> usedEnvNames(MonoConfig cfg) {
        java.util.Set<String> out = new java.util.HashSet<>(ConfigView.PROVIDER_KEY_ENV.values());
        cfg.providers().values().forEach(p -> {
            if (p.apiKeyEnv() != null) {
                out.add(p.apiKeyEnv());
            }
        });
        String emb = cfg.memory().embeddings().apiKeyEnv();
        out.add(emb == null ? "OPENAI_API_KEY" : emb);
        return out;
    }

    /** Whether {@code p} is in {@code workspace}, by its path as written or by where it really leads. */
    static boolean inside(Path p, Path workspace) {
        Path abs = p.toAbsolutePath().normalize();
        Path ws = workspace.toAbsolutePath().normalize();
        if (abs.startsWith(ws)) {
            return true;
        }
        try {
            return abs.toRealPath().startsWith(ws.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The exact text of the instruction file {@code item} stands for, as it is now, when it is still the text the item
     * was made from (same length and digest); else null. What {@code trust} shows before accepting: the reviewer
     * accepts words they have read, not a size and a hash.
     */
    public static String instructionText(Path workspace, TrustItem item) {
        if (item.kind() != TrustItem.Kind.INSTRUCTIONS || !INSTRUCTION_FILES.contains(item.key())) {
            return null;
        }
        byte[] bytes = regularFileBytes(workspace.resolve(item.key()));
        if (bytes == null || !item.value().equals(bytes.length + " bytes, sha256 "
                + TrustItem.sha256(bytes).substring(0, 12))) {
            return null;
        }
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Why an instruction file that is there is not read, or null when it is absent (or readable). */
    private static String unusableInstructions(Path f) {
        if (Files.isSymbolicLink(f)) {
            return "it is a symbolic link (only a regular file in the workspace is read)";
        }
        if (!Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return "it is not a regular file";
        }
        try {
            long size = Files.size(f);
            return size > MAX_INSTRUCTION_BYTES ? "it is " + size + " bytes, over the " + MAX_INSTRUCTION_BYTES / 1024
                    + " KiB limit" : "it cannot be read";
        } catch (IOException e) {
            return "it cannot be read (" + e.getMessage() + ")";
        }
    }

    /** The bytes of a regular file (not a link), or null when absent, a link, too large or unreadable. */
    private static byte[] regularFileBytes(Path f) {
        try {
            if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    || Files.size(f) > MAX_INSTRUCTION_BYTES) {
                return null;
            }
            return Files.readAllBytes(f);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Where {@code p} really leads: its longest existing prefix with every link resolved, then the rest as written.
     */
    public static Path real(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path cur = abs;
        while (cur != null) {
            try {
                Path r = cur.toRealPath();
                return r.resolve(cur.relativize(abs)).normalize();
            } catch (IOException e) {
                cur = cur.getParent();
            }
        }
        return abs;
    }

    /**
     * Each root reached through a link a sandboxed command could have made: a link inside the workspace or another
     * writable root that leads out of it (the repository shipped it, or the agent made it in an earlier session at a
     * root's name, or on its way). Mounting such a root would mount what the link points at.
     */
    private static void rootsThroughLinks(MonoConfig cfg, Path workspace, Map<String, String> envNameOf,
                                          List<ConfigError> errors) {
        Path ws = workspace.toAbsolutePath().normalize();
        Path realWs = real(ws);
        List<Path> writable = new ArrayList<>();
        writable.add(realWs);
        cfg.sandbox().writableRoots().forEach(e -> writable.add(real(resolveEntry(workspace, e))));
        for (String key : List.of("sandbox.readableRoots", "sandbox.writableRoots")) {
            List<String> entries = key.endsWith("readableRoots") ? cfg.sandbox().readableRoots()
                    : cfg.sandbox().writableRoots();
            String name = envNameOf.getOrDefault(key, key);
            for (int i = 0; i < entries.size(); i++) {
                Path lexical = resolveEntry(workspace, entries.get(i));
                String shown = "%s[%d] \"%s\"".formatted(name, i, dev.monoagent.common.Printable.line(entries.get(i)));
                Path really = real(lexical);
                if (lexical.startsWith(ws) && !really.startsWith(realWs)) {
                    errors.add(new ConfigError(name + "[" + i + "]", shown + " is in the workspace as written but "
                            + "leads out of it through a symbolic link, to " + really + "; name that path itself "
                            + "if you mean it (a root outside the workspace waits for your acceptance)."));
                    continue;
                }
                String link = linkOutOfWritable(lexical, writable);
                if (link != null) {
                    errors.add(new ConfigError(name + "[" + i + "]", shown + " is reached through " + link
                            + "; a sandboxed command could have made that link. Remove it, or name the path it "
                            + "leads to if you mean it."));
                }
            }
        }
    }

    /**
     * The first link on {@code lexical}'s way that lies inside one of the {@code writable} roots (real paths) and
     * leads out of it, described; or null.
     */
    static String linkOutOfWritable(Path lexical, List<Path> writable) {
        Path at = lexical.getRoot();
        for (Path part : lexical) {
            Path next = at.resolve(part.toString());
            if (Files.isSymbolicLink(next)) {
                Path target = real(next);
                for (Path w : writable) {
                    if (next.startsWith(w) && !next.equals(w) && !target.startsWith(w)) {
                        return "the symbolic link " + dev.monoagent.common.Printable.line(next.toString())
                                + " inside writable root " + w + ", which leads out of it (to "
                                + dev.monoagent.common.Printable.line(target.toString()) + ")";
                    }
                }
                at = target;
            } else {
                at = next;
            }
        }
        return null;
    }

    /** A configured root as {@link LoadedConfig#resolve} reads it. */
    private static Path resolveEntry(Path workspace, String entry) {
        Path home = Path.of(System.getProperty("user.home"));
        if (entry.equals("~")) {
            return home;
        }
        if (entry.startsWith("~/")) {
            return home.resolve(entry.substring(2)).normalize();
        }
        return workspace.resolve(entry).normalize();
    }

    /** Which workspace file set the values under {@code paths}. */
    private static String sourceLabel(List<String> paths, Map<String, Source> provenance, Path configPath,
                                      Path envFile) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        provenance.forEach((k, src) -> {
            boolean under = paths.stream().anyMatch(p -> k.equals(p) || k.startsWith(p + ".") || k.startsWith(p + "["));
            if (under && src == Source.JSON) {
                out.add(configPath.getFileName().toString());
            } else if (under && src == Source.DOTENV && envFile != null) {
                out.add(envFile.getFileName().toString());
            }
        });
        return out.isEmpty() ? "the workspace" : String.join(" and ", out);
    }

    /** The workspace a load resolved and what waits there for the reviewer. */
    public record Pending(Path workspace, WorkspaceTrust trust) {}

    /**
     * What waits for the reviewer under these options, also when the load fails after the trust boundary (a model
     * on a held-back provider); a load that fails before it throws.
     */
    public static Pending pending(Options o) throws ConfigException {
        try {
            LoadedConfig lc = load(o);
            return new Pending(lc.workspace(), lc.trust());
        } catch (ConfigException e) {
            if (e.trust() == null) {
                throw e;
            }
            return new Pending(e.workspace(), e.trust());
        }
    }

    /**
     * Records every setting that waits in {@code trust} as accepted for {@code workspace} by the reviewer whose
     * exported environment is {@code env}; returns the record file.
     */
    public static Path accept(Map<String, String> env, Path workspace, WorkspaceTrust trust) throws IOException {
        TrustStore store = TrustStore.of(env);
        store.accept(workspace, trust.pending());
        return store.fileFor(workspace);
    }

    /** Deep merge: objects merge key by key, anything else in {@code over} replaces. */
    private static void merge(ObjectNode base, ObjectNode over) {
        over.fields().forEachRemaining(e -> {
            JsonNode cur = base.get(e.getKey());
            if (cur instanceof ObjectNode co && e.getValue() instanceof ObjectNode eo) {
                merge(co, eo);
            } else {
                base.set(e.getKey(), e.getValue().deepCopy());
            }
        });
    }

    private static JsonNode at(ObjectNode root, String path) {
        JsonNode cur = root;
        for (String part : path.split("\\.")) {
            cur = cur == null ? null : cur.get(part);
        }
        return cur;
    }

    private static void remove(ObjectNode root, String path) {
        String[] parts = path.split("\\.");
        JsonNode cur = root;
        for (int i = 0; i < parts.length - 1 && cur != null; i++) {
            cur = cur.get(parts[i]);
        }
        if (cur instanceof ObjectNode on) {
            on.remove(parts[parts.length - 1]);
        }
    }

    private static ObjectNode readJson(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(file.getFileName().toString(), "cannot read " + file + ": " + e.getMessage());
        }
        if (text.isBlank()) {
            throw new ConfigException("config", file + " is empty; expected a JSON object (try mono-agent init).");
        }
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line %d, column %d".formatted(at.getLineNr(), at.getColumnNr());
            throw new ConfigException("config", "%s is not valid JSON%s: %s"
                    .formatted(file.getFileName(), where, e.getOriginalMessage()));
        }
        if (node == null || !node.isObject()) {
            throw new ConfigException("config", file.getFileName() + " must hold a JSON object at the top level.");
        }
        return (ObjectNode) node;
    }

    private static void markJson(JsonNode node, String path, Source source, Map<String, Source> provenance) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                markJson(e.getValue(), RecordBinder.child(path, e.getKey()), source, provenance);
            }
        }
        if (!path.isEmpty()) {
            provenance.put(path, source);
        }
    }

    private static JsonNode envNode(String value, EnvVars.Kind kind) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (kind) {
            case STRING -> f.textNode(value.trim());
            case BOOL -> switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "true", "1", "yes" -> f.booleanNode(true);
                case "false", "0", "no" -> f.booleanNode(false);
                default -> f.textNode(value.trim());
            };
            case LIST -> {
                ArrayNode a = f.arrayNode();
                for (String part : value.split(",")) {
                    if (!part.isBlank()) {
                        a.add(part.trim());
                    }
                }
                yield a;
            }
        };
    }

    private static void put(ObjectNode root, String path, JsonNode value) {
        String[] parts = path.split("\\.");
        ObjectNode cur = root;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode next = cur.get(parts[i]);
            if (!(next instanceof ObjectNode)) {
                if (next != null) {
                    return; // a wrong type in JSON; the binder reports it
                }
                next = cur.putObject(parts[i]);
            }
            cur = (ObjectNode) next;
        }
        cur.set(parts[parts.length - 1], value);
    }

    private static void validate(MonoConfig cfg, Path workspace, Map<String, String> processEnv,
                                 Map<String, String> envNameOf, List<ConfigError> errors, List<String> warnings) {
        MonoConfig.Sandbox sb = cfg.sandbox();
        HomeRoots.check(cfg, workspace, processEnv, envNameOf, errors);
        rootsThroughLinks(cfg, workspace, envNameOf, errors);
        RootsCheck.problems(cfg, workspace, sb.readableRoots().stream().map(e -> resolveEntry(workspace, e)).toList(),
                sb.writableRoots().stream().map(e -> resolveEntry(workspace, e)).toList(),
                envNameOf.getOrDefault("sandbox.readableRoots", "sandbox.readableRoots")).stream()
                .filter(e -> !errors.contains(e)).forEach(errors::add);
        String fallbackName = envNameOf.getOrDefault("sandbox.fallback", "sandbox.fallback");
        if (sb.fallback() == Enums.Fallback.UNSAFE_HOST_PROCESS && !sb.unsafeAllowHostProcess()) {
            errors.add(new ConfigError(fallbackName, fallbackName + " is unsafe-host-process but "
                    + envNameOf.getOrDefault("sandbox.unsafeAllowHostProcess", "sandbox.unsafeAllowHostProcess")
                    + " is not true; set both to run commands unsandboxed on the host, or use fail-closed."));
        }
        if (sb.unsafeAllowHostProcess() && sb.fallback() == Enums.Fallback.FAIL_CLOSED) {
            warnings.add("sandbox.unsafeAllowHostProcess is true but sandbox.fallback is fail-closed; "
                    + "the flag has no effect.");
        }
        nonBlank(sb.readableRoots(), "sandbox.readableRoots", envNameOf, errors);
        nonBlank(sb.writableRoots(), "sandbox.writableRoots", envNameOf, errors);
        nonBlank(sb.denyWrite(), "sandbox.denyWrite", envNameOf, errors);
        List<String> allow = sb.network().allowlist();
        String allowName = envNameOf.getOrDefault("sandbox.network.allowlist", "sandbox.network.allowlist");
        for (int i = 0; i < allow.size(); i++) {
            String why = allowlistProblem(allow.get(i));
            if (why != null) {
                errors.add(new ConfigError(allowName + "[" + i + "]", "%s[%d] \"%s\" is not a host suffix: %s."
                        .formatted(allowName, i, allow.get(i), why)));
            }
        }
        if (!allow.isEmpty() && sb.network().mode() != Enums.NetworkMode.ALLOWLIST) {
            warnings.add("sandbox.network.allowlist is set but sandbox.network.mode is "
                    + sb.network().mode().wire() + "; the allowlist is ignored.");
        }
        Set<String> extraProviders = new HashSet<>(cfg.providers().keySet());
        for (Map.Entry<String, MonoConfig.Provider> p : cfg.providers().entrySet()) {
            String base = p.getValue().baseUrl();
            String field = "providers." + p.getKey() + ".baseUrl";
            if (base == null && !ModelRefGrammar.BUILT_IN_PROVIDERS.contains(p.getKey())) {
                errors.add(new ConfigError(field, field + " is required for a provider that is not built in."));
            } else if (base != null && !base.matches("https?://[^\\s]+")) {
                errors.add(new ConfigError(field, field + " must be an http:// or https:// URL, got \"" + base + "\"."));
            }
        }
        String model = cfg.runtime().model();
        if (model != null) {
            try {
                ModelRefGrammar.parse(model, envNameOf.getOrDefault("runtime.model", "runtime.model"), extraProviders);
            } catch (ConfigException e) {
                errors.addAll(e.errors());
            }
        }
    }

    private static void nonBlank(List<String> list, String path, Map<String, String> envNameOf,
                                 List<ConfigError> errors) {
        String name = envNameOf.getOrDefault(path, path);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).isBlank()) {
                errors.add(new ConfigError(name + "[" + i + "]", name + "[" + i + "] is empty."));
            }
        }
    }

    /** Why an allowlist entry is not a host suffix, or null when it is one. */
    static String allowlistProblem(String entry) {
        if (entry.equals("*")) {
            return "a bare * would allow every host; use network.mode all instead";
        }
        if (entry.contains("/")) {
            return "CIDR ranges and paths are not supported";
        }
        if (entry.contains("[") || entry.chars().filter(c -> c == ':').count() > 1) {
            return "IPv6 literals are not supported";
        }
        if (entry.contains(":")) {
            return "ports are not supported";
        }
        if (!HOST_SUFFIX.matcher(entry).matches()) {
            return "expected a host name like example.com or *.example.com";
        }
        return null;
    }
}
