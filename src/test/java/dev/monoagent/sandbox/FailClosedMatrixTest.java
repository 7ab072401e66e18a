package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way the engine can be unusable must end in {@code sandbox_prepare_failed} with zero host executions: the
 * command would create a marker file, and the marker must not exist afterwards. All breakage is staged in temp dirs
 * (fake PATH dirs, copied installs); the real system binaries are never touched.
 */
class FailClosedMatrixTest {
    @TempDir
    Path tmp;
    Path ws;
    Path marker;

    @BeforeEach
    void dirs() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        marker = tmp.resolve("marker-host-ran");
    }

    /** A PATH dir with links to the named real tools (plus whatever files the test adds). */
    private Path bin(String... tools) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        for (String t : tools) {
            Files.createSymbolicLink(bin.resolve(t), Path.of("/usr/bin").resolve(t).toRealPath());
        }
        return bin;
    }

    private void assertFailsClosed(HostEnv env, String expectInReason) throws Exception {
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), e -> { }, env)) {
            assertFailsClosed(sb, expectInReason);
        }
    }

    private void assertFailsClosed(Sandbox sb, String expectInReason) {
        ExecOutcome o = sb.exec(CommandSpec.bash("touch " + marker, ws));
        ExecOutcome.PrepareFailed pf = assertInstanceOf(ExecOutcome.PrepareFailed.class, o, o.toString());
        assertEquals("sandbox_prepare_failed", pf.code());
        assertEquals("Error: Sandbox engine is unavailable and policy is fail-closed.", pf.text());
        assertInstanceOf(ExecOutcome.PrepareFailed.class, sb.start(CommandSpec.bash("touch " + marker, ws)));
        assertFalse(Files.exists(marker), "nothing may run on the host");
        SandboxStatus s = sb.status();
        assertEquals("blocked", s.effective().wire());
        assertEquals("unavailable", s.state());
        assertFalse(s.fallbackActive());
        assertTrue(s.reason().startsWith("sandbox_unavailable: "), s.reason());
        assertTrue(s.reason().contains(expectInReason), s.reason());
    }

    @Test
    void noNode() throws Exception {
        Path bin = bin("bwrap", "socat", "rg", "bash", "setsid");
        assertFailsClosed(TestEngine.env().withPath(bin.toString()), "node not found on PATH");
    }

    @Test
    void noBwrap() throws Exception {
        Path bin = bin("node", "socat", "rg", "bash", "setsid");
        assertFailsClosed(TestEngine.env().withPath(bin.toString()), "apt-get install -y bubblewrap");
    }

    @Test
    void noOpBwrapThatJustExecsItsCommand() throws Exception {
        Path bin = bin("node", "socat", "rg", "bash", "setsid");
        Path fake = bin.resolve("bwrap");
        Files.writeString(fake, "#!/bin/bash\n# a bwrap that isolates nothing\nfor ((i=1; i<=$#; i++)); do "
                + "if [ \"${!i}\" = -- ]; then shift $i; exec \"$@\"; fi; done\nexec \"${@: -1}\"\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        HostEnv env = SrtRuntimeTest.copyInstall(tmp).withPath(bin.toString());
        assertFailsClosed(env, "self-check failed");
    }

    @Test
    void missingApplySeccomp() throws Exception {
        HostEnv env = SrtRuntimeTest.copyInstall(tmp);
        SrtRuntime rt = new SrtRuntime(env);
        Files.delete(rt.managedDir().resolve("node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/"
                + SrtRuntime.arch() + "/apply-seccomp"));
        assertFailsClosed(env, "srt (corrupt: ");
    }

    @Test
    void flippedByteWithAGoodSrtOnPath() throws Exception {
        HostEnv env = SrtRuntimeTest.copyInstall(tmp);
        Path f = new SrtRuntime(env).managedDir().resolve("node_modules/zod/package.json");
        byte[] b = Files.readAllBytes(f);
        b[3] ^= 0x20;
        Files.write(f, b);
        Path bin = Files.createDirectories(tmp.resolve("srtbin"));
        Files.createSymbolicLink(bin.resolve("srt"), new SrtRuntime(TestEngine.env()).managedDir()
                .resolve("node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js"));
        assertFailsClosed(env.withPath(bin + ":" + env.path()), "srt (corrupt: tree digest");
    }

    @Test
    void killedBridge() throws Exception {
        HostEnv env = SrtRuntimeTest.copyInstall(tmp);
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), e -> { }, env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            ProcessHandle bridge = ProcessHandle.of(sb.bridgePid()).orElseThrow();
            bridge.destroyForcibly();
            bridge.onExit().get(5, TimeUnit.SECONDS);
            Thread.sleep(50);
            assertFailsClosed(sb, "bridge");
        }
    }

    @Test
    void bwrapReplacedAfterTheProof() throws Exception {
        Path bin = bin("node", "socat", "rg", "bash", "setsid");
        Path copy = bin.resolve("bwrap");
        Files.copy(Path.of("/usr/bin/bwrap").toRealPath(), copy);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
        HostEnv env = SrtRuntimeTest.copyInstall(tmp).withPath(bin + ":/usr/bin:/bin");
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), e -> { }, env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            Path fake = tmp.resolve("fake-bwrap");
            Files.writeString(fake, "#!/bin/bash\nexec \"${@: -1}\"\n");
            Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.move(fake, copy, StandardCopyOption.REPLACE_EXISTING);
            assertFailsClosed(sb, "changed since the sandbox was proven");
        }
    }
}
