package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What changes in the engine config on macOS, where srt 0.0.78 wraps each command in {@code sandbox-exec} with a
 * Seatbelt profile it generates from the same config keys. Everything the Linux compiler adds on top of srt is kept
 * (the literal expansion of deny globs, git control entries, the state dir, host control files, nested repositories,
 * the read scope); three things differ:
 *
 * <ul>
 *   <li>the Linux helpers (bwrap, socat, apply-seccomp) are left out of the config;</li>
 *   <li>protected literals that Linux leaves out while absent (an absent {@code IDENTITY.md} or {@code .git/commondir}:
 *       bwrap would mount an empty placeholder file over them on the host) are denied: Seatbelt refuses creating them
 *       and leaves nothing on disk;</li>
 *   <li>deny globs are passed <em>as globs</em> too, anchored at the workspace: Seatbelt matches them as regexes, so a
 *       new {@code .env.custom} is refused at write time instead of only being quarantined afterwards (the literals and
 *       the post-command scan stay, so nothing depends on the regex alone);</li>
 *   <li>the read scope is built from macOS's top-level layout ({@link #readDenied(Path)}).</li>
 * </ul>
 *
 * Kept out of {@link PolicyCompiler} so the Linux config stays byte-for-byte what {@code SrtConfigGoldenTest} pins.
 */
final class SeatbeltPolicy {
    /**
     * Top-level entries of a Mac's {@code /} that stay readable: the OS, libraries and frameworks, the developer tools
     * ({@code /Applications/Xcode.app} hosts {@code git} for the {@code /usr/bin} shims), the device and the
     * {@code /private} tree ({@code /etc}, {@code /var} and {@code /tmp} link into it) whose sensitive parts are denied
     * by {@link #PRIVATE_DENIED}. {@code /opt} is split: Homebrew stays readable, any other vendor dir is denied.
     */
    static final List<String> SYSTEM = List.of("/System", "/Library", "/Applications", "/usr", "/bin", "/sbin", "/dev",
            "/private", "/etc", "/var", "/tmp", "/opt");

    /**
     * Inside {@code /private}: other processes' temp files (the session temp dir is re-allowed by name), root's home,
     * and the secrets a root-run sandbox could otherwise read.
     */
    static final List<String> PRIVATE_DENIED = List.of("/private/tmp", "/private/var/tmp", "/private/var/folders",
            "/private/var/root", "/private/var/db/sudo", "/private/etc/ssh", "/private/etc/sudoers",
            "/private/etc/sudoers.d", "/private/etc/master.passwd");

    /** The one {@code /opt} entry kept readable: Homebrew on Apple silicon (its dylibs are needed by brew tools). */
    static final String HOMEBREW = "/opt/homebrew";

    private SeatbeltPolicy() {}

    /**
     * The macOS engine config: {@link PolicyCompiler#srtConfig}'s rules, the workspace-anchored deny globs added to
     * {@code denyWrite}, the Linux helpers removed. Pure.
     */
    static SrtConfig config(Policy p, List<Path> denyLiterals, PolicyCompiler.EngineFacts f, List<Integer> hostPorts,
                            WorkspaceFacts facts) {
        SrtConfig linux = PolicyCompiler.srtConfig(p, denyLiterals, f, hostPorts, facts);
        Set<String> deny = new LinkedHashSet<>(linux.filesystem().denyWrite());
        Path dotGit = p.workspace().resolve(".git");
        for (Path lit : p.protectedLiterals()) {
            // a symlinked .git stays out on both: srt would deny its target, while the link itself stays replaceable
            if (!(lit.equals(dotGit) && facts.dotGit() == WorkspaceFacts.DotGit.SYMLINK)) {
                deny.add(lit.toString());
            }
        }
        deny.addAll(anchoredGlobs(p));
        SrtConfig.Filesystem fs = new SrtConfig.Filesystem(linux.filesystem().denyRead(),
                linux.filesystem().allowRead(), linux.filesystem().allowWrite(), List.copyOf(deny));
        return new SrtConfig(linux.network(), fs, linux.ripgrep(), linux.mandatoryDenySearchDepth(), null, null, null);
    }

    /**
     * The configured deny globs as absolute patterns srt compiles into Seatbelt regexes: a basename glob
     * ({@code .env.*}) at any depth of the workspace, its top level included (Policy matches it at any depth), a
     * relative path glob under the workspace, an absolute glob as written. A workspace whose own path contains glob
     * characters gets none (srt would read its name as a pattern that matches nothing; the literals still apply).
     */
    static List<String> anchoredGlobs(Policy p) {
        List<String> out = new ArrayList<>();
        String ws = p.workspace().toString();
        if (PolicyCompiler.hasGlobChars(ws)) {
            return out;
        }
        for (String g : p.denyWriteGlobs()) {
            String glob = g.endsWith("/**") ? g.substring(0, g.length() - 3) : g;
            if (!PolicyCompiler.hasGlobChars(glob)) {
                continue; // a literal: already in the deny literals
            }
            if (Path.of(glob).isAbsolute()) {
                out.add(glob);
            } else if (!glob.contains("/")) {
                // srt compiles "**/" to "(.*/)?": the top level is included
                out.add(ws + "/**/" + glob);
            } else {
                out.add(ws + "/" + glob);
            }
        }
        return out;
    }

    /**
     * A Mac's read denies outside home, from the listing of {@code root} (normally {@code /}): every top-level entry
     * not in {@link #SYSTEM} ({@code /Users}, {@code /Volumes}, ...), every {@code /opt} entry but Homebrew, and
     * {@link #PRIVATE_DENIED}. Tests pass a directory laid out like a Mac's root.
     */
    static List<Path> readDenied(Path root) {
        Set<Path> out = new LinkedHashSet<>();
        for (String top : list(root)) {
            if (!SYSTEM.contains("/" + top) && Files.isDirectory(root.resolve(top), LinkOption.NOFOLLOW_LINKS)) {
                out.add(Path.of("/" + top));
            }
        }
        for (String o : list(root.resolve("opt"))) {
            if (!("/opt/" + o).equals(HOMEBREW)) {
                out.add(Path.of("/opt/" + o));
            }
        }
        PRIVATE_DENIED.forEach(d -> out.add(Path.of(d)));
        return List.copyOf(out);
    }

    private static List<String> list(Path dir) {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(p -> out.add(p.getFileName().toString()));
        } catch (IOException e) {
            // absent or unlistable: nothing below it to deny by name
        }
        out.sort(null);
        return out;
    }
}
