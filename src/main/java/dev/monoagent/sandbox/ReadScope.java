package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
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
 * What the sandbox may read: the readable and writable roots, the session temp dir, the dirs on
 * PATH (and the tools' own install dirs), and the system directories tools need — nothing else. What the agent
 * reads goes to the model provider, so other projects' {@code .env} files in {@code /srv}, {@code /opt},
 * {@code /tmp}, {@code /home/*} or a second mount must not be readable.
 *
 * <p>srt reads deny-then-allow: every top-level entry of {@code /} that is not a system directory is read-denied (a
 * tmpfs), and the allowed dirs beneath are bound back. Inside the system dirs the secrets a root-run sandbox could
 * otherwise read are denied too ({@link #SYSTEM_SECRETS}). {@code /run} is not a system dir here: it holds container
 * secrets ({@code /run/secrets}) and per-user runtime dirs.
 */
public final class ReadScope {
    /** Top-level system directories commands need (binaries, libraries, config, kernel interfaces). */
    public static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
            "/etc", "/proc", "/dev", "/sys");

    /** Secrets inside the system directories (readable to root, and the sandbox may run as root). */
    public static final List<String> SYSTEM_SECRETS = List.of("/etc/shadow", "/etc/shadow-", "/etc/gshadow",
            "/etc/gshadow-", "/etc/ssh", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private");

    private ReadScope() {}

    /**
     * The top-level entries of {@code root} (normally {@code /}) to read-deny: everything that is not in
     * {@link #SYSTEM} and not a symlink into it (merged-/usr {@code /bin -> usr/bin}).
     */
    public static List<Path> deniedTopLevel(Path root) {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String abs = "/" + root.relativize(p);
                if (SYSTEM.contains(abs)) {
                    continue;
                }
                if (Files.isSymbolicLink(p)) {
                    Path target = p.toRealPath();
                    if (SYSTEM.stream().anyMatch(sys -> target.startsWith(Path.of(sys)))) {
                        continue;
                    }
                } else if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue; // a stray file at / (container_info.json): nothing below it to hide
                }
                out.add(Path.of(abs));
            }
        } catch (IOException e) {
            // unlistable root: deny nothing extra here; home stays denied by the caller
        }
        return out;
    }

    /** The existing {@link #SYSTEM_SECRETS}. */
    static List<Path> systemSecrets() {
        List<Path> out = new ArrayList<>();
        for (String s : SYSTEM_SECRETS) {
            if (Files.exists(Path.of(s), LinkOption.NOFOLLOW_LINKS)) {
                out.add(Path.of(s));
            }
        }
        return out;
    }

    /**
     * The dirs re-allowed outside the roots: PATH entries and the real install dirs of the tools the sandbox runs
     * (their targets may live in {@code /opt}), except anything containing {@code home} (that would re-open every
     * secret under it) — entries under home are handled with the home rule.
     */
    static List<Path> toolDirs(List<Path> pathEntries, List<Path> tools, Path home) {
        Set<Path> out = new LinkedHashSet<>();
        for (Path raw : pathEntries) {
            if (raw.isAbsolute()) {
                out.add(raw.normalize());
                try {
                    out.add(raw.toRealPath());
                } catch (IOException ignored) {
                    // a missing PATH entry: nothing to read there
                }
            }
        }
        for (Path t : tools) {
            try {
                Path real = t.toRealPath();
                out.add(real.getParent());
                // node and friends keep their libraries next to bin/ (prefix/lib/node_modules)
                if (real.getParent().getFileName() != null && real.getParent().getFileName().toString().equals("bin")) {
                    out.add(real.getParent().getParent());
                }
            } catch (IOException | NullPointerException ignored) {
                // not installed: nothing to allow
            }
        }
        out.removeIf(p -> home.startsWith(p) || p.getNameCount() == 0);
        return List.copyOf(out);
    }

    /** This host's read denies outside home: {@link #deniedTopLevel} of {@code /} and {@link #systemSecrets}. */
    static List<Path> readDenied() {
        List<Path> out = new ArrayList<>(deniedTopLevel(Path.of("/")));
        out.addAll(systemSecrets());
        return List.copyOf(out);
    }

    /** One line per readable area, for {@code validate}. */
    public static List<String> describe(List<Path> readableRoots, List<Path> writableRoots, Path home) {
        return describe(readableRoots, writableRoots, home, Platform.current());
    }

    /** As above for {@code platform}: macOS reads deny-then-allow from a different top level (SeatbeltPolicy). */
    static List<String> describe(List<Path> readableRoots, List<Path> writableRoots, Path home, Platform platform) {
        if (platform == Platform.MACOS) {
            Set<String> roots = new LinkedHashSet<>();
            readableRoots.forEach(r -> roots.add(r.toString()));
            writableRoots.forEach(r -> roots.add(r.toString()));
            return List.of("readable: " + String.join(", ", roots) + " (roots); the session temp dir and PATH dirs; "
                    + "the system (" + String.join(" ", SeatbeltPolicy.SYSTEM) + ", /opt only " + SeatbeltPolicy.HOMEBREW
                    + ") without " + String.join(" ", SeatbeltPolicy.PRIVATE_DENIED) + " (" + home
                    + ", /Users, /Volumes and every other top-level dir are read-denied).");
        }
        Set<String> roots = new LinkedHashSet<>();
        readableRoots.forEach(r -> roots.add(r.toString()));
        writableRoots.forEach(r -> roots.add(r.toString()));
        List<String> out = new ArrayList<>();
        out.add("readable: " + String.join(", ", roots) + " (roots); " + String.join(" ", SYSTEM)
                + " (system, without " + String.join(" ", SYSTEM_SECRETS) + "); the session temp dir and PATH "
                + "dirs; nothing else (" + home + " and every other top-level dir are read-denied except the roots "
                + "at or inside them).");
        // what a root at, inside or around home opens (Policy.readDenial): said plainly, never "hidden" for a
        // readable path
        for (Path raw : readableRoots) {
            if (writableRoots.contains(raw)) {
                continue; // the workspace: its own line is the roots list
            }
            Path r = raw.toAbsolutePath().normalize();
            if (r.equals(home)) {
                out.add("[WARN] root " + r + " is the home dir: everything in it is readable (and goes to the model "
                        + "provider) except ~/.ssh and the secrets listed under toolchains below.");
            } else if (r.startsWith(home) && !r.startsWith(home.resolve(".ssh"))) {
                out.add("root " + r + " is inside home: readable except the secrets in it listed under toolchains "
                        + "below.");
            } else if (home.startsWith(r)) {
                out.add("[WARN] root " + r + " holds the home dir" + (r.getNameCount() == 0
                        ? " and every top-level dir: it opens only the system dirs" : ": it opens what is in it except "
                        + home) + "; name a dir to open it (home itself: everything but the secrets).");
            }
        }
        return out;
    }
}
