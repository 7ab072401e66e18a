package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watch's index must list exactly what the full walk ({@link ProtectedFinder#find}) lists, after
 * any sequence of changes — or refuse to answer (null, so the caller walks). The changes are the ones that break a
 * naive incremental index: a subtree moved in from outside the workspace (the session tmp dir), a directory renamed
 * (rename chains), a directory made and filled at once (before its watch exists), symlinks and fifos named like
 * secrets, non-UTF-8 names, a repository planted by {@code cp -r}/{@code mv}, deletions of whole trees, and a
 * directory replaced by a file. The full walk is the reference; no sandbox is needed to check the index itself.
 */
class WatchIndexParityTest {
    @TempDir
    Path tmp;

    private ProtectedWatch watch;
    /** The sync dir of the watch {@link #start} made. */
    private Path syncDir;

    @AfterEach
    void close() {
        ProtectedWatch.failRegistrationsFrom = 0;
        if (watch != null) {
            watch.close();
        }
    }

    private Policy policy(Path ws) {
        return PolicyCompiler.compile(TestEngine.config(ws, NetworkMode.NONE, List.of()), tmp.resolve("home"),
                tmp.resolve("cache"));
    }

    private ProtectedWatch start(Policy p) throws Exception {
        syncDir = Files.createDirectories(tmp.resolve("sync-" + System.nanoTime()));
        watch = ProtectedWatch.start(p, List::of, syncDir);
        assertNotNull(watch, "no watch service");
        watch.mark();
        return watch;
    }

