package dev.monoagent.config;

import java.util.List;

/** The {@code MONO_AGENT_*} variables that overlay config keys. Lists are comma-separated. */
public final class EnvVars {
    private EnvVars() {}

    /** How an env string becomes a JSON value. */
    public enum Kind { STRING, LIST, BOOL }

    /** One overlay: the env var, the key path it sets, and how to parse it. */
    public record Binding(String env, String path, Kind kind) {}

    public static final String WORKSPACE = "MONO_AGENT_WORKSPACE";

    public static final List<Binding> BINDINGS = List.of(
            new Binding("MONO_AGENT_MODEL", "runtime.model", Kind.STRING),
            new Binding("MONO_AGENT_ALLOWED_TOOLS", "tools.allowedTools", Kind.LIST),
            new Binding("MONO_AGENT_DISALLOWED_TOOLS", "tools.disallowedTools", Kind.LIST),
            new Binding("MONO_AGENT_MEMORY_MODE", "memory.mode", Kind.STRING),
            new Binding("MONO_AGENT_SANDBOX_MODE", "sandbox.mode", Kind.STRING),
            new Binding("MONO_AGENT_SANDBOX_NETWORK", "sandbox.network.mode", Kind.STRING),
            new Binding("MONO_AGENT_SANDBOX_NETWORK_ALLOWLIST", "sandbox.network.allowlist", Kind.LIST),
            new Binding("MONO_AGENT_SANDBOX_NETWORK_LOCALHOST_PORTS", "sandbox.network.localhostPorts", Kind.LIST),
            new Binding("MONO_AGENT_SANDBOX_READABLE_ROOTS", "sandbox.readableRoots", Kind.LIST),
            new Binding("MONO_AGENT_SANDBOX_WRITABLE_ROOTS", "sandbox.writableRoots", Kind.LIST),
            new Binding("MONO_AGENT_SANDBOX_DENY_WRITE", "sandbox.denyWrite", Kind.LIST),
            new Binding("MONO_AGENT_SANDBOX_FALLBACK", "sandbox.fallback", Kind.STRING),
            new Binding("MONO_AGENT_SANDBOX_UNSAFE_ALLOW_HOST_PROCESS", "sandbox.unsafeAllowHostProcess", Kind.BOOL));

    /** Whether {@code name} is one of the {@code MONO_AGENT_*} variables that overlay a config key. */
    public static boolean isBinding(String name) {
        return BINDINGS.stream().anyMatch(b -> b.env().equals(name));
    }

    /**
     * True when an empty value still means something: {@code MONO_AGENT_ALLOWED_TOOLS=""} is the chat-only list
     * {@code []}; every other {@code KEY=} counts as unset.
     */
    static boolean emptyIsMeaningful(String env) {
        return env.equals("MONO_AGENT_ALLOWED_TOOLS");
    }
}
