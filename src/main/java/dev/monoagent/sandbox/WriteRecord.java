package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * What a record may say about a write-intent event from srt's Linux feed. The feed reports an <em>attempt</em> and
 * the path string the syscall was given (seccomp sees neither the result nor what the path resolves to inside the
 * sandbox; README calls the strings racy hints). So the record says only what the host can tell from that string:
 * <ul>
 *   <li>a path the host can resolve to a read-only place (a read-only bind, a protected file): refused;</li>
 *   <li>a path on the sandbox's own filesystems — {@code /proc}, {@code /dev}, the empty tmpfs over every
 *       read-denied directory ({@code /tmp}, home ...): the outcome is not known. A file made there stays inside the
 *       sandbox, but a link the agent made there, or {@code /proc/self/cwd}, can lead to a workspace file, and a
 *       write through it is then on the host (or refused, if that file is protected). So such a write is
 *       never recorded as "allowed there … no host file was written": it may have reached the workspace, or a
 *       protected file may have refused it;</li>
 *   <li>a path whose last components name a protected workspace file ({@code .env}, {@code .git/hooks/pre-commit})
 *       says so, whatever it goes through, so a probe of a protected file through an alias is visible as one.</li>
 * </ul>
 * What the command's own error or the host's files show afterwards is added by the engine as records of their own.
 *
 * @param privateDirs   the read-denied directories srt hides behind a tmpfs of the sandbox's own
 * @param boundBack     the directories bound (read-only or read-write) back inside those, visible as on the host
 * @param writable      where the agent may write (the workspace and the writable roots)
 * @param workspace     the workspace, for matching a path's last components against its protected names
 * @param protection    why a host path is protected ({@link Policy#protection}), or null
 */
record WriteRecord(List<Path> privateDirs, List<Path> boundBack, List<Path> writable, Path workspace,
                   Function<Path, String> protection) {

    /** The start of an outcome-not-known reason (the engine looks for it when it adds what it learnt later). */
    static final String NOT_KNOWN = "outcome not known from the engine's feed";

    /** No layout known (the seatbelt tests, a classification before the engine has started). */
    static final WriteRecord NONE = new WriteRecord(List.of(), List.of(), List.of(), null, p -> null);

    /** The reason for a record of a write attempt on {@code target} by {@code syscall}. */
    String reason(String target, String syscall) {
        Path t;
        try {
            t = Path.of(target).normalize();
        } catch (InvalidPathException e) {
            return "write attempt via " + target + " (" + syscall + ") — " + NOT_KNOWN + ": the host cannot read the "
                    + "path";
        }
        String own = ownFilesystem(t);
        if (own == null && t.isAbsolute()) {
            // a link on the host (bound into the sandbox as it is) leads where it leads there too
            Path real;
            try {
                real = resolvedOnHost(t);
            } catch (IOException e) {
                return unknown(target, syscall, protectedName(t), "it goes through a link on the host that does not "
                        + "resolve");
            }
            if (!real.equals(t)) {
                String at = ownFilesystem(real);
                if (at != null || under(real, writable) && protection.apply(real) == null) {
                    return unknown(target, syscall, protectedName(real), "it leads on the host to " + real
                            + (at != null ? ", on " + at : ", inside the writable roots"));
                }
                return REFUSED + syscall + "); " + target + " leads on the host to " + real;
            }
        }
        if (own != null) {
            return unknown(target, syscall, protectedName(t), "it is on " + own + ", where a file stays inside the "
                    + "sandbox, but a link made there or /proc/self/cwd can lead to a workspace file, whose change is "
                    + "then on the host");
        }
        return REFUSED + syscall + ")";
    }

    private static final String REFUSED = "write refused by the sandbox (";

    private static String unknown(String target, String syscall, String[] named, String why) {
        if (named == null) {
            return "write attempt via " + target + " (" + syscall + ") — " + NOT_KNOWN + ": " + why;
        }
        return "write attempt on a protected name (" + named[0] + ": " + named[1] + ") via " + target + " ("
                + syscall + ") — " + NOT_KNOWN + ": " + why + "; if it leads to the workspace's " + named[0]
                + ", that file is protected (read-only to the agent; a new or changed one is recorded by the "
                + "after-command scan)";
    }

    /** Which of the sandbox's own filesystems {@code t} is on ("the sandbox's private /proc"), or null. */
    String ownFilesystem(Path t) {
        if (t.startsWith("/proc")) {
            return "the sandbox's private /proc";
        }
        if (t.startsWith("/dev")) {
            return "the sandbox's private /dev";
        }
        if (under(t, boundBack)) {
            return null;
        }
        for (Path d : privateDirs) {
            if (t.startsWith(d)) {
                return "the sandbox's own empty tmpfs over " + d;
            }
        }
        return null;
    }

    /**
     * The shortest run of {@code t}'s last components that names a protected file in the workspace, with why it is
     * protected ({@code [".git/hooks/pre-commit", "git control directory ..."]}), or null.
     */
    String[] protectedName(Path t) {
        if (workspace == null) {
            return null;
        }
        int n = t.getNameCount();
        for (int k = n - 1; k >= 0; k--) {
            Path rel = t.subpath(k, n);
            String why = protection.apply(workspace.resolve(rel));
            if (why != null) {
                return new String[] {rel.toString(), why};
            }
        }
        return null;
    }

    private static boolean under(Path t, List<Path> roots) {
        return roots.stream().anyMatch(t::startsWith);
    }

    /**
     * {@code t} with its deepest existing ancestor resolved through links on the host.
     *
     * @throws IOException when that ancestor is a link that does not resolve
     */
    static Path resolvedOnHost(Path t) throws IOException {
        Path known = t;
        Path rest = null;
        while (known != null && !Files.exists(known, LinkOption.NOFOLLOW_LINKS)) {
            rest = rest == null ? known.getFileName() : known.getFileName().resolve(rest);
            known = known.getParent();
        }
        if (known == null) {
            return t;
        }
        Path real = known.toRealPath();
        return rest == null ? real : real.resolve(rest).normalize();
    }
}
