package dev.monoagent.config;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.MemoryMode;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.ProviderApi;
import dev.monoagent.config.Enums.SandboxMode;
import java.util.List;
import java.util.Map;

/**
 * The whole agent configuration as read from {@code mono-agent.config.json}, overlaid with env vars.
 * Every record has a {@code DEFAULTS} constant; that constant is the one place defaults live (the binder, the
 * schema generator and {@code init} all read it). Lists and maps are immutable.
 */
@Doc("mono-agent agent configuration (mono-agent.config.json).")
public record MonoConfig(
        @Doc("Agent identity and loop limits.") Agent agent,
        @Doc("Model runtime.") Runtime runtime,
        @Doc("Extra or overridden model providers, by name (e.g. an openai_compat endpoint).")
                Map<String, Provider> providers,
        @Doc("Context window handling.") Context context,
        @Doc("Which tools the model may call.") Tools tools,
        @Doc("The OS sandbox every command runs in.") Sandbox sandbox,
        @Doc("Long-term memory.") Memory memory,
        @Doc("Background process jobs (JSON only).") ProcessJobs processJobs,
        @Doc("Output monitors that wake the agent (JSON only).") Monitors monitors) {

    public static final MonoConfig DEFAULTS = new MonoConfig(Agent.DEFAULTS, Runtime.DEFAULTS, Map.of(),
            Context.DEFAULTS, Tools.DEFAULTS, Sandbox.DEFAULTS, Memory.DEFAULTS, ProcessJobs.DEFAULTS,
            Monitors.DEFAULTS);

    public MonoConfig {
        providers = Map.copyOf(providers);
    }

    /** {@code agent}. */
    public record Agent(
            @Doc("Display name of the agent.") String name,
            @Doc("Maximum model turns per run.") @Range(min = 1, max = 1000) int maxTurns) {
        public static final Agent DEFAULTS = new Agent("mono-agent", 50);
    }

    /** {@code runtime}. */
    public record Runtime(
            @Doc("Model reference <provider>:<model>, e.g. openai-codex:gpt-5.6-terra. Required. Env: MONO_AGENT_MODEL.")
                    String model,
            @Doc("Per-request timeout for model calls, in milliseconds.") @Range(min = 1000, max = 3600000)
                    int requestTimeoutMs,
            @Doc("Retries of transient model failures (rate limit, overload, 5xx, network, timeout).") Retry retry) {
        public static final Runtime DEFAULTS = new Runtime(null, 600000, Retry.DEFAULTS);
    }

    /** {@code runtime.retry}. */
    public record Retry(
            @Doc("Attempts per model request, counting the first; 1 = no retry.") @Range(min = 1, max = 10)
                    int primaryAttempts,
            @Doc("First backoff between attempts in milliseconds; doubles each retry.") @Range(min = 0, max = 60000)
                    int backoffMs,
            @Doc("Longest backoff (and longest honoured retry-after) in milliseconds.") @Range(min = 0, max = 300000)
                    int maxBackoffMs) {
        public static final Retry DEFAULTS = new Retry(2, 1000, 15000);
    }

    /** One entry of {@code providers}. */
    public record Provider(
            @Doc("Base URL of the provider's HTTP API (overrides a built-in provider's default, e.g. for a gateway, "
                    + "proxy or test server).") String baseUrl,
            @Doc("Name of the env var holding the API key (the key itself never goes in this file).") String apiKeyEnv,
            @Doc("Wire protocol the endpoint speaks.") ProviderApi api) {
        public static final Provider DEFAULTS = new Provider(null, null, null);
    }

    /** {@code context}. */
    public record Context(
            @Doc("Context window budget in tokens.") @Range(min = 1024, max = 10000000) int maxTokens,
            @Doc("Tokens kept free for the model's answer.") @Range(min = 0, max = 1000000) int reserveTokens) {
        public static final Context DEFAULTS = new Context(128000, 16000);
    }

    /** {@code tools}. */
    public record Tools(
            @Doc("Tools the model may call; [\"*\"] = all, [] = chat-only. Env: MONO_AGENT_ALLOWED_TOOLS.")
                    List<String> allowedTools,
            @Doc("Tools never offered; deny wins. Env: MONO_AGENT_DISALLOWED_TOOLS.") List<String> disallowedTools) {
        public static final Tools DEFAULTS = new Tools(List.of("*"), List.of());

        public Tools {
            allowedTools = List.copyOf(allowedTools);
            disallowedTools = List.copyOf(disallowedTools);
        }
    }

    /** {@code sandbox}. */
    public record Sandbox(
            @Doc("native = run commands in the srt sandbox; off = no wrapping. Env: MONO_AGENT_SANDBOX_MODE.")
                    SandboxMode mode,
            @Doc("Network policy inside the sandbox.") Network network,
            @Doc("Paths the sandbox may read under the home directory; relative entries resolve against the "
                    + "workspace. Env: MONO_AGENT_SANDBOX_READABLE_ROOTS.") List<String> readableRoots,
            @Doc("Paths the sandbox may write; relative entries resolve against the workspace. "
                    + "Env: MONO_AGENT_SANDBOX_WRITABLE_ROOTS.") List<String> writableRoots,
            @Doc("Globs that can never be written; setting this replaces the defaults. "
                    + "Env: MONO_AGENT_SANDBOX_DENY_WRITE.") List<String> denyWrite,
            @Doc("What happens when the engine cannot be proven. Env: MONO_AGENT_SANDBOX_FALLBACK.") Fallback fallback,
            @Doc("Second switch required for fallback unsafe-host-process. "
                    + "Env: MONO_AGENT_SANDBOX_UNSAFE_ALLOW_HOST_PROCESS.") boolean unsafeAllowHostProcess) {
        /** The built-in secret-protection globs. */
        public static final List<String> DEFAULT_DENY_WRITE = List.of(".env", ".env.*", ".git/config", ".git/hooks/**");

        public static final Sandbox DEFAULTS = new Sandbox(SandboxMode.NATIVE, Network.DEFAULTS, List.of("."),
                List.of("."), DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false);

        public Sandbox {
            readableRoots = List.copyOf(readableRoots);
            writableRoots = List.copyOf(writableRoots);
            denyWrite = List.copyOf(denyWrite);
        }

        /** True when commands may run on the host without the sandbox (both switches set). */
        public boolean unsafeFallbackAllowed() {
            return fallback == Fallback.UNSAFE_HOST_PROCESS && unsafeAllowHostProcess;
        }
    }

    /** {@code sandbox.network}. */
    public record Network(
            @Doc("none | localhost | allowlist | all. Env: MONO_AGENT_SANDBOX_NETWORK.") NetworkMode mode,
            @Doc("Host suffixes reachable in allowlist mode (optional leading *.). "
                    + "Env: MONO_AGENT_SANDBOX_NETWORK_ALLOWLIST.") List<String> allowlist,
            @Doc("localhost mode: the only host loopback ports the sandbox may reach (1-65535); empty = every port "
                    + "listening on 127.0.0.1 or ::1. Env: MONO_AGENT_SANDBOX_NETWORK_LOCALHOST_PORTS.")
                    List<Integer> localhostPorts) {
        public static final Network DEFAULTS = new Network(NetworkMode.NONE, List.of(), List.of());

        public Network {
            allowlist = List.copyOf(allowlist);
            localhostPorts = List.copyOf(localhostPorts);
        }

        /** Without a port narrowing (every listener granted in localhost mode). */
        public Network(NetworkMode mode, List<String> allowlist) {
            this(mode, allowlist, List.of());
        }
    }

    /** {@code memory}. */
    public record Memory(
            @Doc("lite = keyword recall; journal = keyword + vector hybrid; bujo. Env: MONO_AGENT_MEMORY_MODE.")
                    MemoryMode mode,
            @Doc("Memory directory, relative to the workspace.") String path,
            @Doc("Maximum bytes of recalled memory per turn.") @Range(min = 1024, max = 10000000) int maxBytes,
            @Doc("MemoryRecall tool.") Toggle recallTool,
            @Doc("Remember tool.") Toggle rememberTool,
            @Doc("Embedding model for vector recall (journal mode).") Embeddings embeddings) {
        public static final Memory DEFAULTS = new Memory(MemoryMode.LITE, ".mono-agent/memory", 64000,
                Toggle.ON, Toggle.ON, Embeddings.DEFAULTS);
    }

    /** A feature switch. */
    public record Toggle(@Doc("Whether the feature is on.") boolean enabled) {
        public static final Toggle ON = new Toggle(true);
        public static final Toggle DEFAULTS = ON;
    }

    /** {@code memory.embeddings}. */
    public record Embeddings(
            @Doc("local (in-process all-MiniLM-L6-v2, offline, no service), ollama, lmstudio or openai.")
                    String provider,
            @Doc("Embedding model name (local: all-minilm-l6-v2-q; a service: its model name).") String model,
            @Doc("Vector dimension the provider returns (local: 384); another size is reported, not used.")
                    @Range(min = 8, max = 8192) int dim,
            @Doc("Base URL of a service embedder (ollama: http://127.0.0.1:11434, lmstudio: "
                    + "http://127.0.0.1:1234/v1, openai: https://api.openai.com/v1).") String endpoint,
            @Doc("Env var holding the embedder's API key.") String apiKeyEnv,
            @Doc("Timeout per embedding request in milliseconds.") @Range(min = 100, max = 600000) int timeoutMs) {
        public static final Embeddings DEFAULTS = new Embeddings("local", "all-minilm-l6-v2-q", 384, null, null,
                10000);
    }

    /** {@code processJobs}. */
    public record ProcessJobs(
            @Doc("Allow background process jobs.") boolean enabled,
            @Doc("Jobs running at once.") @Range(min = 1, max = 64) int maxConcurrent,
            @Doc("Longest run of one job in milliseconds.") @Range(min = 1000, max = 86400000) long maxRuntimeMs,
            @Doc("Output kept per job in bytes.") @Range(min = 1024, max = 1073741824) long maxOutputBytes) {
        public static final ProcessJobs DEFAULTS = new ProcessJobs(false, 4, 1800000, 1048576);
    }

    /** {@code monitors}. */
    public record Monitors(
            @Doc("Allow output monitors.") boolean enabled,
            @Doc("Monitors active at once.") @Range(min = 1, max = 64) int maxActive,
            @Doc("Window for coalescing output lines, in milliseconds.") @Range(min = 0, max = 60000) int coalesceMs,
            @Doc("Most lines in one wake batch.") @Range(min = 1, max = 10000) int maxBatchLines,
            @Doc("Host ceiling on a monitor's wake interval, in milliseconds (default = cap = 300000).")
                    @Range(min = 1000, max = 300000) long maxWakeIntervalMs) {
        public static final Monitors DEFAULTS = new Monitors(false, 8, 200, 200, 300000);
    }
}
