package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sandboxed code swapping a checked directory for a symlink between the policy check and the I/O (the reviewer's
 * renameat2 flipper): the file tools must refuse, never read or write through the swapped-in link.
 */
class FileToolsRaceTest {
    static final String SECRET = "HOME_SECRET=hunter2";
    static final byte[] GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path root;
    Path ws;
    Path secretDir;
    Fixture fx;

    @BeforeEach
    void setUp() throws Exception {
        root = root.toRealPath();
        ws = Files.createDirectory(root.resolve("ws"));
        secretDir = Files.createDirectory(root.resolve("secret-dir"));
        Files.writeString(secretDir.resolve("config"), SECRET + "\n");
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.write(ws.resolve(".git/config"), GIT_CONFIG);
        Files.createDirectories(ws.resolve("sub"));
        Files.writeString(ws.resolve("sub/config"), "benign\n");
        fx = new Fixture(ws, SandboxPort.UNAVAILABLE);
    }

    @AfterEach
    void tearDown() {
        FdFile.afterCheck = p -> {};
        fx.close();
    }

    /** Puts the flipper's names back: the real dir at {@code sub}, the link at {@code link}. */
    private static void restore(Path sub, Path away, Path link) {
        try {
            if (Files.isSymbolicLink(sub)) {
                Files.move(sub, link, StandardCopyOption.ATOMIC_MOVE);
            }
            if (Files.exists(away, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.isDirectory(sub, LinkOption.NOFOLLOW_LINKS)) {
                    try (var s = Files.list(sub)) {
                        for (Path p : s.toList()) {
                            Files.delete(p);
                        }
                    }
                    Files.delete(sub);
                }
                Files.move(away, sub, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            // a Write raced this repair: the next round tries again
        }
    }

    /** Moves the real {@code sub} away and puts a symlink to {@code target} in its place. */
    private void swapSubFor(Path target) {
        try {
            if (!Files.isSymbolicLink(ws.resolve("sub"))) {
                Files.move(ws.resolve("sub"), ws.resolve("sub-away"), StandardCopyOption.ATOMIC_MOVE);
                Files.createSymbolicLink(ws.resolve("sub"), target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void assertDeniedAsRace(ToolResult r, Violation.Kind kind) {
        var f = assertInstanceOf(ToolResult.Failed.class, r, r.text());
        assertEquals(ToolResult.DENIED_BY_POLICY, f.code(), r.text());
        assertTrue(r.text().contains("race"), r.text());
        assertEquals(kind, fx.violations().get(fx.violations().size() - 1).kind());
    }

    @Test
    void readCannotFollowASymlinkSwappedInAfterTheCheck() {
        FdFile.afterCheck = p -> swapSubFor(secretDir);
        ToolResult r = fx.call("Read", json("file_path", "sub/config"));
        assertFalse(r.text().contains(SECRET), r.text());
        assertDeniedAsRace(r, Violation.Kind.READ);
    }

    @Test
    void writeCannotFollowASymlinkSwappedInAfterTheCheck() throws Exception {
        FdFile.afterCheck = p -> swapSubFor(ws.resolve(".git"));
        ToolResult r = fx.call("Write", json("file_path", "sub/config", "content", "[core]\n\tfsmonitor = evil\n"));
        assertDeniedAsRace(r, Violation.Kind.WRITE);
        assertArrayEquals(GIT_CONFIG, Files.readAllBytes(ws.resolve(".git/config")));
        try (var s = Files.list(ws.resolve(".git"))) {
            assertEquals(2, s.count(), "no temp file left in .git");
        }
    }

    @Test
    void writeOfANewFileCannotLandInASwappedInDirectory() throws Exception {
        FdFile.afterCheck = p -> swapSubFor(ws.resolve(".git/hooks"));
        ToolResult r = fx.call("Write", json("file_path", "sub/pre-commit", "content", "#!/bin/sh\nevil\n"));
        assertDeniedAsRace(r, Violation.Kind.WRITE);
        try (var s = Files.list(ws.resolve(".git/hooks"))) {
            assertEquals(0, s.count());
        }
    }

    @Test
    void editCannotFollowASymlinkSwappedInAfterTheCheck() throws Exception {
        Files.writeString(ws.resolve("sub/config"), "[core]\n\trepositoryformatversion = 0\n");
        FdFile.afterCheck = p -> swapSubFor(ws.resolve(".git"));
        ToolResult r = fx.call("Edit", json("file_path", "sub/config", "old_string", "repositoryformatversion = 0",
                "new_string", "fsmonitor = evil"));
        assertDeniedAsRace(r, Violation.Kind.WRITE);
        assertArrayEquals(GIT_CONFIG, Files.readAllBytes(ws.resolve(".git/config")));
    }

    @Test
    void aSymlinkedFileSwappedInIsRefusedToo() throws Exception {
        FdFile.afterCheck = p -> {
            try {
                Files.delete(ws.resolve("sub/config"));
                Files.createSymbolicLink(ws.resolve("sub/config"), ws.resolve(".git/config"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        assertDeniedAsRace(fx.call("Write", json("file_path", "sub/config", "content", "x")), Violation.Kind.WRITE);
        assertArrayEquals(GIT_CONFIG, Files.readAllBytes(ws.resolve(".git/config")));
        assertTrue(Files.isSymbolicLink(ws.resolve("sub/config")));
    }

    /**
     * A real concurrent flipper, as sandboxed code would run it: {@code sub} alternates between the real directory
     * and a symlink (to the home secret dir, then to {@code .git}) while Read and Write run on {@code sub/config}.
     */
    @Test
    void concurrentFlipperNeverLeaksTheSecretNorTouchesGitConfig() throws Exception {
        Files.createSymbolicLink(ws.resolve("link-secret"), secretDir);
        Files.createSymbolicLink(ws.resolve("link-git"), ws.resolve(".git"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger flips = new AtomicInteger();
        String[] linkName = {"link-secret"};
        Thread flipper = Thread.ofPlatform().daemon().start(() -> {
            Path sub = ws.resolve("sub");
            Path away = ws.resolve("sub-away");
            while (!stop.get()) {
                Path link = ws.resolve(linkName[0]);
                try {
                    Files.move(sub, away, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(link, sub, StandardCopyOption.ATOMIC_MOVE);
                    Thread.onSpinWait();
                    Files.move(sub, link, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(away, sub, StandardCopyOption.ATOMIC_MOVE);
                    flips.incrementAndGet();
                } catch (IOException e) {
                    // Write creates a missing parent: in the gap between two moves it made a fresh "sub"
                    restore(sub, away, link);
                }
            }
            restore(sub, away, ws.resolve(linkName[0]));
        });
        int reads = 0;
        int writes = 0;
        try {
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < deadline) {
                ToolResult r = fx.call("Read", json("file_path", "sub/config"));
                assertFalse(r.text().contains(SECRET), "leaked through the flipped symlink: " + r.text());
                reads++;
            }
            linkName[0] = "link-git";
            deadline = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < deadline) {
                fx.call("Write", json("file_path", "sub/config", "content", "[core]\n\tfsmonitor = evil\n"));
                assertArrayEquals(GIT_CONFIG, Files.readAllBytes(ws.resolve(".git/config")),
                        "wrote through the flipped symlink");
                writes++;
            }
        } finally {
            stop.set(true);
            flipper.join(5_000);
        }
        assertTrue(flipper.getState() == Thread.State.TERMINATED, "flipper stopped");
        assertTrue(flips.get() > 10, "the flipper ran: " + flips.get());
        assertTrue(reads > 10 && writes > 10, reads + " reads, " + writes + " writes");
        assertArrayEquals(GIT_CONFIG, Files.readAllBytes(ws.resolve(".git/config")));
    }
}
