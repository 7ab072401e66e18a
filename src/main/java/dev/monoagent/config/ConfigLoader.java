package dev.monoagent.config;

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
 * Loads the configuration once: JSON file, then {@code .env}, then exported env vars on top
 * (exported &gt; {@code .env} &gt; JSON &gt; default; {@code KEY=} counts as unset), binds it onto the records and
 * validates it. Every problem is reported with the field (or env var) it concerns.
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

        Map<String, String> env = new HashMap<>(dotenv);
        for (Map.Entry<String, String> e : o.processEnv().entrySet()) {
            if (!e.getValue().isEmpty() || !dotenv.containsKey(e.getKey())) {
                env.put(e.getKey(), e.getValue());
            }
        }

        boolean exists = Files.isRegularFile(configPath);
        ObjectNode root = exists ? readJson(configPath) : JsonNodeFactory.instance.objectNode();

        Map<String, Source> provenance = new LinkedHashMap<>();
        markJson(root, "", provenance);
        Map<String, String> envNameOf = new HashMap<>();
        for (EnvVars.Binding b : EnvVars.BINDINGS) {
            String exported = o.processEnv().get(b.env());
            String fromFile = dotenv.get(b.env());
            String value;
            Source src;
            if (exported != null && (!exported.isEmpty() || EnvVars.emptyIsMeaningful(b.env()))) {
                value = exported;
                src = Source.ENV;
            } else if (fromFile != null && (!fromFile.isEmpty() || EnvVars.emptyIsMeaningful(b.env()))) {
                value = fromFile;
                src = Source.DOTENV;
            } else {
                continue;
            }
            put(root, b.path(), envNode(value, b.kind()));
            provenance.put(b.path(), src);
            envNameOf.put(b.path(), b.env());
        }

        RecordBinder binder = new RecordBinder(path -> {
            String base = path.replaceAll("\\[\\d+]$", "");
            String envName = envNameOf.get(base);
            return envName == null ? path : envName + (path.equals(base) ? "" : path.substring(base.length()));
        });
        MonoConfig cfg = binder.bindRecord(root, MonoConfig.class, "", MonoConfig.DEFAULTS);
        List<ConfigError> errors = new ArrayList<>(binder.errors());
        List<String> warnings = new ArrayList<>();
        if (errors.isEmpty()) {
            validate(cfg, workspace, envNameOf, errors, warnings);
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return new LoadedConfig(configPath, exists, workspace, cfg, provenance, warnings, env, envFile);
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

    private static void markJson(JsonNode node, String path, Map<String, Source> provenance) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                markJson(e.getValue(), RecordBinder.child(path, e.getKey()), provenance);
            }
        }
        if (!path.isEmpty()) {
            provenance.put(path, Source.JSON);
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

    private static void validate(MonoConfig cfg, Path workspace, Map<String, String> envNameOf,
                                 List<ConfigError> errors, List<String> warnings) {
        MonoConfig.Sandbox sb = cfg.sandbox();
        HomeRoots.check(cfg, workspace, envNameOf, errors);
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
