package dev.monoagent.tools;

import dev.monoagent.sandbox.Policy;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The in-process file tools' copy of the sandbox's path rules, so Read/Write/Edit/Glob/Grep can never do what the
 * sandbox would refuse. A path is checked twice: as written (normalized, so {@code ..} cannot climb out) and as the
 * real target after resolving every symlink; both must pass the {@link Policy}. Writes additionally refuse the
 * private state dir, dangling symlinks and hard links whose other names are protected or outside the writable roots.
 * The check is on path strings only; the I/O that follows goes through {@link FdFile}, which reaches the checked real
 * path by descriptor and refuses a symlink that appeared since, so sandboxed code cannot swap the path in between.
 */
final class PathGuard {
    /** Most directory entries scanned when looking for a hard link's other names; beyond it we refuse. */
    static final int HARD_LINK_SCAN_LIMIT = 500_000;

    private final Path workspace;
    private final Policy policy;
    /** The engine's literal write denies beyond the policy's names (see {@link SandboxPort#deniedPaths}). */
    private final List<Path> denied;

    PathGuard(Path workspace, Policy policy) {
        this(workspace, policy, List.of());
    }

    PathGuard(Path workspace, Policy policy, List<Path> denied) {
        this.workspace = workspace.toAbsolutePath().normalize();
        this.policy = policy;
        this.denied = List.copyOf(denied);
    }

    /** The outcome of a check. */
    sealed interface Check {
        /** Allowed: operate on {@code real}; show {@code shown}. */
        record Allowed(Path shown, Path real) implements Check {}

        /** Refused by policy: {@code target} is what was refused (real path when known). */
        record Denied(Path shown, Path target, String reason) implements Check {}

        /** The argument is not a usable path. */
        record Invalid(String message) implements Check {}
    }

    Path workspace() {
        return workspace;
    }

