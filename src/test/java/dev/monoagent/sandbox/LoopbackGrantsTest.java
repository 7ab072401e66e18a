package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9 item 9, against the real engine: every connection to a host loopback port is recorded with the port and
 * the listening process; {@code sandbox.network.localhostPorts} narrows the grants.
 */
class LoopbackGrantsTest {
    @TempDir
    Path tmp;
    final List<ServerSocket> servers = new ArrayList<>();

    ServerSocket serve(String addr, String reply) throws IOException {
        ServerSocket s = new ServerSocket(0, 8, InetAddress.getByName(addr));
        servers.add(s);
        ProcessRunner.pump("test-server", () -> {
            while (!s.isClosed()) {
                try (Socket c = s.accept(); OutputStream os = c.getOutputStream()) {
                    c.getInputStream().read(new byte[4096]);
                    os.write(("HTTP/1.0 200 OK\r\nContent-Length: " + reply.length() + "\r\n\r\n" + reply)
                            .getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    return;
                }
            }
        });
        return s;
    }

    @AfterEach
    void tearDown() throws IOException {
        for (ServerSocket s : servers) {
            s.close();
        }
    }

    private Sandbox open(List<Integer> ports) throws IOException {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        MonoConfig.Sandbox sbc = new MonoConfig.Sandbox(SandboxMode.NATIVE,
                new MonoConfig.Network(NetworkMode.LOCALHOST, List.of(), ports), List.of("."), List.of("."),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false);
        Sandbox sb = Sandbox.open(TestEngine.config(ws, sbc), e -> { }, TestEngine.env());
        assertEquals("ready", sb.status().state(), sb.status().reason());
        return sb;
    }

    private static ExecOutcome.Completed run(Sandbox sb, String cmd, String callId) {
        return assertInstanceOf(ExecOutcome.Completed.class,
                sb.exec(CommandSpec.bash(cmd, sb.policy().workspace()).withAttribution("run-lb", callId, "Bash")));
    }

    @Test
    void everyConnectionToAHostPortIsRecordedWithItsListener() throws Exception {
        ServerSocket s = serve("127.0.0.1", "HOST-OK");
        try (Sandbox sb = open(List.of())) {
            ExecOutcome.Completed c = run(sb, "curl -sS -m 5 http://127.0.0.1:" + s.getLocalPort() + "/", "c-lb1");
            assertEquals("HOST-OK", c.stdout(), c.stderr());
            List<Violation> allowed = c.violations().stream()
                    .filter(v -> v.reason().startsWith("allowed: connection to host port " + s.getLocalPort()))
                    .toList();
            assertEquals(1, allowed.size(), c.violations().toString());
            Violation v = allowed.get(0);
            assertEquals(Violation.Kind.NETWORK, v.kind());
            assertEquals("c-lb1", v.callId());
            assertTrue(v.reason().contains("(listener: java (pid " + ProcessHandle.current().pid() + "))"),
                    v.reason());
        }
    }

    @Test
    void localhostPortsNarrowsTheGrants() throws Exception {
        ServerSocket granted = serve("127.0.0.1", "GRANTED");
        ServerSocket other = serve("127.0.0.1", "OTHER");
        try (Sandbox sb = open(List.of(granted.getLocalPort()))) {
            assertEquals("GRANTED",
                    run(sb, "curl -sS -m 5 http://127.0.0.1:" + granted.getLocalPort() + "/", "c-lb2").stdout());
            ExecOutcome.Completed c = run(sb, "curl -sS -m 5 http://127.0.0.1:" + other.getLocalPort() + "/ ; "
                    + "curl -sS -m 5 --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:" + other.getLocalPort() + "/",
                    "c-lb3");
            assertFalse(c.stdout().contains("OTHER"), c.stdout());
        }
    }

    @Test
    void aListenerOnIpv6LoopbackOnlyIsReachable() throws Exception {
        ServerSocket s = serve("::1", "V6-OK");
        try (Sandbox sb = open(List.of())) {
            ExecOutcome.Completed c = run(sb, "curl -sS -m 5 http://localhost:" + s.getLocalPort() + "/", "c-lb4");
            assertEquals("V6-OK", c.stdout(), c.stderr());
            assertTrue(c.violations().stream().anyMatch(v -> v.reason().startsWith(
                    "allowed: connection to host port " + s.getLocalPort())), c.violations().toString());
        }
    }

    /** Also seen in the review: a write that succeeded on the sandbox's private /dev or /proc was logged as refused. */
    @Test
    void aWriteThatSucceededInsideTheSandboxIsNotRecordedAsRefused() throws Exception {
        try (Sandbox sb = open(List.of())) {
            ExecOutcome.Completed c = run(sb, "echo through-proc > /proc/self/fd/1; echo shm > /dev/shm/x && "
                    + "cat /dev/shm/x", "c-lb5");
            assertTrue(c.stdout().contains("through-proc") && c.stdout().contains("shm"), c.stdout() + c.stderr());
            List<Violation> priv = c.violations().stream().filter(v -> v.target() != null
                    && (v.target().startsWith("/proc/") || v.target().startsWith("/dev/"))).toList();
            assertFalse(priv.isEmpty(), "the engine reported nothing: this test would prove nothing");
            for (Violation v : priv) {
                assertFalse(v.reason().contains("refused"), v.toString());
                assertTrue(v.reason().contains("no host file"), v.toString());
            }
        }
    }
}
