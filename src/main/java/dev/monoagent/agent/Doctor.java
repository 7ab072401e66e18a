package dev.monoagent.agent;

import dev.monoagent.config.ConfigView;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.ModelRef;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.config.Presets;
import dev.monoagent.model.auth.AuthStatus;
import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.model.auth.CodexAuthSettings;
import dev.monoagent.model.auth.CredentialState;
import dev.monoagent.sandbox.SandboxStatus;
import dev.monoagent.tools.ToolPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks behind {@code mono-agent validate} (alias {@code doctor}): one {@link Section} per concern, each
 * {@code ok|waiting|disabled|error} with detail lines. Pure apart from reading the workspace; printing is the CLI's.
 * Only {@code error} blocks a start; {@code waiting} means "structurally valid, needs attention".
 */
public final class Doctor {

    private static final Pattern SECRET_VALUE = Pattern.compile(
            "(sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}|xox[bap]-[A-Za-z0-9-]{10,}"
                    + "|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})");

    /** MONO_AGENT_* variables that are read outside the config (launcher, engine cache, workspace). */
    static final Set<String> NON_CONFIG_ENV = Set.of(dev.monoagent.config.EnvVars.WORKSPACE, "MONO_AGENT_JAVA",
            "MONO_AGENT_JAVA_OPTS", "MONO_AGENT_JAR", "MONO_AGENT_CACHE_DIR", CodexAuthSettings.ENV_CONFIG_DIR,
            CodexAuthSettings.ENV_ISSUER, CodexAuthSettings.ENV_CLIENT_ID, CodexAuthSettings.ENV_CALLBACK_PORT);

    private Doctor() {}

    /** Section status words, as printed. */
    public enum Status {
        OK("ok"), WAITING("waiting"), DISABLED("disabled"), ERROR("error");
        private final String word;

        Status(String w) {
            word = w;
        }

        public String word() {
            return word;
        }
    }

    /** One section of the report; waiting details start with {@code [WARN]}. */
    public record Section(String id, String title, Status status, List<String> details) {
        public Section {
            details = List.copyOf(details);
        }
    }

    /**
     * What the sandbox engine said about itself, supplied by the caller (the engine is proven elsewhere).
     *
     * @param proven  the effective engine passed its functional self-check
     * @param details lines to show (engine, source, reason)
     */
    public record SandboxVerdict(boolean proven, List<String> details) {}

    /** The whole report. */
    public record Report(List<Section> sections, String preset) {
        public boolean hasError() {
            return sections.stream().anyMatch(s -> s.status() == Status.ERROR);
        }

        public boolean ready() {
            return sections.stream().noneMatch(s -> s.status() == Status.ERROR || s.status() == Status.WAITING);
        }

        public String closingLine() {
            if (hasError()) {
                return "Config has errors; fix the sections marked error before start.";
            }
            return ready() ? "Config is ready to start."
                    : "Config is structurally valid, but needs attention before start.";
        }
    }

    public static Report run(LoadedConfig lc, SandboxVerdict sandbox, String presetId) {
        List<Section> s = new ArrayList<>();
        s.add(runtime(lc));
        s.add(credentials(lc));
        s.add(warnings(lc));
        s.add(workspaceTrust(lc));
        s.add(memory(lc));
        s.add(tools(lc));
        s.add(sandbox(lc, sandbox));
        s.add(runsHealth(lc));
        s.add(secretPlacement(lc));
        if (presetId != null) {
            s.add(preset(lc, presetId));
        }
        return new Report(List.copyOf(s), presetId);
    }

    static Section runtime(LoadedConfig lc) {
        String model = lc.config().runtime().model();
        if (model == null || model.isBlank()) {
            // the window, its consoles and tools call are useful without a model; only a prompt or run needs one
            return new Section("runtime", "Runtime", Status.WAITING, List.of("[WARN] runtime.model is not set: "
                    + "prompts and mono-agent run are refused until it is; set it in mono-agent.config.json or "
                    + "MONO_AGENT_MODEL (e.g. openai-codex:gpt-5.6-terra)."));
        }
        ModelRef ref = parseKnownGood(lc);
        return new Section("runtime", "Runtime", Status.OK, List.of("model: " + ref + " (provider " + ref.provider()
                + ", from " + lc.sourceOf("runtime.model").tag() + ")"));
    }