    /** The absolute, normalized form of a path argument (relative → workspace), or null when unusable. */
    Path lexical(String input) {
        if (input == null || input.isEmpty() || input.indexOf('\0') >= 0) {
            return null;
        }
        try {
            Path p = Path.of(input);
            return (p.isAbsolute() ? p : workspace.resolve(p)).normalize();
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /**
     * An input resolved for a check: its lexical and real paths, or the refusal (invalid, dangling link), or the I/O
     * error resolving it ({@code real} is then the lexical path).
     */
    private record Resolved(Path lex, Path real, Check refused, IOException error) {}

    private Resolved resolve(String input) {
        Path lex = lexical(input);
        if (lex == null) {
            return new Resolved(null, null, new Check.Invalid("not a valid path: \"" + input + "\"."), null);
        }
        try {
            return new Resolved(lex, realOf(lex), null, null);
        } catch (DanglingLink e) {
            return new Resolved(lex, lex, new Check.Denied(lex, lex, e.getMessage()), null);
        } catch (IOException e) {
            return new Resolved(lex, lex, null, e);
        }
    }

    /** The host's kernel interfaces: what they hold describes the tool's host process, not the sandbox's. */
    private static final List<Path> KERNEL = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"));

    /**
     * The read check: the one read rule ({@link Policy#readDenial}) inside the roots, on the path as written and on
     * its real target. The answer for anything outside the roots is the same whether or not it exists (a symlink in
     * the workspace to a missing file outside is "outside the readable roots", not "dangling"), because a command in
     * the sandbox cannot tell either. {@code /proc/self/cwd/…} and {@code /proc/self/root/…} mean in a command what
     * the workspace and {@code /} mean, and are read as those; any other path in {@code /proc}, {@code /sys} or
     * {@code /dev} describes the host's tool process and is refused.
     */
    Check forRead(String input) {
        Path lex = lexical(input);
        if (lex == null) {
            return new Check.Invalid("not a valid path: \"" + input + "\".");
        }
        lex = unalias(lex);
        Path real = realForRead(lex);
        for (Path p : List.of(lex, real)) {
            if (KERNEL.stream().anyMatch(p::startsWith)) {
                return new Check.Denied(lex, real, "a kernel interface of the host's tool process (" + p.getName(0)
                        + "), not a file the file tools read");
            }
            if (!insideReadable(p)) {
                return new Check.Denied(lex, real, "outside the readable roots");
            }
            String why = policy.readDenial(toPolicySpace(p));
            if (why != null) {
                return new Check.Denied(lex, real, why);
            }
        }
        return new Check.Allowed(lex, real);
    }

    /**
     * {@code /proc/self/cwd/x} as a command sees it (the workspace, where Read resolves relative paths too), and
     * {@code /proc/self/root/x} as {@code /x}; repeated, for nested spellings.
     */
    Path unalias(Path lex) {
        for (int hops = 0; hops < 8; hops++) {
            Path p = lex;
            for (String self : List.of("self", "thread-self")) {
                Path cwd = Path.of("/proc", self, "cwd");
                Path root = Path.of("/proc", self, "root");
                if (p.startsWith(cwd)) {
                    p = workspace.resolve(cwd.relativize(p).toString()).normalize();
                } else if (p.startsWith(root)) {
                    p = Path.of("/").resolve(root.relativize(p).toString()).normalize();
                }
            }
            if (p.equals(lex)) {
                return p;
            }
            lex = p;
        }
        return lex;
    }

    /**
     * Where reading {@code lex} would land, whether or not it exists: symlinks resolved, a dangling one followed to
     * the path it names, a file used as a directory kept in the path. Never an error, so the checks that follow see
     * a path for every input and their answer cannot depend on what exists outside the roots.
     */
    static Path realForRead(Path lex) {
        Path cur = lex;
        for (int hops = 0; hops < 40; hops++) {
            Path existing = cur;
            List<Path> rest = new ArrayList<>();
            while (existing != null && !Files.exists(existing)) {
                if (Files.isSymbolicLink(existing)) {
                    break;
                }
                rest.add(0, existing.getFileName());
                existing = existing.getParent();
            }
            if (existing == null) {
                return cur;
            }
            Path base;
            if (Files.isSymbolicLink(existing) && !Files.exists(existing)) {
                // a dangling link: follow the name it holds, from its own (resolved) directory
                try {
                    Path target = Files.readSymbolicLink(existing);
                    Path dir = existing.getParent() == null ? Path.of("/") : realOrSelf(existing.getParent());
                    base = dir.resolve(target).normalize();
                } catch (IOException | UnsupportedOperationException e) {
                    return cur;
                }
                for (Path part : rest) {
                    base = base.resolve(part.toString());
                }
                cur = base.normalize();
                continue;
            }
            try {
                base = existing.toRealPath();
            } catch (IOException e) {
                base = existing;
            }
            for (Path part : rest) {
                base = base.resolve(part.toString());
            }
            return base;
        }
        return cur;
    }

    Check forWrite(String input) {
        Resolved r = resolve(input);
        if (r.refused() != null) {
            return r.refused();
        }
        Path lex = r.lex();
        if (r.error() != null) {
            return new Check.Invalid("cannot write " + lex + ": " + r.error().getMessage());
        }
        Path real = r.real();
        String linked = deniedLiteral(real);
        if (linked != null) {
            return new Check.Denied(lex, real, linked);
        }
        String repo = repositoryDenial(real);
        if (repo != null) {
            return new Check.Denied(lex, real, repo);
        }
        for (Path p : List.of(lex, real)) {
            Path inPolicy = toPolicySpace(p);
            String why = writeDenial(inPolicy);
            String unread = why == null ? policy.readDenial(inPolicy) : null;
            if (unread != null) {
                // a command sees a read-denied path masked (an empty tmpfs, /dev/null): its writes never reach it
                why = "read-denied, so not writable either: " + unread;
            }
            if (why != null) {
                return new Check.Denied(lex, real, why);
            }
        }
        if (Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            String why = hardLinkDenial(real);
            if (why != null) {
                return new Check.Denied(lex, real, why);
            }
        }
        return new Check.Allowed(lex, real);
    }

    /** The write rule for one absolute path in the policy's (unresolved-root) space: the policy's one rule. */
    String writeDenial(Path p) {
        Path state = workspace.resolve(".mono-agent");
        if (p.startsWith(state)) {
            return "the private state dir .mono-agent/ is never agent-writable";
        }
        String linked = deniedLiteral(p);
        return linked != null ? linked : policy.writeDenial(p);
    }

    /**
     * Why writing {@code real} would write into, or complete, a repository host git would obey (a bare layout: a
     * {@code HEAD} with {@code objects} and {@code refs}, or with a {@code commondir}), or null. Checked for each
     * directory on the way from the writable root: the git control directory is read-only to commands too.
     */
    String repositoryDenial(Path real) {
        Path root = policy.agentWritable().stream().map(this::rootReal).filter(real::startsWith).findFirst()
                .orElse(null);
        if (root == null) {
            return null;
        }
        for (Path dir = real.getParent(); dir != null && dir.startsWith(root); dir = dir.getParent()) {
            String entry = dir.relativize(real).getName(0).toString();
            if (Policy.bareLayoutWith(dir, entry)) {
                return "it would write into a git repository laid out in " + dir + " (host git would read its config "
                        + "and run its hooks); the git control directory is read-only";
            }
        }
        return null;
    }

    /** Why the engine's literal denies cover {@code p} (as written or real), or null. */
    private String deniedLiteral(Path p) {
        for (Path d : denied) {
            if (p.startsWith(d)) {
                return "protected: the sandbox denies writing " + d + " (a protected name, or where a protected link "
                        + "leads)";
            }
        }
        return null;
    }

    boolean insideReadable(Path p) {
        Set<Path> roots = new LinkedHashSet<>(policy.readableRoots());
        roots.addAll(policy.writableRoots());
        for (Path r : roots) {
            if (p.startsWith(r) || p.startsWith(rootReal(r))) {
                return true;
            }
        }
        return false;
    }

    /** Maps a real path under a symlinked root back to the root as the policy spells it. */
    Path toPolicySpace(Path real) {
        Set<Path> roots = new LinkedHashSet<>();
        roots.add(workspace);
        roots.addAll(policy.writableRoots());
        roots.addAll(policy.readableRoots());
        for (Path r : roots) {
            Path rr = rootReal(r);
            if (!rr.equals(r) && real.startsWith(rr) && !real.startsWith(r)) {
                return r.resolve(rr.relativize(real).toString()).normalize();
            }
        }
        return real;
    }

    /**
     * Where root {@code r} really leads, as far as the tools may follow it: where it led when the policy was made
     * (a root that did not exist then may since have become a link a sandboxed command made), and a root inside the
     * workspace as written never out of it.
     */
    Path rootReal(Path r) {
        Path rr = policy.pins().real(r);
        if (r.startsWith(workspace) && !rr.startsWith(workspaceReal())) {
            return r;
        }
        return rr;
    }

    /** Where the workspace led when the policy was made. */
    Path workspaceReal() {
        return policy.pins().real(policy.workspace());
    }

    static Path realOrSelf(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }

    /** A symlink whose target does not exist: writing through it would land wherever it points. */
    static final class DanglingLink extends IOException {
        private static final long serialVersionUID = 1L;

        DanglingLink(String m) {
            super(m);
        }
    }

    /**
     * The real path: every existing component's symlinks resolved. For a path that does not exist yet, the deepest
     * existing ancestor is resolved and the rest appended; a dangling symlink on the way is refused (writing through
     * it would land wherever it points).
     */
    static Path realOf(Path lex) throws IOException {
        if (Files.exists(lex)) {
            return lex.toRealPath();
        }
        Path existing = lex;
        List<Path> rest = new ArrayList<>();
        while (existing != null && !Files.exists(existing)) {
            if (Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
                throw new DanglingLink("the path goes through a dangling symbolic link: " + existing);
            }
            rest.add(0, existing.getFileName());
            existing = existing.getParent();
        }
        if (existing == null) {
            throw new IOException("no existing ancestor");
        }
        Path real = existing.toRealPath();
        if (!Files.isDirectory(real)) {
            throw new IOException("not a directory: " + existing);
        }
        for (Path part : rest) {
            real = real.resolve(part.toString());
        }
        return real;
    }

    /**
     * A file with more than one name is writable only when every name was found under the writable roots and none
     * of them is protected; otherwise writing it could change a secret (or a file outside the roots) through the
     * other name.
     */
    String hardLinkDenial(Path real) {
        Object nlinkAttr;
        Object key;
        try {
            nlinkAttr = Files.getAttribute(real, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
            key = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
        int nlink = ((Number) nlinkAttr).intValue();
        if (nlink <= 1) {
            return null;
        }
        List<Path> names = new ArrayList<>();
        int[] seen = {0};
        boolean[] overLimit = {false};
        Set<Path> roots = new LinkedHashSet<>();
        for (Path r : policy.writableRoots()) {
            roots.add(rootReal(r));
        }
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try {
                Files.walkFileTree(root, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (++seen[0] > HARD_LINK_SCAN_LIMIT) {
                            overLimit[0] = true;
                            return FileVisitResult.TERMINATE;
                        }
                        if (attrs.isRegularFile() && key != null && key.equals(attrs.fileKey())) {
                            names.add(file);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException exc) {
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                return "hard link (" + nlink + " names) that could not be checked: " + e.getMessage();
            }
        }
        if (overLimit[0]) {
            return "hard link (" + nlink + " names) in a tree too large to check";
        }
        for (Path n : names) {
            if (writeDenial(toPolicySpace(n)) != null) {
                return "hard link to protected file " + n;
            }
        }
        if (names.size() < nlink) {
            return "hard link (" + nlink + " names) with a name outside the writable roots";
        }
        return null;
    }

    String policyReadDenial(Path abs) {
        return policy.readDenial(toPolicySpace(abs));
    }
}
