package dev.monoagent.tools;

import dev.monoagent.sandbox.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The mount namespace the host's rg walks in. rg opens directories by path, so a sandboxed process that
 * swaps a workspace directory for a symlink to {@code ~/.ssh} between rg's listing and its open would lead the walk
 * there, and Grep would quote the key. rg therefore runs under bubblewrap in a namespace that holds only what the
 * file tools may read anyway — the readable and writable roots of the compiled policy, carved down to its one read
 * rule ({@link Policy#readDenial}: denied areas and secrets below them masked) — plus the system directories rg's own binary and libraries live in. A swapped symlink then
 * resolves inside that namespace, where the secret does not exist; no list of "dangerous targets" is involved.
 *
 * <p>Only the outermost roots are bound: their parents lie outside every writable root, so the agent cannot turn
 * the bind source itself into a symlink before bwrap resolves it.
 */
final class SearchView {
    /** Top-level system dirs rg's binary and shared libraries come from ({@code /etc} is not among them). */
    private static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
            "/libx32");
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private SearchView() {}

    /** {@code bwrap ... -- rgArgv}, where {@code rgArgv.get(0)} is the trusted rg and {@code cwd} a readable dir. */
    static List<String> wrap(Path bwrap, Policy policy, Path cwd, List<String> rgArgv) throws IOException {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(), "--unshare-all", "--die-with-parent",
                "--new-session"));
        for (String s : SYSTEM) {
            Path p = Path.of(s);
            if (Files.isSymbolicLink(p)) {
                a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), s));
            } else if (Files.isDirectory(p, NOFOLLOW)) {
                a.addAll(List.of("--ro-bind", s, s));
            }
        }
        if (Files.isRegularFile(Path.of("/etc/ld.so.cache"))) {
            a.addAll(List.of("--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"));
        }
        List<Path> roots = roots(policy);
        for (Path r : roots) {
            a.addAll(List.of("--ro-bind", r.toString(), r.toString()));
        }
        // the one read rule (Policy.readDenial), as mounts: shallow-first, so a denied area inside a bound root is
        // hidden and then the roots inside it bound back, and a secret, deeper, lands on top of whatever holds it
        for (Mount m : mounts(policy, roots)) {
            Path d = m.path();
            if (m.rebind()) {
                a.addAll(List.of("--ro-bind", d.toString(), d.toString()));
            } else if (Files.isDirectory(d, NOFOLLOW)) {
                a.addAll(List.of("--tmpfs", d.toString()));
            } else if (Files.exists(d, NOFOLLOW)) {
                a.addAll(List.of("--ro-bind", "/dev/null", d.toString()));
            }
        }
        // rg itself last: a root over its dir (a / root) with a mask between must not hide the binary
        Path rg = Path.of(rgArgv.get(0)).toRealPath();
        if (SYSTEM.stream().noneMatch(s -> rg.startsWith(Path.of(s)))) {
            a.addAll(List.of("--ro-bind", rg.toString(), rg.toString()));
        }
        a.addAll(List.of("--chdir", cwd.toString(), "--"));
        a.add(rg.toString());
        a.addAll(rgArgv.subList(1, rgArgv.size()));
        return a;
    }

    /** The real, existing readable and writable roots (as pinned), without those nested in another (the outer bind has them). */
    static List<Path> roots(Policy policy) {
        Set<Path> all = new LinkedHashSet<>();
        for (Path r : concat(policy.readableRoots(), policy.writableRoots())) {
            // where the root led when the policy was made, and only while it still does (not through a link since)
            Path pinned = policy.pins().real(r);
            try {
                if (pinned.toRealPath().equals(pinned)) {
                    all.add(pinned);
                }
            } catch (IOException absent) {
                // nothing to search there
            }
        }
        List<Path> out = new ArrayList<>();
        for (Path r : all) {
            if (all.stream().noneMatch(o -> !o.equals(r) && r.startsWith(o))) {
                out.add(r);
            }
        }
        return out;
    }

    /** One mount over a bound root: a mask (tmpfs or /dev/null) or a root bound back inside a masked area. */
    record Mount(Path path, boolean rebind) {}

    /**
     * The mounts that carve the bound roots down to {@link Policy#readDenial}: each denied area inside a bound root
     * (home under a {@code /} root, {@code /tmp} around the workspace) masked, with the roots that lie inside it bound
     * back; the host's kernel interfaces ({@code /proc}, {@code /sys}, {@code /dev}) masked; then every secret inside
     * a bound root, deepest last. Areas a root is at or inside stay open.
     */
    static List<Mount> mounts(Policy policy, List<Path> roots) {
        List<Path> areas = new ArrayList<>();
        for (Path d : policy.denyRead()) {
            Path n = d.toAbsolutePath().normalize();
            boolean inside = roots.stream().anyMatch(r -> n.startsWith(r) && !n.equals(r));
            boolean opened = concat(policy.readableRoots(), policy.writableRoots()).stream()
                    .anyMatch(r -> r.toAbsolutePath().normalize().startsWith(n));
            if (inside) {
                areas.add(n);
            } else if (roots.stream().anyMatch(n::equals) && !opened) {
                areas.add(n);
            }
        }
        if (roots.stream().anyMatch(r -> r.getNameCount() == 0)) {
            // a / root: each non-system top-level dir is an area of its own (Policy.topLevelArea)
            areas.addAll(dev.monoagent.sandbox.ReadScope.deniedTopLevel(Path.of("/")));
        }
        for (String k : List.of("/proc", "/sys", "/dev")) {
            if (roots.stream().anyMatch(r -> Path.of(k).startsWith(r))) {
                areas.add(Path.of(k));
            }
        }
        List<Path> sorted = new ArrayList<>(new LinkedHashSet<>(areas));
        sorted.sort(java.util.Comparator.comparingInt(Path::getNameCount));
        List<Mount> out = new ArrayList<>();
        for (Path area : sorted) {
            out.add(new Mount(area, false));
            for (Path r : concat(policy.readableRoots(), policy.writableRoots())) {
                Path rn = r.toAbsolutePath().normalize();
                if (rn.startsWith(area) && !rn.equals(area) && policy.rootOpens(rn) && Files.isDirectory(rn)
                        && sorted.stream().noneMatch(o -> o.getNameCount() > area.getNameCount() && rn.startsWith(o))) {
                    out.add(new Mount(rn, true));
                }
            }
        }
        List<Path> secrets = new ArrayList<>();
        for (Path s : policy.readSecrets()) {
            if (roots.stream().anyMatch(s::startsWith)) {
                secrets.add(s);
            }
        }
        secrets.sort(java.util.Comparator.comparingInt(Path::getNameCount));
        secrets.forEach(s -> out.add(new Mount(s, false)));
        return out;
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
