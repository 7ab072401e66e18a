package dev.monoagent.common;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seal key is made once, private to the user, and a seal vouches for exactly the bytes it covers. */
class SealTest {
    @TempDir
    Path tmp;

    @Test
    void theKeyIsCreated0600InAPrivateDirOnFirstUseAndKept() throws Exception {
        Path cfg = tmp.resolve("cfg/mono-agent");
        Seal s = Seal.at(cfg);
        Path key = cfg.resolve(Seal.KEY_FILE);
        assertEquals(key, s.keyFile());
        assertEquals(32, Files.size(key));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cfg)));
        byte[] first = Files.readAllBytes(key);
        assertSame(s, Seal.at(cfg));
        assertArrayEquals(first, Files.readAllBytes(key), "never replaced");
    }

    @Test
    void aKeyOfTheWrongShapeOrALinkIsRefusedNamingTheFile() throws Exception {
        Path bad = Files.createDirectories(tmp.resolve("bad"));
        Files.writeString(bad.resolve(Seal.KEY_FILE), "short");
        IOException e = assertThrows(IOException.class, () -> Seal.at(bad));
        assertTrue(e.getMessage().contains(bad.resolve(Seal.KEY_FILE).toString()), e.getMessage());
        Path linked = Files.createDirectories(tmp.resolve("linked"));
        Files.createSymbolicLink(linked.resolve(Seal.KEY_FILE), tmp.resolve("elsewhere"));
        assertTrue(assertThrows(IOException.class, () -> Seal.at(linked)).getMessage().contains("symbolic link"));
    }

    @Test
    void aSealCoversItsRangeOnlyAndAnyChangedByteBreaksIt() throws Exception {
        Seal s = Seal.at(tmp.resolve("k"));
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path f = ws.resolve("log.jsonl");
        Files.writeString(f, "planted line\n");
        long from = Files.size(f);
        Files.writeString(f, "mine\n", java.nio.file.StandardOpenOption.APPEND);
        Seal.Chain c = s.chain(Seal.label(ws, f), from);
        c.update("mine\n".getBytes(StandardCharsets.UTF_8));
        c.write(f);
        byte[] b = Files.readAllBytes(f);
        Seal.Check ok = s.check(f, Seal.label(ws, f), b);
        assertEquals(Seal.State.PARTIAL, ok.state());
        assertTrue(ok.covers(from, b.length) && !ok.covers(0, from));
        assertEquals(Seal.State.TAMPERED, s.check(f, "other/name.jsonl", b).state(), "bound to the path");
        b[(int) from] = 'M';
        assertEquals(Seal.State.TAMPERED, s.check(f, Seal.label(ws, f), b).state());
        assertEquals(Seal.State.TAMPERED, Seal.at(tmp.resolve("other-key")).check(f, Seal.label(ws, f),
                Files.readAllBytes(f)).state(), "another user's key does not verify it");
        Files.delete(Seal.sidecar(f));
        assertEquals(Seal.State.UNSEALED, s.check(f, Seal.label(ws, f), Files.readAllBytes(f)).state());
    }
}