    private static ModelRef parseKnownGood(LoadedConfig lc) {
        try {
            return ModelRef.parse(lc.config().runtime().model(), "runtime.model", lc.config().providers().keySet());
        } catch (dev.monoagent.config.ConfigException e) {
            throw new IllegalStateException("the loader validated runtime.model", e);
        }
    }

    static Section credentials(LoadedConfig lc) {
        String model = lc.config().runtime().model();
        if (model == null || model.isBlank()) {
            return new Section("provider-credentials", "Provider credentials", Status.WAITING,
                    List.of("[WARN] No model configured, so no provider to check."));
        }
        String provider = parseKnownGood(lc).provider();
        MonoConfig.Provider custom = lc.config().providers().get(provider);
        String keyEnv = custom != null && custom.apiKeyEnv() != null ? custom.apiKeyEnv()
                : ConfigView.PROVIDER_KEY_ENV.get(provider);
        if (provider.equals(CodexAuth.PROVIDER)) {
            return codexCredentials(lc);
        }
        if (keyEnv == null) {
            return new Section("provider-credentials", "Provider credentials", Status.OK,
                    List.of(provider + ": local provider, no API key needed."));
        }
        // the value is never shown, only whether it is there
        return lc.envValue(keyEnv) != null
                ? new Section("provider-credentials", "Provider credentials", Status.OK,
                        List.of(provider + ": present (" + keyEnv + " is set)."))
                : new Section("provider-credentials", "Provider credentials", Status.WAITING,
                        List.of("[WARN] " + provider + ": missing (" + keyEnv + " is not set; export it or put it in "
                                + ".env)."));
    }

    /** The ChatGPT sign-in's state: present is ok; expired and missing wait, naming the command that fixes them. */
    static Section codexCredentials(LoadedConfig lc) {
        AuthStatus st;
        try {
            st = CodexAuth.fromEnv(lc.env()).status();
        } catch (dev.monoagent.model.auth.InvalidSettingException e) {
            return new Section("provider-credentials", "Provider credentials", Status.ERROR,
                    List.of("openai-codex: " + e.getMessage()));
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            return new Section("provider-credentials", "Provider credentials", Status.WAITING,
                    List.of("[WARN] openai-codex: cannot read the sign-in: " + e.getMessage()));
        }
        List<String> lines = new ArrayList<>();
        boolean ok = st.state() == CredentialState.PRESENT;
        lines.add((ok ? "" : "[WARN] ") + "openai-codex: " + st.state().word() + " (ChatGPT sign-in)");
        st.details().forEach(d -> lines.add(ok ? d : "[WARN] " + d));
        return new Section("provider-credentials", "Provider credentials", ok ? Status.OK : Status.WAITING, lines);
    }

    static Section warnings(LoadedConfig lc) {
        List<String> lines = new ArrayList<>();
        lc.warnings().forEach(w -> lines.add("[WARN] " + w));
        Set<String> known = new java.util.HashSet<>(NON_CONFIG_ENV);
        dev.monoagent.config.EnvVars.BINDINGS.forEach(b -> known.add(b.env()));
        lc.env().keySet().stream().filter(k -> k.startsWith("MONO_AGENT_") && !known.contains(k)).sorted()
                .forEach(k -> lines.add("[WARN] " + k + " is not a mono-agent setting and is ignored."
                        + hint(k, known)));
        if (!lc.configExists()) {
            lines.add("[WARN] No config file at " + lc.configPath() + " (run mono-agent init).");
        }
        return lines.isEmpty() ? new Section("config-warnings", "Config warnings", Status.OK, List.of("No warnings."))
                : new Section("config-warnings", "Config warnings", Status.WAITING, lines);
    }

    private static String hint(String k, Set<String> known) {
        String s = dev.monoagent.config.Suggest.closest(k, known);
        return s == null ? "" : " Did you mean " + s + "?";
    }

