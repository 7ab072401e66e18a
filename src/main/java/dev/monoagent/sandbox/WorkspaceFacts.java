package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Everything {@link PolicyCompiler} needs to know about the disk, gathered in one I/O step so the compiler itself is a
 * pure function (and golden-testable with hand-written facts). Two phases, because the second needs the compiled
 * {@link Policy}: {@link #layout} reads the git layout and {@code core.hooksPath} (for the policy); {@link #scan}
 * takes the protected-file walk, the existence of the git control entries the deny list may name, and the directory
 * listings along the {@code ~/.ssh} chain of a readable root that contains it (for the engine config).
 *
 * @param dotGit      what the workspace's {@code .git} is
 * @param found       the protected/dangerous files {@link ProtectedFinder} found (absolute)
 * @param existing    which of the candidate paths the compiler asks about exist (not following links)
 * @param directories which writable roots are directories
 * @param listings    directory → its children, for the dirs on the chain from a readable root down to {@code ~/.ssh}
 * @param hostDenies  {@link HostControl#engineDenies}: whole git control dirs, bare layouts, hook managers (no links),
 *                    and {@link HostControl#gitConfigTargets}: the hooks dirs and include files the configs name
 * @param notMounted  protected literals not to mount over while absent ({@link HostControl#absentHostFile})
 */
record WorkspaceFacts(DotGit dotGit, List<Path> found, Set<Path> existing, Set<Path> directories,
                      Map<Path, List<Path>> listings, List<Path> hostDenies, Set<Path> notMounted) {

    /** Facts without host-control denies (tests, the engine-config step). */
    WorkspaceFacts(DotGit dotGit, List<Path> found, Set<Path> existing, Set<Path> directories,
                   Map<Path, List<Path>> listings) {
        this(dotGit, found, existing, directories, listings, List.of(), Set.of());
    }

    /** The kinds of {@code .git} entry the protections tell apart. */
    enum DotGit { ABSENT, DIRECTORY, SYMLINK, OTHER }

    WorkspaceFacts {
        found = List.copyOf(found);
        existing = Set.copyOf(existing);
        directories = Set.copyOf(directories);
        listings = Map.copyOf(listings);
        hostDenies = List.copyOf(hostDenies);
        notMounted = Set.copyOf(notMounted);
    }

    boolean exists(Path p) {
        return existing.contains(p);
    }

    /**
     * The facts the policy itself depends on: the workspace's configured hooks path, what its {@code .git} is, and
     * the hooks paths the other writable roots' repositories configure.
     */
    record GitLayout(Path hooksPath, DotGit dotGit, List<Path> rootHooks) {
        GitLayout {
            rootHooks = List.copyOf(rootHooks);
        }

        GitLayout(Path hooksPath, DotGit dotGit) {
            this(hooksPath, dotGit, List.of());
        }
    }

    /** Phase one: the git layout of {@code ws} and the configured hooks path. */
    static GitLayout layout(Path ws, Path home) {
        return layout(ws, home, List.of());
    }

    /** Phase one, with the hooks path each of {@code roots} other than {@code ws} configures for its own repository. */
    static GitLayout layout(Path ws, Path home, List<Path> roots) {
        List<Path> more = new ArrayList<>();
        for (Path r : roots) {
            Path root = r.toAbsolutePath().normalize();
            Path h = root.equals(ws) ? null : hooksPath(root, home);
            if (h != null && !more.contains(h)) {
                more.add(h);
            }
        }
        return new GitLayout(hooksPath(ws, home), dotGit(ws), more);
    }

    private static DotGit dotGit(Path ws) {
        Path dotGit = ws.resolve(".git");
        DotGit kind;
        if (Files.isSymbolicLink(dotGit)) {
            kind = DotGit.SYMLINK;
        } else if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            kind = DotGit.DIRECTORY;
        } else if (Files.exists(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            kind = DotGit.OTHER;
        } else {
            kind = DotGit.ABSENT;
        }
        return kind;
    }

    /**
     * Phase two, for a compiled policy: the protected-file walk ({@code rg} null: Java walk), existence facts, and
     * (when {@code home} is given) the listings along the {@code ~/.ssh} chain.
     */
    static WorkspaceFacts scan(Policy p, Path rg, Path home) {
        Path ws = p.workspace();
        List<Path> hits = ProtectedFinder.find(p, rg);
        Set<Path> candidates = new LinkedHashSet<>();
        candidates.add(ws.resolve(".git/commondir"));
        Set<Path> dirs = new LinkedHashSet<>();
        for (Path root : p.writableRoots()) {
            if (Files.isDirectory(root)) {
                dirs.add(root);
            }
            for (String e : Policy.GIT_CONTROL_ENTRIES) {
                candidates.add(root.resolve(".git").resolve(e));
            }
        }
        for (Path f : hits) {
            Path acc = ws;
            for (Path seg : ws.relativize(f)) {
                acc = acc.resolve(seg);
                if (seg.toString().equals(".git")) {
                    for (String e : Policy.GIT_CONTROL_ENTRIES) {
                        candidates.add(acc.resolve(e));
                    }
                    break;
                }
            }
        }
        Set<Path> exist = new LinkedHashSet<>();
        for (Path c : candidates) {
            if (Files.exists(c, LinkOption.NOFOLLOW_LINKS)) {
                exist.add(c);
            }
        }
        // whole git control dirs, nested repositories, bare layouts, hook managers (HostControl); srt would deny a
        // symlink's target instead of the link, and an absent config/IDENTITY.md must not become an empty mount point
        List<Path> hostDenies = new ArrayList<>();
        for (Path d : HostControl.engineDenies(p, hits)) {
            if (!Files.isSymbolicLink(d)) {
                hostDenies.add(d);
            }
        }
        // what the repositories' configs send host git to (a nested repository's core.hooksPath, an include.path
        // target): read here, once per initialise, not per command
        Path userHome = home != null ? home : Path.of(System.getProperty("user.home"));
        for (Path t : HostControl.gitConfigTargets(p, hits, userHome)) {
            if (!hostDenies.contains(t)) {
                hostDenies.add(t);
            }
        }
        Set<Path> notMounted = new LinkedHashSet<>();
        for (Path lit : p.protectedLiterals()) {
            if (HostControl.absentHostFile(p, lit)) {
                notMounted.add(lit);
            }
        }
        return new WorkspaceFacts(dotGit(ws), hits, exist, dirs, home == null ? Map.of() : sshChainListings(p, home),
                hostDenies, notMounted);
    }

    /** The children of each directory from a readable/writable root that holds {@code ~/.ssh} down to it. */
    static Map<Path, List<Path>> sshChainListings(Policy p, Path home) {
        Map<Path, List<Path>> lists = new LinkedHashMap<>();
        Path ssh = home.resolve(".ssh");
        List<Path> roots = new ArrayList<>(p.readableRoots());
        roots.addAll(p.writableRoots());
        for (Path r : roots) {
            if (ssh.startsWith(r)) {
                for (Path dir = r; !dir.equals(ssh); dir = dir.resolve(ssh.getName(dir.getNameCount()))) {
                    lists.put(dir, list(dir));
                }
            }
        }
        return lists;
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> kids = Files.list(dir)) {
            return kids.toList();
        } catch (IOException e) {
            return List.of(); // unreadable dir: nothing to re-allow
        }
    }

    /** {@code core.hooksPath} from the workspace's {@code .git/config} or the user's {@code ~/.gitconfig}. */
    static Path hooksPath(Path ws, Path home) {
        for (Path cfg : List.of(ws.resolve(".git/config"), home.resolve(".gitconfig"))) {
            try {
                if (!Files.isRegularFile(cfg)) {
                    continue;
                }
                Path v = PolicyCompiler.hooksPathIn(Files.readAllLines(cfg), ws, home);
                if (v != null) {
                    return v;
                }
            } catch (IOException ignored) {
                // unreadable config: the default .git/hooks literal still applies
            }
        }
        return null;
    }
}
