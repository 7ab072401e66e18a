package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wording of a write attempt from the path string alone (the engine-level cases: AliasWriteRecordTest). */
class WriteRecordTest {
    @TempDir
    Path tmp;

    @Test
    void aLinkOnTheHostIsFollowedAndAPathThatCannotBeResolvedIsNotKnown() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path ro = Files.createDirectories(tmp.resolve("ro")).toRealPath();
        Files.createSymbolicLink(ro.resolve("to-ws"), ws);
        Files.createSymbolicLink(ro.resolve("dangling"), tmp.resolve("nowhere"));
        Path env = ws.resolve(".env");
        WriteRecord w = new WriteRecord(List.of(Path.of("/tmp-private")), List.of(), List.of(ws), ws,
                p -> p.equals(env) ? "protected path " + env : null);

        assertEquals("write refused by the sandbox (openat)", w.reason(ro.resolve("f").toString(), "openat"));
        assertEquals("write refused by the sandbox (openat); " + ro + "/to-ws/.env leads on the host to " + env,
                w.reason(ro + "/to-ws/.env", "openat"));
        String viaLink = w.reason(ro + "/to-ws/notes.txt", "openat");
        assertTrue(viaLink.startsWith("write attempt via " + ro + "/to-ws/notes.txt (openat) — "
                + WriteRecord.NOT_KNOWN + ": it leads on the host to " + ws + "/notes.txt, inside the writable roots"),
                viaLink);
        assertTrue(w.reason(ro + "/dangling/x", "openat").contains("a link on the host that does not resolve"));
        String own = w.reason("/tmp-private/a/.env", "openat");
        assertTrue(own.startsWith("write attempt on a protected name (.env: protected path " + env + ") via "
                + "/tmp-private/a/.env (openat) — " + WriteRecord.NOT_KNOWN + ": it is on the sandbox's own empty tmpfs "
                + "over /tmp-private"), own);
        assertTrue(w.reason("/proc/self/fd/1", "openat").startsWith("write attempt via /proc/self/fd/1 (openat) — "
                + WriteRecord.NOT_KNOWN + ": it is on the sandbox's private /proc"));
    }
}