    static Section memory(LoadedConfig lc) {
        dev.monoagent.memory.MemoryHealth.Report r = dev.monoagent.memory.MemoryHealth.check(lc);
        Status st = switch (r.level()) {
            case OK -> Status.OK;
            case WAITING -> Status.WAITING;
            case ERROR -> Status.ERROR;
        };
        return new Section("memory", "Memory", st, r.lines());
    }

    static Section tools(LoadedConfig lc) {
        ToolPolicy.Result r = ToolPolicy.of(lc.config().tools());
        if (r instanceof ToolPolicy.Result.Invalid inv) {
            return new Section("tools", "Tools & MCP", Status.ERROR,
                    inv.errors().stream().map(e -> "[" + e.code() + "] " + e.message()).toList());
        }
        ToolPolicy p = ((ToolPolicy.Result.Valid) r).policy();
        if (p.chatOnly()) {
            return new Section("tools", "Tools & MCP", Status.WAITING, List.of("[WARN] " + ToolPolicy.CHAT_ONLY,
                    "No MCP servers configured."));
        }
        return new Section("tools", "Tools & MCP", Status.OK, List.of(p.summary(), "No MCP servers configured."));
    }

    /** What the workspace's own files ask for that waits for the reviewer (docs/trust.md). */
    static Section workspaceTrust(LoadedConfig lc) {
        dev.monoagent.config.WorkspaceTrust t = lc.trust();
        if (t.settled()) {
            return new Section("workspace-trust", "Workspace trust", Status.OK, List.of(t.accepted().isEmpty()
                    ? "Nothing from the workspace waits for your acceptance."
                    : "Nothing waits; " + t.accepted().size() + " workspace setting(s) accepted earlier are in effect "
                    + "(mono-agent trust --show)."));
        }
        List<String> lines = new ArrayList<>();
        t.pending().forEach(i -> lines.add("[WARN] not in effect: " + i.line()));
        lines.add("[WARN] Review with " + dev.monoagent.config.WorkspaceTrust.ACCEPT_COMMAND + " --show; accept with "
                + dev.monoagent.config.WorkspaceTrust.ACCEPT_COMMAND + ".");
        return new Section("workspace-trust", "Workspace trust", Status.WAITING, lines);
    }

    static Section sandbox(LoadedConfig lc, SandboxVerdict v) {
        MonoConfig.Sandbox sb = lc.config().sandbox();
        if (sb.mode() == SandboxMode.OFF) {
            return new Section("sandbox", "Sandbox", Status.DISABLED, List.of(SandboxStatus.OFF_DETAIL));
        }
        List<String> lines = new ArrayList<>();
        lines.add("mode: native, network: " + sb.network().mode().wire() + ", fallback: " + sb.fallback().wire());
        lines.addAll(dev.monoagent.sandbox.ReadScope.describe(lc.readableRoots(), lc.writableRoots(),
                Path.of(System.getProperty("user.home"))));
        // the version-manager roots opened for PATH tools, and each PATH tool that still cannot run inside
        List<Path> roots = new ArrayList<>(lc.readableRoots());
        roots.addAll(lc.writableRoots());
        lines.addAll(dev.monoagent.sandbox.Toolchains.check(dev.monoagent.host.HostEnv.from(lc.env()), roots));
        if (sb.unsafeFallbackAllowed()) {
            lines.add(SandboxStatus.UNSAFE_WARNING);
        }
        dev.monoagent.config.ConfigView.weakerThanPlaybook(lc)
                .forEach(w -> lines.add("[WARN] weaker than the playbook's: " + w));
        if (v.proven()) {
            lines.addAll(v.details());
            return new Section("sandbox", "Sandbox", Status.OK, lines);
        }
        v.details().forEach(d -> lines.add("[WARN] " + d));
        if (sb.fallback() == Fallback.FAIL_CLOSED) {
            lines.add("[WARN] Commands will return sandbox_prepare_failed until the engine is proven; start will "
                    + "not relax the fail-closed policy.");
        }
        return new Section("sandbox", "Sandbox", Status.WAITING, lines);
    }

