package dev.monoagent.config;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The workspace's state dir {@code .mono-agent/} is written by the host process (memory, run logs, conversations,
 * quarantine), which is not sandboxed. mono-agent only ever makes directories, regular files and, under
 * {@code control/}, its socket there, and the agent can never write there; anything else — a symlink (the host would
 * append to {@code ~/.bashrc} through {@code memory/daily/<today>.md}), a file with a second name (a hard link, the
 * same append), a regular file where a directory belongs (a
 * file named {@code quarantine} disables quarantine) — arrived with the repository, and no command runs until it is
 * removed.
 */
final class StateDirCheck {
    /** The state dir's subdirectories mono-agent writes into: each must be a directory when present. */
    static final Set<String> DIRECTORIES = Set.of("quarantine", "runs", "memory", "sessions", "artifacts",
            "violations", "control", "logs", "reports");

    /** The state dir's subdirectories that hold only files (a directory there would swallow a record). */
    static final Set<String> FILES_ONLY = Set.of("violations", "logs");

    /**
     * Entries looked at; a state dir with more is refused, never passed unchecked (a repository could hide a link
     * behind a flood of files). The reviewer's own history stays far below it (run logs are a few files per run).
     */
    static final int MAX_ENTRIES = 50_000;

    private StateDirCheck() {}

    static List<ConfigError> problems(Path workspace) {
        Path state = workspace.resolve(".mono-agent");
        List<ConfigError> out = new ArrayList<>();
        if (Files.isSymbolicLink(state)) {
            out.add(error(state, "is a symbolic link"));
            return out;
        }
        if (!Files.exists(state, LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        if (!Files.isDirectory(state, LinkOption.NOFOLLOW_LINKS)) {
            out.add(error(state, "is not a directory"));
            return out;
        }
        for (String d : DIRECTORIES) {
            Path p = state.resolve(d);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                out.add(error(p, "is not a directory"));
            }
        }
        int[] seen = {0};
        try {
            Path quarantine = state.resolve("quarantine");
            Files.walkFileTree(state, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                    // quarantine holds what the agent made, moved by directory handle and never read back as
                    // settings: an agent's link or hard link kept there as evidence must not stop every command
                    if (d.equals(quarantine)) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (++seen[0] > MAX_ENTRIES || out.size() >= 5) {
                        return FileVisitResult.TERMINATE;
                    }
                    Path parent = d.getParent();
                    if (parent != null && parent.getParent() != null && parent.getParent().equals(state)
                            && FILES_ONLY.contains(parent.getFileName().toString())) {
                        out.add(error(d, "is a directory where mono-agent keeps only files"));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                    if (++seen[0] > MAX_ENTRIES || out.size() >= 5) {
                        return FileVisitResult.TERMINATE;
                    }
                    boolean socketInControl = a.isOther() && f.getParent().equals(state.resolve("control"));
                    if (a.isSymbolicLink()) {
                        out.add(error(f, "is a symbolic link"));
                    } else if (a.isRegularFile() && links(f) > 1) {
                        out.add(error(f, "has another name (a hard link)"));
                    } else if (!a.isRegularFile() && !a.isDirectory() && !socketInControl) {
                        out.add(error(f, "is not a regular file"));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // unreadable parts are the reviewer's to fix; the writes there fail on their own
        }
        if (seen[0] > MAX_ENTRIES && out.isEmpty()) {
            out.add(new ConfigError(".mono-agent", state + " holds more than " + MAX_ENTRIES + " entries, too many "
                    + "to check that none of them came with the repository (mono-agent writes a few files per run). "
                    + "Remove what you do not recognise, or the whole directory if the repository shipped it "
                    + "(rm -r " + state + "), and run the command again."));
        }
        return out;
    }

    /** The file's link count, or 1 when the file system does not say. */
    private static int links(Path f) {
        try {
            return (Integer) Files.getAttribute(f, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return 1;
        }
    }

    private static ConfigError error(Path p, String what) {
        return new ConfigError(".mono-agent", p + " " + what + ": mono-agent never makes one in its state dir and the "
                + "agent cannot write there, so it came with the repository (the host would write through it). "
                + "Remove it (rm " + p + ") and run the command again.");
    }
}
