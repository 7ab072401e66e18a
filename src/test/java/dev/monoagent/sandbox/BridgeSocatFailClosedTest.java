package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge's wait for srt's socat sockets (bridge.mjs: a spawn of a UNIX-LISTEN socat returns once its socket
 * exists, at most 1 s) must not let a broken bridge pass: a socat that exits, never listens, or leaves a plain file
 * where its socket should be leaves the engine unavailable and runs nothing. And the socket directory is
 * out of a command's reach.
 */
class BridgeSocatFailClosedTest {
    @TempDir
    Path tmp;
    Path ws;
    Path marker;

    @BeforeEach
    void dirs() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        marker = tmp.resolve("marker-host-ran");
    }

    private Path bin(String name, String script) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path f = bin.resolve(name);
        Files.writeString(f, script);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private void failsClosed(HostEnv env) throws Exception {
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), e -> { }, env)) {
            ExecOutcome o = sb.exec(CommandSpec.bash("touch " + marker, ws));
            assertInstanceOf(ExecOutcome.PrepareFailed.class, o, o.toString());
            assertFalse(Files.exists(marker), "nothing may run on the host");
            assertEquals("unavailable", sb.status().state());
        }
    }

    /** socat that exits at once for srt's UNIX-LISTEN bridge (any other use: the real socat). */
    @Test
    void socatBridgeExitsAtOnce() throws Exception {
        Path bin = bin("socat", "#!/bin/bash\ncase \"$1\" in UNIX-LISTEN:*) exit 1;; esac\n"
                + "exec /usr/bin/socat \"$@\"\n");
        failsClosed(SrtRuntimeTest.copyInstall(tmp).withPath(bin + ":/usr/bin:/bin"));
    }

    /** socat that stays alive for the bridge but never makes its socket: the hook waits 1 s, srt must still fail. */
    @Test
    void socatBridgeNeverListens() throws Exception {
        Path bin = bin("socat", "#!/bin/bash\ncase \"$1\" in UNIX-LISTEN:*) exec sleep 30;; esac\n"
                + "exec /usr/bin/socat \"$@\"\n");
        failsClosed(SrtRuntimeTest.copyInstall(tmp).withPath(bin + ":/usr/bin:/bin"));
    }

    /** socat that makes a plain file at the socket path and idles: srt believes the bridge is up; it is not. */
    @Test
    void socatBridgeFakesItsSocket() throws Exception {
        Path bin = bin("socat", "#!/bin/bash\ncase \"$1\" in UNIX-LISTEN:*) p=${1#UNIX-LISTEN:}; p=${p%%,*}; "
                + ": > \"$p\"; exec sleep 30;; esac\nexec /usr/bin/socat \"$@\"\n");
        failsClosed(SrtRuntimeTest.copyInstall(tmp).withPath(bin + ":/usr/bin:/bin"));
    }

    /** the bridge's socket dir: private on the host, read-only inside; a command cannot plant, remove or replace. */
    @Test
    void bridgeSocketDirIsOutOfReach() throws Exception {
        HostEnv env = TestEngine.env();
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), e -> { }, env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            Path ma = null;
            try (var s = Files.list(env.tmpRoot())) {
                for (Path p : s.filter(p -> p.getFileName().toString().startsWith("ma-")).toList()) {
                    ma = p;
                }
            }
            assertTrue(ma != null);
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ma)));
            String cmd = "d=" + ma + "; ls -la $d; for s in $d/*.sock; do rm -f \"$s\" && echo RM-OK $s; "
                    + "mv \"$s\" \"$s.x\" && echo MV-OK; done; touch $d/claude-http-0000.sock && echo TOUCH-OK; "
                    + "ln -s /tmp $d/x && echo LN-OK; echo end";
            ExecOutcome o = sb.exec(CommandSpec.bash(cmd, ws));
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
            assertFalse(c.stdout().contains("-OK"), c.stdout());
            // and the network still works afterwards (the sockets are intact)
            ExecOutcome o2 = sb.exec(CommandSpec.bash("exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET "
                    + "http://example.com/ HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n' >&3 && head -1 <&3", ws));
            ExecOutcome.Completed c2 = assertInstanceOf(ExecOutcome.Completed.class, o2, o2.toString());
            assertTrue(c2.stdout().startsWith("HTTP/1.1 "), "the proxy still answers: " + c2.stdout() + c2.stderr());
        }
    }
}
