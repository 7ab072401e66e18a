package dev.monoagent.sandbox;

import dev.monoagent.common.ProbeResult;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The sandbox state every surface prints (status, validate, the workbench badge), in the contract's words.
 *
 * @param state          {@code ready}, {@code unavailable}, {@code off} or {@code unknown} (cheap status, not proven
 *                       in this process)
 * @param effective      {@code off|native|blocked|unsafe-host-process}
 * @param engine         {@code srt (present)}, {@code srt (absent)}, {@code srt (corrupt: …)}, {@code srt (unsupported: …)}
 * @param source         {@code managed|external|absent|corrupt|unsupported}
 * @param version        the engine version ({@code 0.0.78}) or null
 * @param digest         the verified tree digest (managed) / pinned cli SHA-256 (external), or null
 * @param installRoot    where the engine lives, or null
 * @param fallback       {@code fail-closed|unsafe-host-process}
 * @param fallbackActive whether commands currently run on the host because of the unsafe fallback
 * @param reason         why not native ({@code sandbox_unavailable: …}), or null
 * @param lastVerified   when the engine last passed its self-check, or null
 * @param probes         the last self-check results (may be empty)
 */
public record SandboxStatus(String state, String effective, String engine, String source, String version,
                            String digest, Path installRoot, String fallback, boolean fallbackActive, String reason,
                            Instant lastVerified, List<ProbeResult> probes) {

    public static final String UNSAFE_WARNING = "WARNING: Unsafe sandbox fallback is active: all sandbox "
            + "roots/denyWrite entries are inert; commands run unsandboxed.";
    public static final String OFF_DETAIL = "Sandbox is off; commands run without mono-agent sandbox wrapping.";

    public SandboxStatus {
        probes = List.copyOf(probes);
    }

    /** The human lines for {@code status} / {@code sandbox status}. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("State: " + state);
        out.add("effective: " + effective);
        out.add("engine: " + engine);
        out.add("Source: " + source);
        if (installRoot != null) {
            out.add("Install root: " + installRoot);
        }
        if (digest != null) {
            out.add("Digest: " + digest);
        }
        out.add("fallback: " + fallback);
        out.add("fallback active: " + (fallbackActive ? "yes" : "no"));
        if ("managed".equals(source) && "ready".equals(state)) {
            out.add("Managed SRT " + version + " is integrity-verified.");
        }
        if (lastVerified != null) {
            out.add("Last verified: " + lastVerified);
        }
        if (reason != null) {
            out.add("Reason: " + reason);
        }
        if ("off".equals(effective)) {
            out.add(OFF_DETAIL);
        }
        if (fallbackActive) {
            out.add(UNSAFE_WARNING);
        }
        return out;
    }
}