    public static Section runsHealth(LoadedConfig lc) {
        Path runs = lc.stateDir().resolve("runs");
        if (!Files.isDirectory(runs)) {
            return new Section("runs-health", "Runs health", Status.OK, List.of("No runs yet."));
        }
        try (var s = Files.list(runs)) {
            s.count(); // the directory is readable
            List<RunRecords.Summary> all = RunRecords.list(lc.workspace(),
                    dev.monoagent.memory.MemoryStore.sealEnv(lc));
            List<String> foreign = all.stream().filter(r -> !r.recorded()).map(RunRecords.Summary::runId).toList();
            List<String> lines = new ArrayList<>();
            lines.add((all.size() - foreign.size()) + " run log(s) recorded on this machine in " + runs + ".");
            if (!foreign.isEmpty()) {
                lines.add("[WARN] " + foreign.size() + " run log(s) not recorded here (ignored: they came with the "
                        + "workspace or were changed since): " + String.join(", ", foreign));
            }
            return new Section("runs-health", "Runs health", Status.OK, lines);
        } catch (IOException e) {
            return new Section("runs-health", "Runs health", Status.WAITING,
                    List.of("[WARN] cannot list " + runs + ": " + e.getMessage()));
        }
    }

    static Section secretPlacement(LoadedConfig lc) {
        List<String> errors = new ArrayList<>();
        List<String> warns = new ArrayList<>();
        if (lc.configExists()) {
            try {
                String text = Files.readString(lc.configPath(), StandardCharsets.UTF_8);
                if (SECRET_VALUE.matcher(text).find()) {
                    errors.add(lc.configPath().getFileName() + " contains what looks like an API key or token; "
                            + "move it to .env and reference it by env var name.");
                }
            } catch (IOException e) {
                warns.add("[WARN] cannot read " + lc.configPath() + ": " + e.getMessage());
            }
        }
        Path env = lc.workspace().resolve(".env");
        if (Files.isRegularFile(env)) {
            try {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(env);
                if (perms.contains(PosixFilePermission.OTHERS_READ)) {
                    warns.add("[WARN] .env is readable by other users (chmod 600 .env).");
                }
            } catch (IOException | UnsupportedOperationException e) {
                warns.add("[WARN] cannot read the permissions of .env: " + e.getMessage());
            }
            if (Files.isDirectory(lc.workspace().resolve(".git")) && !gitignored(lc.workspace(), ".env")) {
                warns.add("[WARN] .env is not listed in .gitignore; it could be committed.");
            }
        }
        if (!errors.isEmpty()) {
            return new Section("secret-placement", "Secret placement", Status.ERROR, errors);
        }
        if (!warns.isEmpty()) {
            return new Section("secret-placement", "Secret placement", Status.WAITING, warns);
        }
        return new Section("secret-placement", "Secret placement", Status.OK,
                List.of("No secrets in the config file; .env is never writable by the agent."));
    }

    private static boolean gitignored(Path ws, String name) {
        try {
            return Files.readAllLines(ws.resolve(".gitignore")).stream().map(String::strip)
                    .anyMatch(l -> l.equals(name) || l.equals("/" + name) || l.equals(".env*"));
        } catch (IOException e) {
            return false;
        }
    }

    static Section preset(LoadedConfig lc, String id) {
        Presets.Preset p = Presets.find(id).orElseThrow(() -> new IllegalArgumentException(id));
        List<String> lines = new ArrayList<>();
        boolean allOk = true;
        for (Presets.Expectation e : p.expectations()) {
            boolean holds = e.holds().test(lc.config());
            allOk &= holds;
            lines.add(holds ? "ok: " + e.text() : "[WARN] expected " + e.text());
        }
        return new Section("preset", "Preset " + id, allOk ? Status.OK : Status.WAITING, lines);
    }

    /** Converts the report to the {@code --json} shape {@code {ok, sections:[{id,status,details}], preset}}. */
    public static Map<String, Object> toJson(Report r) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("ok", r.ready());
        m.put("sections", r.sections().stream().map(s -> {
            Map<String, Object> o = new java.util.LinkedHashMap<>();
            o.put("id", s.id());
            o.put("status", s.status().word());
            o.put("details", s.details());
            return o;
        }).toList());
        if (r.preset() != null) {
            m.put("preset", r.preset());
        }
        return m;
    }
}
