package dev.monoagent.agent;

import dev.monoagent.sandbox.SandboxStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * The sandbox block of {@code mono-agent status}, in the contract's words. Built by whoever owns the sandbox facade
 * (the running instance, or the CLI when no instance runs) and rendered here so every surface prints the same lines.
 *
 * @param effective      off | native | blocked | unsafe-host-process
 * @param engine         {@code srt (present)}, {@code srt (absent)}, {@code srt (corrupt: ...)}, ...
 * @param fallback       fail-closed | unsafe-host-process
 * @param fallbackActive whether commands currently run unsandboxed because of the fallback
 * @param detail         one line explaining a non-native state, or null
 * @param lastVerified   ISO time of the last passing self-check, or null
 */
public record SandboxSummary(String effective, String engine, String fallback, boolean fallbackActive, String detail,
                             String lastVerified) {

    /** The block's lines, without a heading. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("effective: " + effective);
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
