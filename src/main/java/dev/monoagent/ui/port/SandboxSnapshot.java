package dev.monoagent.ui.port;

import dev.monoagent.common.Effective;
import java.time.Instant;
import java.util.List;

/**
 * The sandbox panel's facts at one moment.
 *
 * @param effective     how commands run now
 * @param reason        why, when not native (null when native)
 * @param engine        present | absent | corrupt | unsupported (the {@code srt (...)} word)
 * @param source        managed | external | none
 * @param version       the engine version, or null
 * @param digest        the verified tree digest (sha256), or null
 * @param integrity     one line: "integrity-verified", "digest mismatch", ...
 * @param installRoot   where the engine lives, or null
 * @param readableRoots absolute readable roots
 * @param writableRoots absolute writable roots
 * @param protectedPaths protected paths as expanded (literals and globs)
 * @param network       none | localhost | allowlist | all
 * @param grants        what the network mode lets through (loopback ports, allowlisted hosts)
 * @param fallback      fail-closed | unsafe-host-process
 * @param fallbackActive whether commands run on the host right now
 * @param lastVerified  when the last check passed, or null
 */
public record SandboxSnapshot(Effective effective, String reason, String engine, String source, String version,
                              String digest, String integrity, String installRoot, List<String> readableRoots,
                              List<String> writableRoots, List<String> protectedPaths, String network,
                              List<String> grants, String fallback, boolean fallbackActive, Instant lastVerified) {
    public SandboxSnapshot {
        readableRoots = List.copyOf(readableRoots);
        writableRoots = List.copyOf(writableRoots);
        protectedPaths = List.copyOf(protectedPaths);
        grants = List.copyOf(grants);
    }

    /** The same facts after a check: proven (native) or not (blocked with the failing probe as reason). */
    public SandboxSnapshot afterCheck(CheckReport r) {
        if (r.passed()) {
            return new SandboxSnapshot(Effective.NATIVE, null, "present", source, version, digest, integrity, installRoot,
                    readableRoots, writableRoots, protectedPaths, network, grants, fallback, false, r.at());
        }
        return new SandboxSnapshot(fallbackActive ? effective : Effective.BLOCKED, r.firstFailure(), engine, source, version,
                digest, integrity, installRoot, readableRoots, writableRoots, protectedPaths, network, grants,
                fallback, fallbackActive, lastVerified);
    }
}
