package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two engines on one workspace (the workbench and a CLI run, say) share its {@code .mono-agent/warm-stash}. Each moves
 * its warm commands' placeholders there between commands and back before the next; a warm shell's bind travels with
 * the directory entry, so the entry that comes back must be the one that went (a rename onto a name the other engine
 * used replaces that engine's entry, and both would then bind the wrong inode or none). Names carry a per-engine random
 * prefix; this fails when both engines number their entries alike.
 */
class SharedStashTest {
    @TempDir
    Path tmp;

    @Test
    void twoEnginesGetTheirOwnPlaceholdersBackFromOneStash() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path state = Files.createDirectories(ws.resolve(".mono-agent"));
        Path stash = state.resolve("warm-stash");
        SrtMountPoints a = new SrtMountPoints(List.of(ws), stash);
        SrtMountPoints b = new SrtMountPoints(List.of(ws), stash);
        // each engine's warm shell is a live wrap for as long as it lives (holding no placeholder of its own here)
        a.open("shell-a", List.of());
        b.open("shell-b", List.of());
        Path envLocal = ws.resolve(".env.local");
        Path bashrc = ws.resolve(".bashrc");
        Path vscode = ws.resolve(".vscode/settings.json");

        a.openWarm("a-1", List.of(envLocal, vscode));
        Object aFile = inode(envLocal);
        Object aDir = inode(ws.resolve(".vscode"));
        a.close("a-1");
        b.openWarm("b-1", List.of(bashrc));
        Object bFile = inode(bashrc);
        b.close("b-1");
        assertEquals(3, count(stash), "three entries wait in the stash, one per placeholder");
        for (Path p : List.of(envLocal, bashrc, ws.resolve(".vscode"))) {
            assertTrue(Files.notExists(p, LinkOption.NOFOLLOW_LINKS), p + " is out of the workspace between commands");
        }

        // back, each to its own engine's next command: the same inodes that went
        b.openWarm("b-2", List.of(bashrc));
        a.openWarm("a-2", List.of(envLocal, vscode));
        assertEquals(aFile, inode(envLocal), ".env.local came back from the stash as the placeholder engine A stashed");
        assertEquals(aDir, inode(ws.resolve(".vscode")), ".vscode came back as A's directory");
        assertEquals(bFile, inode(bashrc), ".bashrc came back as the placeholder engine B stashed");
        assertNotEquals(aFile, bFile);
        assertEquals(0, count(stash), "nothing is left behind in the stash");
        a.close("a-2");
        b.close("b-2");
    }

    /** Device and inode (never null here: an identity the comparisons above could pass on vacuously otherwise). */
    private static Object inode(Path p) throws java.io.IOException {
        Object key = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS).fileKey();
        assertNotNull(key, p + " has a file key");
        return key;
    }

    private static long count(Path dir) throws java.io.IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }
}
