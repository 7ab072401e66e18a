package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Presence} answers as an lstat of each path would, whatever stands at the path or on the way to it. */
class PresenceTest {
    @TempDir
    Path dir;

    @Test
    void answersAsLstatWouldForEveryKindOfEntry() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve(".env"), "S=1\n");
        Files.createSymbolicLink(ws.resolve(".env.local"), ws.resolve("nowhere")); // dangling: still an entry
        Files.createSymbolicLink(ws.resolve(".env.prod"), ws.resolve(".env"));
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n");
        Files.writeString(ws.resolve("afile"), "x");
        Files.createSymbolicLink(ws.resolve("linked"), ws.resolve(".git")); // a linked parent is followed, as by lstat
        Files.createSymbolicLink(ws.resolve("loop"), ws.resolve("loop"));
        Files.writeString(ws.resolve("na\u00efve \u2603"), "x");
        List<Path> asked = new ArrayList<>();
        for (String n : List.of(".env", ".env.local", ".env.prod", ".env.test", ".git", ".git/config", ".git/hooks",
                ".git/HEAD", ".claude/commands", "afile/child", "linked/config", "linked/nothing", "loop/x",
                "na\u00efve \u2603", "missing/deeper/still")) {
            asked.add(ws.resolve(n));
        }
        asked.add(ws);
        asked.add(Path.of("/"));
        Presence p = new Presence();
        for (Path a : asked) {
            assertEquals(Files.exists(a, LinkOption.NOFOLLOW_LINKS), p.exists(a), a.toString());
        }
        // asked again from the same instance (its listings kept): the same answers
        for (Path a : asked) {
            assertEquals(Files.exists(a, LinkOption.NOFOLLOW_LINKS), p.exists(a), a + " (again)");
        }
    }

    /**
     * Names that are not valid UTF-8 decode alike ({@code a\xff}, {@code a\xfe}: both "a\uFFFD"), so they are told
     * apart by their bytes (else the deleted one is taken for present).
     */
    @Test
    void namesThatAreNotUtf8AreToldApartByTheirBytes() throws Exception {
        Path d = Files.createDirectories(dir.resolve("raw"));
        TestEngine.host(d, "touch $'a\\xff' $'a\\xfe'");
        List<Path> both;
        try (var s = Files.list(d)) {
            both = s.toList();
        }
        assertEquals(2, both.size(), both.toString());
        assertEquals(both.get(0).toString(), both.get(1).toString(), "both decode to one string");
        Files.delete(both.get(0));
        Presence present = new Presence();
        assertFalse(present.exists(both.get(0)), "the deleted one");
        assertTrue(present.exists(both.get(1)), "the one left");
    }

    @Test
    void aDirectoryPastTheCapIsAskedPerPath() throws Exception {
        Path big = Files.createDirectories(dir.resolve("big"));
        for (int i = 0; i <= Presence.CAP; i++) {
            Files.writeString(big.resolve("f" + i), "");
        }
        assertNull(Presence.list(big), "past the cap nothing is listed");
        Path small = Files.createDirectories(dir.resolve("small"));
        for (int i = 0; i < Presence.CAP; i++) {
            Files.writeString(small.resolve("f" + i), "");
        }
        assertNotNull(Presence.list(small), "up to the cap it is listed");
        Presence p = new Presence();
        for (Path base : List.of(big, small)) {
            for (String n : List.of("f0", "f" + (Presence.CAP - 1), "f" + Presence.CAP, ".env")) {
                Path a = base.resolve(n);
                assertEquals(Files.exists(a, LinkOption.NOFOLLOW_LINKS), p.exists(a), a.toString());
            }
        }
    }
}