    /** The index after a sync, waiting (bounded) for a rebuild the watch asked for itself. */
    private static List<Path> indexed(ProtectedWatch w) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (w.sync()) {
                List<Path> got = w.indexed();
                if (got != null) {
                    return got;
                }
            }
            Thread.sleep(100);
        }
        return null;
    }

    /**
     * A sync returns only once every event from before it was applied, for several threads syncing at once (the scans
     * of concurrent commands), and its one marker is renamed each time rather than piling up or being deleted.
     */
    @Test
    void concurrentSyncsEachSeeWhatWasWrittenBeforeThem() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Policy p = policy(ws);
        ProtectedWatch w = start(p);
        assertNotNull(indexed(w), "index never trusted");
        List<String> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int n = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 50; i++) {
                        Path f = Files.createDirectories(ws.resolve("t" + n + "/d" + i)).resolve(".env.s" + i);
                        Files.writeString(f, "S=1\n");
                        if (!w.sync()) {
                            failures.add("sync " + n + "/" + i + " timed out");
                            continue;
                        }
                        List<Path> got = w.indexed();
                        if (got == null || !got.contains(f)) {
                            failures.add(f + " written before the sync is not indexed after it");
                        }
                    }
                } catch (Exception e) {
                    failures.add(e.toString());
                }
            }));
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), "a syncing thread did not finish");
        }
        assertEquals(List.of(), failures);
        try (var s = Files.list(syncDir)) {
            assertEquals(1, s.count(), "one sync marker, renamed each time");
        }
        assertSame(p, w, "after the concurrent syncs");
    }

    private static void assertSame(Policy p, ProtectedWatch w, String when) throws Exception {
        List<Path> got = indexed(w);
        assertNotNull(got, "index never trusted " + when);
        TreeSet<String> want = new TreeSet<>();
        ProtectedFinder.find(p, null).forEach(x -> want.add(x.toString()));
        TreeSet<String> have = new TreeSet<>();
        got.forEach(x -> have.add(x.toString()));
        assertEquals(want, have, "index differs from the full walk " + when);
    }

    @Test
    void indexMatchesTheFullWalkThroughAdversarialChanges() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path outside = Files.createDirectories(tmp.resolve("session-tmp")).toRealPath();
        Files.createDirectories(ws.resolve("app/src"));
        Files.writeString(ws.resolve("app/.env"), "A=1\n");
        Files.writeString(ws.resolve("app/src/main.js"), "x\n");
        Policy p = policy(ws);
        ProtectedWatch w = start(p);
        assertSame(p, w, "at start");

        // a directory made and filled in one go, deeper than any watch yet
        Files.createDirectories(ws.resolve("n1/n2/n3"));
        Files.writeString(ws.resolve("n1/n2/n3/.env.deep"), "S=1\n");
        Files.writeString(ws.resolve("n1/n2/.bashrc"), "evil\n");
        assertSame(p, w, "after mkdir -p and writes");

        // a subtree built outside the workspace and moved in: a repository and secrets inside it
        Path built = Files.createDirectories(outside.resolve("built/.git/hooks"));
        Files.writeString(built.resolve("../HEAD"), "ref: refs/heads/main\n");
        Files.writeString(built.resolve("../config"), "[core]\n\tfsmonitor = touch /tmp/x\n");
        Files.writeString(built.resolve("pre-commit"), "#!/bin/sh\n");
        Files.writeString(outside.resolve("built/.env.moved"), "S=2\n");
        Files.createDirectories(outside.resolve("built/bare/objects"));
        Files.createDirectories(outside.resolve("built/bare/refs"));
        Files.writeString(outside.resolve("built/bare/HEAD"), "ref: refs/heads/main\n");
        Files.move(outside.resolve("built"), ws.resolve("moved-in"), StandardCopyOption.ATOMIC_MOVE);
        assertSame(p, w, "after a tree moved in");

        // rename chains: a -> b -> .vscode (dangerous dir) -> c, and a file renamed into a secret name
        Files.createDirectories(ws.resolve("a/inner"));
        Files.writeString(ws.resolve("a/inner/settings.json"), "{}\n");
        Files.move(ws.resolve("a"), ws.resolve("b"));
        Files.move(ws.resolve("b"), ws.resolve(".vscode"));
        assertSame(p, w, "after renaming a dir to .vscode");
        Files.move(ws.resolve(".vscode"), ws.resolve("c"));
        Files.writeString(ws.resolve("c/inner/plain"), "p\n");
        Files.move(ws.resolve("c/inner/plain"), ws.resolve("c/inner/.env.renamed"));
        assertSame(p, w, "after a rename chain");

        // moved away out of the workspace, then something new at the old path (the old watch still reports)
        Files.move(ws.resolve("c"), outside.resolve("c-away"), StandardCopyOption.ATOMIC_MOVE);
        Files.createDirectories(ws.resolve("c"));
        Files.writeString(outside.resolve("c-away/inner/.env.ghost"), "S=3\n");
        Files.writeString(ws.resolve("c/.env.real"), "S=4\n");
        assertSame(p, w, "after moving a watched dir out");

        // symlinks, a fifo, a non-UTF-8 name, all named like secrets
        Files.createSymbolicLink(ws.resolve(".env.link"), tmp.resolve("home"));
        Files.createSymbolicLink(ws.resolve("app/.git"), outside);
        assertEquals(0, new ProcessBuilder("mkfifo", ws.resolve("app/.env.fifo").toString()).start().waitFor());
        byte[] raw = (ws + "/.env.\u00ff").getBytes(StandardCharsets.ISO_8859_1);
        Path odd = Path.of(new String(raw, StandardCharsets.ISO_8859_1));
        assertEquals(0, new ProcessBuilder("bash", "-c", "printf 'S=5\\n' > $'" + ws + "/.env.\\xff'")
                .start().waitFor());
        assertTrue(Files.list(ws).anyMatch(x -> x.getFileName().toString().startsWith(".env.")
                && !x.getFileName().toString().equals(".env.link")), "non-UTF-8 file made");
        assertSame(p, w, "after symlinks, a fifo and a non-UTF-8 name (" + odd + ")");

        // deletions: a whole tree, a file replaced by a dir and a dir replaced by a file
        SrtRuntime.deleteTree(ws.resolve("moved-in"));
        Files.delete(ws.resolve("app/.env"));
        Files.createDirectories(ws.resolve("app/.env/x"));
        Files.writeString(ws.resolve("app/.env/x/y"), "z\n");
        SrtRuntime.deleteTree(ws.resolve("n1/n2"));
        Files.writeString(ws.resolve("n1/n2"), "now a file\n");
        assertSame(p, w, "after deletions and type changes");
    }

    @Test
    void randomChangesNeverLeaveTheIndexBehindTheWalk() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path outside = Files.createDirectories(tmp.resolve("out")).toRealPath();
        Policy p = policy(ws);
        ProtectedWatch w = start(p);
        Random rnd = new Random(12);
        String[] names = {"a", "b", ".env", ".env.x", ".git", "HEAD", "hooks", "config", ".vscode", ".husky",
            "objects", "refs", ".bashrc", "lib", "node_modules"};
        List<Path> dirs = new ArrayList<>(List.of(ws));
        for (int round = 0; round < 6; round++) {
            for (int i = 0; i < 80; i++) {
                Path d = dirs.get(rnd.nextInt(dirs.size()));
                if (!Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                Path t = d.resolve(names[rnd.nextInt(names.length)]);
                try {
                    switch (rnd.nextInt(6)) {
                        case 0, 1 -> {
                            Files.createDirectories(t);
                            dirs.add(t);
                        }
                        case 2 -> Files.writeString(t, "v\n");
                        case 3 -> SrtRuntime.deleteTree(t);
                        case 4 -> {
                            Path o = Files.createDirectories(outside.resolve("o" + round + "-" + i));
                            Files.createDirectories(o.resolve(".git/hooks"));
                            Files.writeString(o.resolve(".git/HEAD"), "ref: refs/heads/main\n");
                            Files.writeString(o.resolve(".env.local"), "S\n");
                            if (!Files.exists(t, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                                Files.move(o, t, StandardCopyOption.ATOMIC_MOVE);
                                dirs.add(t);
                            }
                        }
                        default -> {
                            Path to = dirs.get(rnd.nextInt(dirs.size())).resolve(names[rnd.nextInt(names.length)]);
                            if (!to.startsWith(t) && Files.exists(t, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                                    && !Files.exists(to, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                                Files.move(t, to, StandardCopyOption.ATOMIC_MOVE);
                                dirs.add(to);
                            }
                        }
                    }
                } catch (java.io.IOException ignored) {
                    // a path that turned into a file or vanished meanwhile: part of the churn
                }
            }
            assertSame(p, w, "after random round " + round);
        }
    }

    @Test
    void aWatchThatCouldNotBeAddedMeansTheFullWalk() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        for (int i = 0; i < 5; i++) {
            Files.createDirectories(ws.resolve("d" + i));
        }
        // from the 4th directory on none can be watched (what ENOSPC at max_user_watches looks like)
        ProtectedWatch.failRegistrationsFrom = 4;
        Policy p = policy(ws);
        ProtectedWatch w = start(p);
        for (int i = 0; i < 5; i++) {
            assertTrue(w.sync());
            assertNull(w.indexed(), "an index with unwatched directories was handed out");
            Thread.sleep(100);
        }
        long before = w.builds();
        assertTrue(before > 1, "no rebuild was tried");
        // once watches can be added again, the rebuild the refusals asked for is trusted
        ProtectedWatch.failRegistrationsFrom = 0;
        assertSame(p, w, "after the rebuild");
        assertTrue(w.builds() > before, "no rebuild");
    }

    @Test
    void aFlagForALayoutThatMayBeARepositoryArrivesWhileItIsBuilt() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve("sub"));
        Policy p = policy(ws);
        ProtectedWatch w = start(p);
        List<Path> flagged = new CopyOnWriteArrayList<>();
        w.onRepository(flagged::add);
        Files.createDirectories(ws.resolve("sub/.git/objects"));
        Files.createDirectories(ws.resolve("sub/.git/refs"));
        Files.writeString(ws.resolve("sub/.git/HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(ws.resolve("bare/objects"));
        Files.writeString(ws.resolve("bare/HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(ws.resolve("bare/refs")); // the layout is complete only now
        Files.writeString(ws.resolve("wt.git"), "x\n");
        Files.move(ws.resolve("wt.git"), ws.resolve("sub2"));
        Files.createDirectories(ws.resolve("sub3"));
        Files.writeString(ws.resolve("sub3/.git"), "gitdir: ../sub/.git\n");
        w.sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (flagged.size() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(flagged.contains(ws.resolve("sub/.git/HEAD")), flagged.toString());
        assertTrue(flagged.contains(ws.resolve("bare")), flagged.toString());
        assertTrue(flagged.contains(ws.resolve("sub3/.git")), flagged.toString());
    }

    /**
     * The watch keeps the key of a directory that leaves the watched tree and comes back as the same inode (a warm
     * placeholder dir moved to the state dir's stash and back, twice per command) instead of registering it again. A
     * different directory at that path, while the old one is still alive in the stash, must get a watch of its own, and
     * so must the old one at a new path: each then reports what is created in it.
     */
    @Test
    void aDirectoryBackFromTheStashIsStillWatchedAndAnotherAtItsPathGetsItsOwnWatch() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path stash = Files.createDirectories(ws.resolve(".mono-agent/warm-stash"));
        Path claude = Files.createDirectories(ws.resolve(".claude"));
        Policy p = policy(ws);
        ProtectedWatch w = start(p);
        assertSame(p, w, "at start");
        for (int i = 0; i < 20; i++) {
            Files.move(claude, stash.resolve("x"));
            assertTrue(w.sync());
            Files.move(stash.resolve("x"), claude);
            assertTrue(w.sync());
        }
        long m1 = w.mark();
        Files.writeString(claude.resolve(".env.leak"), "x");
        assertSame(p, w, "after a file was made in the directory back from the stash");
        assertTrue(w.createdSince(m1).contains(claude.resolve(".env.leak")), "no event from the kept watch");

        // the old directory waits in the stash (its watch still valid) while another is made at its path
        Files.delete(claude.resolve(".env.leak"));
        Files.move(claude, stash.resolve("old"));
        Files.createDirectory(claude);
        assertTrue(w.sync());
        long m2 = w.mark();
        Files.writeString(claude.resolve(".env.other"), "x");
        assertSame(p, w, "after a file was made in a new directory at the same path");
        assertTrue(w.createdSince(m2).contains(claude.resolve(".env.other")),
                "the new directory at the old one's path was not watched: " + w.createdSince(m2));

        // and the old one comes back under another name
        Path moved = ws.resolve("elsewhere");
        Files.move(stash.resolve("old"), moved);
        assertTrue(w.sync());
        long m3 = w.mark();
        Files.writeString(moved.resolve(".env.moved"), "x");
        assertSame(p, w, "after a file was made in the old directory at a new path");
        assertTrue(w.createdSince(m3).contains(moved.resolve(".env.moved")), w.createdSince(m3).toString());

        // deleted and made again (the inode number may be reused): watched again
        Files.delete(claude.resolve(".env.other"));
        Files.delete(claude);
        Files.createDirectory(claude);
        assertTrue(w.sync());
        long m4 = w.mark();
        Files.writeString(claude.resolve(".env.again"), "x");
        assertSame(p, w, "after the directory was deleted and made again");
        assertTrue(w.createdSince(m4).contains(claude.resolve(".env.again")), w.createdSince(m4).toString());
    }
}
