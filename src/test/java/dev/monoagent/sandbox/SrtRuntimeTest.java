package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SrtRuntimeTest {
    @TempDir
    Path tmp;

    /** A private copy of the shared verified install in a fresh cache root. */
    static HostEnv copyInstall(Path tmp) throws Exception {
        HostEnv shared = TestEngine.env();
        Path cache = tmp.resolve("cache");
        SrtRuntime src = new SrtRuntime(shared);
        SrtRuntime dst = new SrtRuntime(shared.withCacheRoot(cache));
        Files.createDirectories(dst.versionDir());
        Process p = new ProcessBuilder("cp", "-a", src.managedDir().toString(), dst.managedDir().toString())
                .inheritIO().start();
        assertEquals(0, p.waitFor());
        return shared.withCacheRoot(cache);
    }

    @Test
    void freshInstallMatchesThePinnedTreeDigestWithOwnerOnlyPermissions() throws Exception {
        SrtRuntime rt = new SrtRuntime(TestEngine.env());
        assertEquals(SrtRuntime.TREE_DIGEST, TreeDigest.of(rt.managedDir().resolve("node_modules")));
        SrtRuntime.Resolution r = rt.resolve();
        assertEquals(SrtRuntime.Source.MANAGED, r.source());
        assertEquals("srt (present)", r.engineLine());
        assertTrue(Files.getPosixFilePermissions(rt.managedDir()).equals(
                java.util.Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE)));
        assertEquals(SrtRuntime.APPLY_SECCOMP_SHA256.get(SrtRuntime.arch()), TreeDigest.sha256(r.applySeccomp()));
    }

    @Test
    void bridgeScriptMatchesItsPin() throws Exception {
        assertEquals(SrtBridge.SCRIPT_SHA256, TreeDigest.sha256(SrtBridge.scriptBytes()));
    }

    @Test
    void setupIntoTheRealDefaultCacheRootIsIdempotentAndVerified() {
        HostEnv real = HostEnv.detect();
        HostTools tools = ((HostTools.Ok) HostTools.find(real)).tools();
        SrtRuntime rt = new SrtRuntime(real);
        SrtRuntime.Resolution r = rt.setup(tools, line -> { });
        assertEquals(SrtRuntime.Source.MANAGED, r.source(), r.detail());
        assertEquals(HostEnv.defaultCacheRoot(System.getenv(), real.home())
                .resolve("tools/srt/0.0.78/" + SrtRuntime.TREE_DIGEST.substring(0, 16)), r.installRoot());
    }

    @Test
    void flippedByteIsCorruptQuarantinedNeverFallsBackToPathAndSetupRepairs() throws Exception {
        HostEnv env = copyInstall(tmp);
        SrtRuntime rt = new SrtRuntime(env);
        Path f = rt.managedDir().resolve("node_modules/@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-manager.js");
        byte[] b = Files.readAllBytes(f);
        b[100] ^= 1;
        Files.write(f, b);
        // a good srt on PATH must not be used while the managed one is corrupt
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("srt"), new SrtRuntime(TestEngine.env()).managedDir()
                .resolve("node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js"));
        SrtRuntime withSrt = new SrtRuntime(env.withPath(bin + ":" + env.path()));
        SrtRuntime.Resolution r = withSrt.resolve();
        assertEquals(SrtRuntime.Source.CORRUPT, r.source());
        assertTrue(r.engineLine().startsWith("srt (corrupt: tree digest"), r.engineLine());
        assertFalse(Files.exists(rt.managedDir()));
        try (Stream<Path> q = Files.list(rt.versionDir().resolve("quarantine"))) {
            assertEquals(1, q.count());
        }
        assertEquals(SrtRuntime.Source.CORRUPT, withSrt.resolve().source(), "stays corrupt, never external");
        assertEquals(SrtRuntime.Source.CORRUPT, withSrt.cheapStatus().source());
        HostTools tools = ((HostTools.Ok) HostTools.find(env)).tools();
        assertEquals(SrtRuntime.Source.MANAGED, withSrt.setup(tools, l -> { }).source());
        assertEquals(SrtRuntime.Source.MANAGED, withSrt.resolve().source());
    }

    @Test
    void extraFileIsCorrupt() throws Exception {
        HostEnv env = copyInstall(tmp);
        SrtRuntime rt = new SrtRuntime(env);
        Files.writeString(rt.managedDir().resolve("node_modules/zod/evil.js"), "process.exit(0)");
        assertEquals(SrtRuntime.Source.CORRUPT, rt.resolve().source());
    }

    @Test
    void missingFileIsCorrupt() throws Exception {
        HostEnv env = copyInstall(tmp);
        SrtRuntime rt = new SrtRuntime(env);
        Files.delete(rt.managedDir().resolve("node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/"
                + SrtRuntime.arch() + "/apply-seccomp"));
        assertEquals(SrtRuntime.Source.CORRUPT, rt.resolve().source());
    }

    @Test
    void npmsOwnLockfileMetadataIsNotPartOfTheDigest() throws Exception {
        HostEnv env = copyInstall(tmp);
        SrtRuntime rt = new SrtRuntime(env);
        Files.writeString(rt.managedDir().resolve("node_modules/.package-lock.json"), "\n",
                StandardOpenOption.APPEND);
        assertEquals(SrtRuntime.Source.MANAGED, rt.resolve().source());
    }

    @Test
    void externalSrtIsUsedOnlyWithoutManagedInstallAndIsPinnedAgainstReplacement() throws Exception {
        HostEnv shared = TestEngine.env();
        Path pkgCopy = tmp.resolve("ext/node_modules");
        Files.createDirectories(pkgCopy.getParent());
        Process p = new ProcessBuilder("cp", "-a", new SrtRuntime(shared).managedDir().resolve("node_modules").toString(),
                pkgCopy.toString()).inheritIO().start();
        assertEquals(0, p.waitFor());
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path cli = pkgCopy.resolve("@anthropic-ai/sandbox-runtime/dist/cli.js");
        Files.createSymbolicLink(bin.resolve("srt"), cli);
        HostEnv env = shared.withCacheRoot(tmp.resolve("cache")).withPath(bin + ":" + shared.path());
        SrtRuntime rt = new SrtRuntime(env);
        SrtRuntime.Resolution r = rt.resolve();
        assertEquals(SrtRuntime.Source.EXTERNAL, r.source(), r.detail());
        assertTrue(r.pinPending());
        rt.pinExternal(r);
        assertEquals(SrtRuntime.Source.EXTERNAL, rt.resolve().source());
        Files.writeString(cli, "\n// replaced\n", StandardOpenOption.APPEND);
        SrtRuntime.Resolution after = rt.resolve();
        assertEquals(SrtRuntime.Source.CORRUPT, after.source());
        assertTrue(after.detail().contains("changed since it was pinned"), after.detail());
        assertEquals(List.of(), List.of());
    }

    @Test
    void absentWhenNothingInstalled() {
        HostEnv env = TestEngine.env().withCacheRoot(tmp.resolve("empty")).withPath("/usr/bin:/bin");
        SrtRuntime.Resolution r = new SrtRuntime(env).resolve();
        assertEquals(SrtRuntime.Source.ABSENT, r.source());
        assertEquals("srt (absent)", r.engineLine());
    }

    @Test
    void privateDirRefusesAPlantedSymlinkOrForeignDir(@org.junit.jupiter.api.io.TempDir Path t) throws Exception {
        Path target = Files.createDirectories(t.resolve("attacker"));
        Path link = t.resolve("mono-agent-0");
        Files.createSymbolicLink(link, target);
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> SrtRuntime.mkdirsPrivate(link));
        Path own = Files.createDirectories(t.resolve("own"));
        Files.setPosixFilePermissions(own, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        SrtRuntime.mkdirsPrivate(own);
        org.junit.jupiter.api.Assertions.assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions
                .toString(Files.getPosixFilePermissions(own)));
    }
}
