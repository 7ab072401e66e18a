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
 * Against the real engine: every connection to a host loopback port is recorded with the port and
 * the listening process; {@code sandbox.network.localhostPorts} narrows the grants.
 */
class LoopbackGrantsTest {
    @TempDir
    Path tmp;
    final List<ServerSocket> servers = new ArrayList<>();
    /** What each test server received, keyed by its port: the host-side proof that a connection got through. */
    final java.util.Map<Integer, StringBuffer> received = new java.util.concurrent.ConcurrentHashMap<>();

    ServerSocket serve(String addr, String reply) throws IOException {
        ServerSocket s = new ServerSocket(0, 8, InetAddress.getByName(addr));
        servers.add(s);
        StringBuffer got = received.computeIfAbsent(s.getLocalPort(), k -> new StringBuffer());
        ProcessRunner.pump("test-server", () -> {
            while (!s.isClosed()) {
                try (Socket c = s.accept(); OutputStream os = c.getOutputStream()) {
                    byte[] buf = new byte[4096];
                    int n = c.getInputStream().read(buf);
                    got.append(n > 0 ? new String(buf, 0, n, StandardCharsets.UTF_8) : "<connected, nothing sent>");
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

    final List<dev.monoagent.common.Event> events = new java.util.concurrent.CopyOnWriteArrayList<>();

    private Sandbox open(List<Integer> ports) throws IOException {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        MonoConfig.Sandbox sbc = new MonoConfig.Sandbox(SandboxMode.NATIVE,
                new MonoConfig.Network(NetworkMode.LOCALHOST, List.of(), ports), List.of("."), List.of("."),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false);
        Sandbox sb = Sandbox.open(TestEngine.config(ws, sbc), events::add, TestEngine.env());
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
            // allowed traffic is its own event, never a violation
            assertTrue(c.violations().stream().noneMatch(v -> String.valueOf(v.target()).endsWith(":" + s.getLocalPort())),
                    c.violations().toString());
            List<dev.monoagent.common.Event.NetworkAllowed> allowed = c.allowed().stream()
                    .filter(a -> a.port() == s.getLocalPort()).toList();
            assertEquals(1, allowed.size(), c.allowed().toString());
            dev.monoagent.common.Event.NetworkAllowed a = allowed.get(0);
            assertEquals("c-lb1", a.callId());
            assertEquals("127.0.0.1", a.host());
            assertEquals("java (pid " + ProcessHandle.current().pid() + ")", a.listener());
            assertTrue(events.contains(a), "the engine publishes it (run log, --json, inspector): " + events);
            assertTrue(events.stream().noneMatch(e -> e instanceof dev.monoagent.common.Event.ViolationObserved vo
                    && String.valueOf(vo.violation().target()).endsWith(":" + s.getLocalPort())), events.toString());
            // the engine's own record file keeps it under its own type
            String rec;
            try (var files = Files.list(sb.policy().workspace().resolve(".mono-agent/violations"))) {
                rec = Files.readString(files.findFirst().orElseThrow());
            }
            assertTrue(rec.contains("\"type\":\"NetworkAllowed\"") && rec.contains("\"port\":" + s.getLocalPort()),
                    rec);
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
            assertTrue(c.allowed().stream().anyMatch(a -> a.port() == s.getLocalPort() && a.host().contains("::1")),
                    c.allowed().toString());
        }
    }

    /**
     * A plain client dialling the IPv6 loopback literal reaches the host's {@code ::1} listener, as the name
     * {@code localhost} does (the sandbox used to listen on its 127.0.0.1 only, so {@code [::1]} was refused).
     */
    @Test
    void anIpv6LoopbackLiteralReachesTheHostsIpv6Listener() throws Exception {
        ServerSocket s = serve("::1", "V6-LITERAL");
        try (Sandbox sb = open(List.of())) {
            ExecOutcome.Completed c = run(sb, "curl -sS -m 5 http://[::1]:" + s.getLocalPort() + "/v6-literal",
                    "c-lb6");
            assertEquals("V6-LITERAL", c.stdout(), c.stderr());
            assertTrue(received.get(s.getLocalPort()).toString().startsWith("GET /v6-literal "),
                    received.toString());
            List<dev.monoagent.common.Event.NetworkAllowed> allowed = c.allowed().stream()
                    .filter(a -> a.port() == s.getLocalPort()).toList();
            assertEquals(1, allowed.size(), c.allowed().toString());
            assertTrue(allowed.get(0).host().contains("::1"), allowed.toString());
            assertEquals("java (pid " + ProcessHandle.current().pid() + ")", allowed.get(0).listener());
        }
    }

    /**
     * When the host listener is on 127.0.0.1 only, {@code [::1]} inside reaches it, as {@code localhost} does (and as
     * 127.0.0.1 inside reaches a listener on {@code ::1} only): each loopback address inside reaches the host port's
     * listener of its own family when there is one, the other family's otherwise.
     */
    @Test
    void anIpv6LoopbackLiteralReachesAnIpv4OnlyListenerAsLocalhostDoes() throws Exception {
        ServerSocket s = serve("127.0.0.1", "V4-VIA-V6");
        try (Sandbox sb = open(List.of())) {
            ExecOutcome.Completed c = run(sb, "curl -sS -m 5 http://[::1]:" + s.getLocalPort() + "/via-v6; echo; "
                    + "curl -sS -m 5 http://localhost:" + s.getLocalPort() + "/via-name", "c-lb7");
            assertEquals("V4-VIA-V6\nV4-VIA-V6", c.stdout(), c.stderr());
            String got = received.get(s.getLocalPort()).toString();
            assertTrue(got.contains("GET /via-v6 ") && got.contains("GET /via-name "), got);
            assertTrue(c.allowed().stream().allMatch(a -> a.port() != s.getLocalPort() || a.host().equals("127.0.0.1")),
                    c.allowed().toString());
        }
    }

    /**
     * Two host processes on one port number, one on 127.0.0.1 and one on {@code ::1}: each address inside reaches
     * its own, and each allowed-connection record names the process that was reached.
     */
    @Test
    void eachLoopbackFamilyReachesAndRecordsItsOwnListenerOnASharedPort() throws Exception {
        ServerSocket v4 = serve("127.0.0.1", "JAVA-V4");
        int port = v4.getLocalPort();
        Process py = new ProcessBuilder("python3", "-c", String.join("\n",
                "import socket, sys",
                "s = socket.socket(socket.AF_INET6)",
                "s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)",
                "s.bind(('::1', " + port + ")); s.listen(8); print('up', flush=True)",
                "while True:",
                "    c, _ = s.accept(); c.recv(4096)",
                "    c.sendall(b'HTTP/1.0 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nPY-V6'); c.close()"))
                .redirectErrorStream(true).start();
        try {
            assertEquals("up", new java.io.BufferedReader(new java.io.InputStreamReader(py.getInputStream(),
                    StandardCharsets.UTF_8)).readLine());
            try (Sandbox sb = open(List.of())) {
                ExecOutcome.Completed c6 = run(sb, "curl -sS -m 5 http://[::1]:" + port + "/", "c-lb9");
                assertEquals("PY-V6", c6.stdout(), c6.stderr());
                ExecOutcome.Completed c4 = run(sb, "curl -sS -m 5 http://127.0.0.1:" + port + "/v4", "c-lb10");
                assertEquals("JAVA-V4", c4.stdout(), c4.stderr());
                assertEquals("GET /v4 ", received.get(port).substring(0, 8), received.toString());
                List<dev.monoagent.common.Event.NetworkAllowed> a6 = c6.allowed().stream()
                        .filter(a -> a.port() == port).toList();
                List<dev.monoagent.common.Event.NetworkAllowed> a4 = c4.allowed().stream()
                        .filter(a -> a.port() == port).toList();
                assertEquals(1, a6.size(), c6.allowed().toString());
                assertEquals(1, a4.size(), c4.allowed().toString());
                assertTrue(a6.get(0).listener().endsWith("(pid " + py.pid() + ")"), a6.toString());
                assertEquals("java (pid " + ProcessHandle.current().pid() + ")", a4.get(0).listener());
            }
        } finally {
            py.destroyForcibly().waitFor();
        }
    }

    /** A host {@code ::1} port that localhostPorts does not grant, or that is mono-agent's own, gets nothing. */
    @Test
    void anIpv6PortNotGrantedStaysUnreachableByItsLiteral() throws Exception {
        ServerSocket granted = serve("::1", "GRANTED-V6");
        ServerSocket other = serve("::1", "OTHER-V6");
        ServerSocket own = serve("::1", "OWN-V6");
        try (dev.monoagent.common.OwnPorts.Hold h = dev.monoagent.common.OwnPorts.hold(own.getLocalPort());
             Sandbox sb = open(List.of(granted.getLocalPort(), own.getLocalPort()))) {
            StringBuilder cmd = new StringBuilder("curl -sS -m 5 http://[::1]:" + granted.getLocalPort() + "/ok");
            for (int port : List.of(other.getLocalPort(), own.getLocalPort())) {
                for (String host : List.of("[::1]", "localhost", "127.0.0.1")) {
                    cmd.append("; curl -sS -m 3 http://").append(host).append(':').append(port).append("/plain")
                            .append("; curl -sS -m 3 --noproxy '' -x \"$HTTP_PROXY\" http://").append(host)
                            .append(':').append(port).append("/proxied");
                }
            }
            ExecOutcome.Completed c = run(sb, cmd.toString(), "c-lb8");
            assertTrue(c.stdout().startsWith("GRANTED-V6"), c.stdout() + c.stderr());
            assertTrue(received.get(granted.getLocalPort()).toString().startsWith("GET /ok "), received.toString());
            // judged by the host listeners: not one byte, not even a connection, reached them
            assertEquals("", received.get(other.getLocalPort()).toString());
            assertEquals("", received.get(own.getLocalPort()).toString());
            assertFalse(c.stdout().contains("OTHER-V6") || c.stdout().contains("OWN-V6"), c.stdout());
        }
    }

    /**
     * Writes that succeed on the sandbox's own filesystems — /dev, /proc, and the empty tmpfs it has over every
     * read-denied directory (/tmp, /srv, ...), a mkdir included — are not logged as refused. They
     * are attempts whose outcome the feed does not tell; a write that really is refused (a read-only bind) still says
     * so.
     */
    @Test
    void aWriteThatSucceededInsideTheSandboxIsNotRecordedAsRefused() throws Exception {
        String unique = "mono-rec-" + System.nanoTime();
        try (Sandbox sb = open(List.of())) {
            ExecOutcome.Completed c = run(sb, "echo through-proc > /proc/self/fd/1; echo shm > /dev/shm/x && "
                    + "cat /dev/shm/x; mkdir /tmp/" + unique + " && echo in-tmp > /tmp/" + unique + "/f && cat /tmp/"
                    + unique + "/f; mkdir /usr/" + unique + " || echo usr-refused", "c-lb5");
            assertTrue(c.stdout().contains("through-proc") && c.stdout().contains("shm")
                    && c.stdout().contains("in-tmp") && c.stdout().contains("usr-refused"), c.stdout() + c.stderr());
            List<Violation> priv = c.violations().stream().filter(v -> v.target() != null
                    && (v.target().startsWith("/proc/") || v.target().startsWith("/dev/")
                    || v.target().startsWith("/tmp/" + unique))).toList();
            assertTrue(priv.stream().anyMatch(v -> v.target().startsWith("/dev/")), "no /dev record: " + priv);
            assertTrue(priv.stream().anyMatch(v -> v.target().equals("/tmp/" + unique) && v.reason().contains("mkdir")),
                    "no record of the mkdir in /tmp: this test would prove nothing: " + c.violations());
            assertTrue(priv.stream().anyMatch(v -> v.target().equals("/tmp/" + unique + "/f")), c.violations().toString());
            for (Violation v : priv) {
                // where a path on the sandbox's own filesystems leads is not known from the feed (AliasWriteRecordTest)
                assertFalse(v.reason().contains("refused") || v.reason().contains("did not happen"), v.toString());
                assertTrue(v.tier() != Violation.Tier.OBSERVED || v.reason().contains(WriteRecord.NOT_KNOWN),
                        v.toString());
            }
            assertFalse(Files.exists(Path.of("/tmp", unique)), "the write reached the host's /tmp");
            Violation usr = c.violations().stream().filter(v -> ("/usr/" + unique).equals(v.target())).findFirst()
                    .orElseThrow(() -> new AssertionError("the refused mkdir in /usr was not recorded: "
                            + c.violations()));
            assertTrue(usr.reason().startsWith("write refused by the sandbox (mkdir"), usr.toString());
        }
    }
}
