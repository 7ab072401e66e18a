package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chain of symlinks a protected symlink resolves through ({@code .env -> conf/prod.env} with
 * {@code conf -> envs}), without a sandbox: what
 * {@link ProtectedScan#resolve} records, and what {@link ProtectedScan#detect} does with a hop it cannot put back.
 */
class ProtectedLinkChainTest {
    @TempDir
    Path tmp;

    @Test
    void resolveRecordsEverySymlinkOnTheWayAsItsRealPlaceAndText() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path target = Files.createDirectories(ws.resolve("envs")).resolve("prod.env");
        Files.writeString(target, "API=1\n");
        Files.createSymbolicLink(ws.resolve("b"), Path.of("envs"));
        Files.createSymbolicLink(ws.resolve("a"), ws.resolve("b")); // absolute text
        Files.createDirectories(ws.resolve("app"));
        Files.createSymbolicLink(ws.resolve("app/up"), Path.of(".."));
        Path env = ws.resolve("app/.env");
        Files.createSymbolicLink(env, Path.of("up/./a/../a/prod.env"));
        ProtectedScan.Resolved r = ProtectedScan.resolve(env);
        assertEquals(target.toString(), r.real());
        assertEquals(target.toRealPath().toString(), r.real(), "not what the kernel resolves");
        assertEquals(List.of(new ProtectedScan.Hop(ws.resolve("app/up"), ".."),
                new ProtectedScan.Hop(ws.resolve("a"), ws.resolve("b").toString()),
                new ProtectedScan.Hop(ws.resolve("b"), "envs"),
                new ProtectedScan.Hop(ws.resolve("a"), ws.resolve("b").toString()),
                new ProtectedScan.Hop(ws.resolve("b"), "envs")), r.hops());
        Files.delete(target);
        assertNull(ProtectedScan.resolve(env).real(), "a dangling link leads nowhere");
        Path loop = ws.resolve(".env.loop");
        Files.createSymbolicLink(loop, Path.of(".env.loop"));
        assertNull(ProtectedScan.resolve(loop).real(), "a loop leads nowhere");
    }

    @Test
    void aHopOutsideTheWorkspaceThatChangedIsRecordedNotFollowed() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path out = Files.createDirectories(tmp.resolve("out")).toRealPath();
        Files.writeString(Files.createDirectories(out.resolve("real1")).resolve("prod.env"), "API=1\n");
        Files.writeString(Files.createDirectories(out.resolve("real2")).resolve("prod.env"), "EVIL\n");
        Files.createSymbolicLink(out.resolve("cur"), Path.of("real1"));
        Path env = ws.resolve(".env");
        Files.createSymbolicLink(env, out.resolve("cur/prod.env"));
        Policy p = PolicyCompiler.compile(TestEngine.config(ws, NetworkMode.NONE, List.of()), tmp.resolve("home"),
                tmp.resolve("cache"));
        ProtectedScan.Key before = ProtectedScan.Key.read(env);
        Files.delete(out.resolve("cur"));
        Files.createSymbolicLink(out.resolve("cur"), Path.of("real2"));
        List<ProtectedScan.Change> changes = ProtectedScan.detect(p, Map.of(env, before),
                Map.of(env, ProtectedScan.Key.read(env)));
        assertEquals(2, changes.size(), changes.toString());
        ProtectedScan.Change hop = changes.get(0);
        assertEquals(out.resolve("cur"), hop.path());
        assertEquals(env, hop.via());
        assertTrue(!hop.linkRestored() && hop.quarantinedTo() == null, "touched a path outside the workspace");
        assertEquals(Path.of("real2"), Files.readSymbolicLink(out.resolve("cur")));
        assertEquals(out.resolve("real2/prod.env").toString(), changes.get(1).ledTo());
    }
}
