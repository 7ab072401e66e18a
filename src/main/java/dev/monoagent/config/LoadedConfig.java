package dev.monoagent.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A configuration after loading: the records, where each value came from, and the paths it was resolved against.
 *
 * @param configPath   absolute path of the config file (which may not exist)
 * @param configExists whether the file was there
 * @param workspace    the agent folder; relative roots and globs resolve against it
 * @param config       the bound, validated records
 * @param provenance   source of every key path that was set by JSON or env (absent = default)
 * @param warnings     non-fatal problems, one sentence each
 * @param env          the effective environment (exported vars over {@code .env}), for secret lookups
 * @param envFile      absolute path of the env file that was read ({@code --env-file} or {@code <workspace>/.env}),
 *                     or null when none was: the sandbox protects it like the config file
 * @param trust        what the trust boundary held back from the workspace's own files, and what the reviewer accepted
 */
public record LoadedConfig(Path configPath, boolean configExists, Path workspace, MonoConfig config,
                           Map<String, Source> provenance, List<String> warnings, Map<String, String> env,
                           Path envFile, WorkspaceTrust trust) {

    /** A config whose every source is the reviewer's (nothing held back). */
    public LoadedConfig(Path configPath, boolean configExists, Path workspace, MonoConfig config,
                        Map<String, Source> provenance, List<String> warnings, Map<String, String> env,
                        Path envFile) {
        this(configPath, configExists, workspace, config, provenance, warnings, env, envFile, WorkspaceTrust.NONE);
    }

    /** A config that read no env file. */
    public LoadedConfig(Path configPath, boolean configExists, Path workspace, MonoConfig config,
                        Map<String, Source> provenance, List<String> warnings, Map<String, String> env) {
        this(configPath, configExists, workspace, config, provenance, warnings, env, null);
    }

    public LoadedConfig {
        provenance = Map.copyOf(provenance);
        warnings = List.copyOf(warnings);
        env = Map.copyOf(env);
        trust = trust == null ? WorkspaceTrust.NONE : trust;
    }

    /** Where the value at {@code path} came from. */
    public Source sourceOf(String path) {
        return provenance.getOrDefault(path, Source.DEFAULT);
    }

    /** Resolves a configured root against the workspace (absolute entries and {@code ~/} are kept as written). */
    public Path resolve(String entry) {
        if (entry.equals("~")) {
            return Path.of(System.getProperty("user.home"));
        }
        if (entry.startsWith("~/")) {
            return Path.of(System.getProperty("user.home")).resolve(entry.substring(2)).normalize();
        }
        return workspace.resolve(entry).normalize();
    }

    public List<Path> readableRoots() {
        return resolveAll(config.sandbox().readableRoots());
    }

    public List<Path> writableRoots() {
        return resolveAll(config.sandbox().writableRoots());
    }

    private List<Path> resolveAll(List<String> entries) {
        List<Path> out = new ArrayList<>();
        for (String e : entries) {
            out.add(resolve(e));
        }
        return List.copyOf(out);
    }

    /** The state dir {@code <workspace>/.mono-agent}. */
    public Path stateDir() {
        return workspace.resolve(".mono-agent");
    }

    /** The effective value of an env var, or null when unset or empty. */
    public String envValue(String name) {
        String v = env.get(name);
        return v == null || v.isEmpty() ? null : v;
    }
}
