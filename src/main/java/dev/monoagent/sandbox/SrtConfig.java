package dev.monoagent.sandbox;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The srt 0.0.78 engine config as a value: what {@link PolicyCompiler#srtConfig} returns and what the bridge's
 * {@code initialize} receives ({@link #toMap()}, key order as srt documents it). Golden-tested.
 *
 * @param network                  the proxy's domain rules
 * @param filesystem               read/write rules (all literal absolute paths)
 * @param ripgrep                  the rg srt uses for its nested dangerous-file scan
 * @param mandatoryDenySearchDepth srt's nested-scan depth
 * @param bwrapPath                bubblewrap (null on macOS, where srt uses sandbox-exec)
 * @param socatPath                socat (null on macOS: no proxy bridges are needed there)
 * @param applySeccomp             the pinned seccomp helper (null on macOS)
 */
record SrtConfig(Network network, Filesystem filesystem, Ripgrep ripgrep, int mandatoryDenySearchDepth,
                 Path bwrapPath, Path socatPath, Path applySeccomp) {

    /** {@code allowedDomains} null means "all hosts" (network mode all): srt then omits the allowlist. */
    record Network(List<String> allowedDomains, List<String> deniedDomains, boolean strictAllowlist) {
        Network {
            allowedDomains = allowedDomains == null ? null : List.copyOf(allowedDomains);
            deniedDomains = List.copyOf(deniedDomains);
        }
    }

    record Filesystem(List<String> denyRead, List<String> allowRead, List<String> allowWrite, List<String> denyWrite) {
        Filesystem {
            denyRead = List.copyOf(denyRead);
            allowRead = List.copyOf(allowRead);
            allowWrite = List.copyOf(allowWrite);
            denyWrite = List.copyOf(denyWrite);
        }
    }

    record Ripgrep(Path command, List<String> args) {
        Ripgrep {
            args = List.copyOf(args);
        }
    }

    /** The JSON shape srt reads. */
    Map<String, Object> toMap() {
        Map<String, Object> cfg = new LinkedHashMap<>();
        Map<String, Object> net = new LinkedHashMap<>();
        if (network.allowedDomains() != null) {
            net.put("allowedDomains", network.allowedDomains());
        }
        net.put("deniedDomains", network.deniedDomains());
        net.put("strictAllowlist", network.strictAllowlist());
        cfg.put("network", net);
        Map<String, Object> fs = new LinkedHashMap<>();
        fs.put("denyRead", filesystem.denyRead());
        fs.put("allowRead", filesystem.allowRead());
        fs.put("allowWrite", filesystem.allowWrite());
        fs.put("denyWrite", filesystem.denyWrite());
        cfg.put("filesystem", fs);
        Map<String, Object> rg = new LinkedHashMap<>();
        rg.put("command", ripgrep.command().toString());
        rg.put("args", ripgrep.args());
        cfg.put("ripgrep", rg);
        cfg.put("mandatoryDenySearchDepth", mandatoryDenySearchDepth);
        if (bwrapPath != null) {
            cfg.put("bwrapPath", bwrapPath.toString());
        }
        if (socatPath != null) {
            cfg.put("socatPath", socatPath.toString());
        }
        if (applySeccomp != null) {
            cfg.put("seccomp", Map.of("applyPath", applySeccomp.toString()));
        }
        return cfg;
    }
}
