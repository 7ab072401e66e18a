package dev.monoagent.agent;

import dev.monoagent.common.Effective;
import dev.monoagent.sandbox.SandboxStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * The sandbox block of {@code mono-agent status} as it travels over the control endpoint: a flat view of one
 * {@link SandboxStatus} ({@link #of}), rendered here so every surface prints the same lines.
 *
 * @param effective      how commands run now
 * @param engine         {@code srt (present)}, {@code srt (absent)}, {@code srt (corrupt: ...)}, ...
 * @param fallback       fail-closed | unsafe-host-process
 * @param fallbackActive whether commands currently run unsandboxed because of the fallback
 * @param detail         one line explaining a non-native state, or null
 * @param lastVerified   ISO time of the last passing self-check, or null
 */
public record SandboxSummary(Effective effective, String engine, String fallback, boolean fallbackActive,
                             String detail, String lastVerified) {

    /** The block for a sandbox status record (the only way one is made). */
    public static SandboxSummary of(SandboxStatus s) {
        return new SandboxSummary(s.effective(), s.engine().line(), s.fallback().wire(), s.fallbackActive(),
                s.detail(), s.lastVerified() == null ? null : s.lastVerified().toString());
    }

    /** The block's lines, without a heading. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("effective: " + effective.wire());
        out.add("engine: " + engine);
        out.add("fallback: " + fallback);
        out.add("fallback active: " + (fallbackActive ? "yes" : "no"));
        if (lastVerified != null) {
            out.add("last verified: " + lastVerified);
        }
        if (detail != null && !detail.isBlank()) {
            out.add("detail: " + detail);
        }
        if (fallbackActive) {
            out.add(SandboxStatus.UNSAFE_WARNING);
        }
        return out;
    }
}
