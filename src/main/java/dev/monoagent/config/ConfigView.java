package dev.monoagent.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** A flat, printable view of a loaded config: every leaf with its value and source, and secret presence. */
public final class ConfigView {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Env vars that hold provider credentials for the built-in providers. */
    public static final Map<String, String> PROVIDER_KEY_ENV = Map.of(
            "openai", "OPENAI_API_KEY",
            "anthropic", "ANTHROPIC_API_KEY",
            "openrouter", "OPENROUTER_API_KEY");

    private ConfigView() {}

    /** One resolved value. */
    public record Leaf(String path, String value, Source source) {}

    public static List<Leaf> leaves(LoadedConfig lc) {
        List<Leaf> out = new ArrayList<>();
        walk(lc.config(), "", lc, out);
        return out;
    }

    private static void walk(Object value, String path, LoadedConfig lc, List<Leaf> out) {
        if (value instanceof Record r) {
            for (RecordComponent rc : r.getClass().getRecordComponents()) {
                walk(RecordBinder.component(r, rc), RecordBinder.child(path, rc.getName()), lc, out);
            }
        } else if (value instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                out.add(new Leaf(path, "{}", lc.sourceOf(path)));
            }
            for (Map.Entry<?, ?> e : m.entrySet()) {
                walk(e.getValue(), RecordBinder.child(path, String.valueOf(e.getKey())), lc, out);
            }
        } else {
            out.add(new Leaf(path, render(value), lc.sourceOf(path)));
        }
    }

    private static String render(Object v) {
        if (v == null) {
            return "(unset)";
        }
        Object plain = v instanceof WireEnum w ? w.wire() : v;
        try {
            return JSON.writeValueAsString(plain);
        } catch (JsonProcessingException e) {
            return String.valueOf(v);
        }
    }

    /**
     * How the sandbox in effect is weaker than the playbook's (native, fail-closed, network none or localhost, roots
     * inside the workspace, the default denyWrite globs kept), one clause each; empty when it is not. The first clause
     * is the sandbox being off, when it is.
     */
    public static List<String> weakerThanPlaybook(LoadedConfig lc) {
        MonoConfig.Sandbox sb = lc.config().sandbox();
        List<String> out = new ArrayList<>();
        if (sb.mode() == Enums.SandboxMode.OFF) {
            out.add("the sandbox is OFF: commands run on the host with your permissions");
        }
        if (sb.unsafeFallbackAllowed()) {
            out.add("fallback unsafe-host-process: commands run on the host when the engine is unavailable");
        }
        if (sb.network().mode() == Enums.NetworkMode.ALL) {
            out.add("network all: commands reach any host");
        } else if (sb.network().mode() == Enums.NetworkMode.ALLOWLIST) {
            out.add("network allowlist: commands reach " + sb.network().allowlist());
        }
        for (Path p : lc.writableRoots()) {
            if (!p.startsWith(lc.workspace())) {
                out.add("writable outside the workspace: " + p);
            }
        }
        for (Path p : lc.readableRoots()) {
            if (!p.startsWith(lc.workspace())) {
                out.add("readable outside the workspace: " + p);
            }
        }
        List<String> dropped = MonoConfig.Sandbox.DEFAULT_DENY_WRITE.stream()
                .filter(g -> !sb.denyWrite().contains(g)).toList();
        if (!dropped.isEmpty()) {
            out.add("denyWrite no longer protects " + String.join(", ", dropped));
        }
        return out;
    }

    /** The warning line for {@link #weakerThanPlaybook}, or null when the sandbox is the playbook's or stricter. */
    public static String weakerWarning(LoadedConfig lc) {
        List<String> w = weakerThanPlaybook(lc);
        return w.isEmpty() ? null : "WARNING: sandbox weaker than the playbook's: " + String.join("; ", w) + ".";
    }

    /** Names of env vars that hold secrets this config may use, mapped to whether each is set. */
    public static Map<String, Boolean> secrets(LoadedConfig lc) {
        TreeSet<String> names = new TreeSet<>(PROVIDER_KEY_ENV.values());
        lc.config().providers().values().forEach(p -> {
            if (p.apiKeyEnv() != null) {
                names.add(p.apiKeyEnv());
            }
        });
        if (lc.config().memory().embeddings().apiKeyEnv() != null) {
            names.add(lc.config().memory().embeddings().apiKeyEnv());
        }
        Map<String, Boolean> out = new LinkedHashMap<>();
        names.forEach(n -> out.put(n, lc.envValue(n) != null));
        return out;
    }
}
