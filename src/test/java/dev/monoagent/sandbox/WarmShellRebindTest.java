package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A protected path the host replaces by rename between two commands of a run. The old file's bind in the run's warm
 * shell goes with the old inode (the kernel detaches a mount whose mount point is renamed over on another namespace's
 * side), so a shell reused for the same paths would leave the new file writable. The protected layout a shell is
 * matched on names each protected file's identity: the next command gets a new shell bound over the new
 * one.
 */
class WarmShellRebindTest {
    @TempDir
    Path tmp;

    /** An editor's save (temp file renamed over {@code .env.local}); the write keeps size and mtime (3 of 3 before). */
    @Test
    void aProtectedFileTheHumanSavesByRenameIsNotWritableOnTheRunsShell() throws Exception {
        writeAfterSaves("one", "save\n");
    }

    /** {@code ln -sfn}: a protected symlink repointed to another file, beside a long-lived process (nothing recorded). */
    @Test
    void aRepointedProtectedSymlinkBesideALongLivedProcessIsNotWrittenThrough() throws Exception {
        repointed(true);
    }

    /** The same with no long-lived process (recorded only as "outcome not known" before). */
    @Test
    void aRepointedProtectedSymlinkIsNotWrittenThrough() throws Exception {
        repointed(false);
    }

    /**
     * The human repoints a directory on the way ({@code .env.custom -> conf/prod.env}, {@code conf -> config} becomes
     * {@code conf -> staging}): the link is the same entry, but srt bound the old target only. With and without a
     * long-lived process beside it.
     */
    @Test
    void aProtectedSymlinkWhoseDirectoryOnTheWayTheHumanRepointsIsNotWrittenThrough() throws Exception {
        for (boolean withRepl : new boolean[] {false, true}) {
            repointedBy(withRepl ? "hop-repl" : "hop-norepl", withRepl, "conf/prod.env", "conf", "staging",
                    "staging/prod.env");
        }
    }

    private void repointed(boolean withRepl) throws Exception {
        repointedBy(withRepl ? "ws-repl" : "ws-norepl", withRepl, "config/prod.env", ".env.custom",
                "config/staging.env", "config/staging.env");
    }

    /**
     * {@code .env.custom -> linkText} made (beside a long-lived process when {@code withRepl}) and written through
     * once; then the human renames a link to {@code newText} over {@code entry}, and a command writes through
     * {@code .env.custom} again: {@code written} (where it leads now) must be untouched, and the human's link kept.
     */
    private void repointedBy(String name, boolean withRepl, String linkText, String entry, String newText,
                             String written) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(name)).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        Path cfg = Files.createDirectories(ws.resolve("config"));
        Files.writeString(cfg.resolve("prod.env"), "orig\n");
        Files.writeString(cfg.resolve("staging.env"), "orig\n");
        Files.writeString(Files.createDirectories(ws.resolve("staging")).resolve("prod.env"), "orig\n");
        Files.createSymbolicLink(ws.resolve("conf"), Path.of("config"));
        try (TestEngine.Warm w = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = w.sandbox();
            SandboxProcess repl = withRepl ? TestEngine.longLived(sb, ws, "sleep 60", "run-a5", "call-repl",
                    Duration.ofSeconds(90)) : null;
            try {
                Files.createSymbolicLink(ws.resolve(".env.custom"), Path.of(linkText));
                TestEngine.bash(sb, ws, "echo pwned >> .env.custom 2>/dev/null; "
                        + "echo ran", "run-a5", "call-a5-0", Duration.ofSeconds(30));
                assertEquals("orig\n", Files.readString(cfg.resolve("prod.env")));
                // the human repoints it
                Path tl = ws.resolve(entry + ".tmp");
                Files.createSymbolicLink(tl, Path.of(newText));
                Files.move(tl, ws.resolve(entry), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
                ExecOutcome.Completed r = TestEngine.bash(sb, ws, "echo pwned >> .env.custom 2>/dev/null; "
                        + "echo ran", "run-a5", "call-a5-1", Duration.ofSeconds(30));
                assertEquals("orig\n", Files.readString(ws.resolve(written)), "written through the repointed "
                        + entry + " (repl=" + withRepl + "); recorded: " + r.violations());
                assertEquals(Path.of(newText), Files.readSymbolicLink(ws.resolve(entry)), "the human's change was "
                        + "undone");
            } finally {
                if (repl != null) {
                    repl.destroy();
                }
            }
        }
    }

    /**
     * Two saves in a row — ext4 hands the first inode number back (N1, N2, N1), so a layout naming the inode alone
     * would match the old shell again and the write would land. The layout names the ctime too.
     */
    @Test
    void twoSavesInARowThatGiveTheInodeNumberBackStillGetANewShell() throws Exception {
        writeAfterSaves("two", "save1\n", "save2\n");
    }

    /**
     * A warm shell made over {@code .env.local}, then the human's saves (each a temp file renamed over it), then a
     * command that overwrites the file in place keeping its size and mtime: the last save must survive.
     */
    private void writeAfterSaves(String name, String... saves) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve(name)).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        Path env = ws.resolve(".env.local");
        Files.writeString(env, "orig\n");
        try (TestEngine.Warm w = TestEngine.openWarm(ws, new TestEngine.Events())) {
            Sandbox sb = w.sandbox();
            TestEngine.bash(sb, ws, "echo pwned >> .env.local 2>/dev/null; echo ran", "run-" + name, "c0",
                    Duration.ofSeconds(30));
            assertEquals("orig\n", Files.readString(env), "written before any save");
            assertEquals(1, sb.engine().warmShellsAlive(), "warm shell");
            for (String text : saves) {
                save(env, text);
            }
            ExecOutcome.Completed r = TestEngine.bash(sb, ws, "touch -r .env.local \"$TMPDIR/ref\"; printf 'EVIL\\n' "
                    + "| dd of=.env.local conv=notrunc status=none; touch -r \"$TMPDIR/ref\" .env.local; echo ran",
                    "run-" + name, "c1", Duration.ofSeconds(30));
            assertEquals(saves[saves.length - 1], Files.readString(env), "the saved .env.local was written; recorded: "
                    + r.violations());
        }
    }

    /** An editor's save: a temp file (a name that is not protected) renamed over {@code f}. */
    private static void save(Path f, String text) throws java.io.IOException {
        Path t = f.resolveSibling("save-tmp-" + System.nanoTime());
        Files.writeString(t, text);
        Files.move(t, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
