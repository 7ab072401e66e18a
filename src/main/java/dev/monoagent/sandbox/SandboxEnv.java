package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one environment allowlist for every command we start, sandboxed or not (mode off, unsafe fallback): API keys,
 * tokens and the rest of the host environment never reach a command. Only {@link #PASSED} variables and the version
 * managers' non-secret ones ({@link Toolchains#ENV}) are copied from the host; {@code PATH}, {@code HOME},
 * {@code TMPDIR}, {@code SHELL} and {@code TERM} are set by us.
 */
final class SandboxEnv {
    /** Host variables copied through when set: locale, time zone, identity, colour support. */
    static final List<String> PASSED = List.of("LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "COLORTERM");

    private SandboxEnv() {}

    /**
     * The environment for one command.
     *
     * @param tmpDir the command's {@code TMPDIR} (the session temp dir in the sandbox), or null to leave it unset
     * @param shell  the command's {@code SHELL}, or null to leave it unset
     * @param extra  the caller's additions (they win)
     */
    static Map<String, String> of(HostEnv env, String tmpDir, String shell, Map<String, String> extra) {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("PATH", env.path());
        e.put("HOME", env.home().toString());
        if (tmpDir != null) {
            e.put("TMPDIR", tmpDir);
        }
        if (shell != null) {
            e.put("SHELL", shell);
        }
        e.put("TERM", env.hostEnv().getOrDefault("TERM", "dumb"));
        for (String k : Toolchains.ENV) {
            String v = env.hostEnv().get(k);
            if (v != null) {
                e.put(k, v);
            }
        }
        for (String k : PASSED) {
            String v = env.hostEnv().get(k);
            if (v != null) {
                e.put(k, v);
            }
        }
        e.putAll(extra);
        return e;
    }

    /** A host run (mode off, unsafe fallback): the host's own TMPDIR and SHELL when set. */
    static Map<String, String> host(HostEnv env, Map<String, String> extra) {
        return of(env, env.hostEnv().get("TMPDIR"), env.hostEnv().get("SHELL"), extra);
    }
}
