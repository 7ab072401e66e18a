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
