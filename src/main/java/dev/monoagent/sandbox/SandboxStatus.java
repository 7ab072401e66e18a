package dev.monoagent.sandbox;

import dev.monoagent.common.Effective;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.Enums.Fallback;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The sandbox state every surface prints (status, validate, the workbench badge, the run log header): the typed
 * {@link SandboxState}, the engine facts and the last self-check. {@link #lines()} is the one rendering in the
 * contract's words; {@link dev.monoagent.sandbox.Sandbox#status()} and {@code quickStatus} the only producers.
 *
 * @param current      off / ready / unavailable(reason) / unsafe-host(reason)
 * @param engine       the installed engine's facts
 * @param fallback     the configured fallback
 * @param lastVerified when the engine last passed its self-check, or null
 * @param probes       the last self-check results (may be empty)
 * @param node         which Node runs the engine and NodeRepl ({@code v22.23.5 (managed, /…/bin/node)}), or null when
 *                     not looked up (the cheap status)
 */
public record SandboxStatus(SandboxState current, EngineInfo engine, Fallback fallback, Instant lastVerified,
                            List<ProbeResult> probes, String node, String warm) {

    public SandboxStatus(SandboxState current, EngineInfo engine, Fallback fallback, Instant lastVerified,
                         List<ProbeResult> probes) {
        this(current, engine, fallback, lastVerified, probes, null, null);
    }

    public SandboxStatus withNode(String line) {
        return new SandboxStatus(current, engine, fallback, lastVerified, probes, line, warm);
    }

    /** With the engine's warm-shell state ({@code on}, {@code off …}, {@code unavailable …}). */
    public SandboxStatus withWarm(String state) {
        return new SandboxStatus(current, engine, fallback, lastVerified, probes, node, state);
    }

    /** How commands run on a warm shell differ from the per-command sandbox, said beside its state. */
    static final String WARM_DIFFERENCE = " (one sandboxed shell per run runs its Bash/Exec commands one at a time, "
            + "each in its own user namespace and process group; every process a command leaves is killed before the "
            + "next starts. The limits above then hold per run's shell, one command at a time: the shell's own few "
            + "processes and ~50 MB count toward them, and files a command leaves in the sandbox's private tmpfs "
            + "(/tmp outside the session temp dir, /dev/shm, ~) stay until the shell restarts)";

    public static final String UNSAFE_WARNING = "WARNING: Unsafe sandbox fallback is active: all sandbox "
            + "roots/denyWrite entries are inert; commands run unsandboxed.";
    public static final String OFF_DETAIL = "Sandbox is off; commands run without mono-agent sandbox wrapping.";

    public SandboxStatus {
        probes = List.copyOf(probes);
    }

    /** The contract's {@code State:} word ({@code ready}, {@code unavailable}, {@code off}). */
    public String state() {
        return current.word();
    }

    public Effective effective() {
        return current.effective();
    }

    /** Why not native ({@code sandbox_unavailable: …}), or null. */
    public String reason() {
        return current.reason();
    }

    public boolean fallbackActive() {
        return current.fallbackActive();
    }

    public boolean ready() {
        return current instanceof SandboxState.Ready;
    }

    /** The one-line detail a status block shows for a non-native state (the off sentence, or the reason). */
    public String detail() {
        return current instanceof SandboxState.Off ? OFF_DETAIL : reason();
    }

    /** The human lines for {@code status} / {@code sandbox status}. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("State: " + state());
        out.add("effective: " + effective().wire());
        out.add("engine: " + engine.line());
        if (node != null) {
            out.add("node: " + node);
        }
        out.add("Source: " + engine.source().wire());
        if (engine.installRoot() != null) {
            out.add("Install root: " + engine.installRoot());
        }
        if (engine.digest() != null) {
            out.add("Digest: " + engine.digest());
        }
        out.add("fallback: " + fallback.wire());
        out.add("fallback active: " + (fallbackActive() ? "yes" : "no"));
        if (engine.source() == SrtRuntime.Source.MANAGED && ready()) {
            out.add("Managed SRT " + engine.version() + " is integrity-verified.");
        }
        if (effective() == Effective.NATIVE) {
            out.add("Limits: " + Limits.hostSummary());
            String w = warm != null ? warm : NativeEngine.warmDefault ? "on" : NativeEngine.WARM_OFF;
            out.add("Warm shell: " + w + (w.equals("on") ? WARM_DIFFERENCE : ""));
        }
        if (lastVerified != null) {
            out.add("Last verified: " + lastVerified);
        }
        if (reason() != null) {
            out.add("Reason: " + reason());
        }
        if (current instanceof SandboxState.Off) {
            out.add(OFF_DETAIL);
        }
        if (fallbackActive()) {
            out.add(UNSAFE_WARNING);
        }
        return out;
    }

    /** The integrity sentence the sandbox panel shows. */
    public String integrity() {
        if (!ready()) {
            return "not proven";
        }
        return engine.source() == SrtRuntime.Source.MANAGED
                ? "Managed SRT " + engine.version() + " is integrity-verified." : "pinned and functionally proven";
    }
}
