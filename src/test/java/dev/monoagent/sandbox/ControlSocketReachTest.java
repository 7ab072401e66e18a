package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.ControlEndpoint;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The instance's control socket is out of every sandbox's view, and nothing inside can reach it by injecting into a
 * process that runs without srt's seccomp filter.
 *
 * <p>The socket accepts any peer of the same uid ({@code SO_PEERCRED}), and a {@code stop} or {@code run} request
 * through it acts outside the sandbox. Sandboxed commands cannot make AF_UNIX sockets (srt's seccomp filter), but srt
 * starts its socat forwarders, bwrap and apply-seccomp without that filter; one of them made to connect would pass it.
 * Two things keep that shut, both checked here from a warm-shell command, a per-command sandbox and a long-lived
 * process of NodeRepl's kind: the socket lives outside the workspace, under the runtime or temp directory, which the
 * sandbox does not see (its {@code /run} and {@code /tmp} are private tmpfs), so no path inside names it; and no
 * unfiltered process can be ptrace-attached or have its memory opened — srt's apply-seccomp runs each command in a
 * user and pid namespace nested below theirs, so the command has no pid for them (ESRCH) and no capability in their
 * namespace ({@code /proc/<pid>/mem}: EACCES). The unix sockets that remain visible are srt's own (its proxy bridge,
 * multiplexer and observer sockets), which the sandbox already reaches through the proxy.
 *
 * <p>Judged by the host: the listener at {@link ControlEndpoint#socketPath} accepts no connection.
 */
class ControlSocketReachTest {
    private Path root;
    private Path ws;
    private Path sock;
    private ServerSocketChannel listener;
    private final AtomicInteger accepted = new AtomicInteger();

    @BeforeEach
    void listen() throws Exception {
        root = Files.createTempDirectory("mono-agent-control-reach-").toRealPath();
        ws = Files.createDirectories(root.resolve("ws"));
        try (InputStream in = ControlSocketReachTest.class.getResourceAsStream("control-reach.sh")) {
            Files.write(ws.resolve("control-reach.sh"), in.readAllBytes());
        }
        sock = ControlEndpoint.socketPath(ws);
        Files.createDirectories(sock.getParent());
        Files.deleteIfExists(sock);
        listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(sock));
        ProcessRunner.pump("control-listener", () -> {
            while (listener.isOpen()) {
                try (SocketChannel c = listener.accept()) {
                    accepted.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
        Files.deleteIfExists(sock);
        SrtRuntime.deleteTree(root);
    }

    private String command() {
        return "export SOCK='" + sock + "'; bash control-reach.sh";
    }

    @ParameterizedTest(name = "warm shell: {0}")
    @ValueSource(booleans = {true, false})
    void aBashCommandCannotSeeNorReachTheControlSocket(boolean warm) throws Exception {
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = TestEngine.bash(sb, ws, command(), "run-cs", "call-cs", Duration.ofSeconds(60));
            assertUnreached(c.stdout() + c.stderr());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    @Test
    void aLongLivedProcessCannotSeeNorReachTheControlSocket() throws Exception {
        try (TestEngine.Warm w = TestEngine.openWarm(ws, new TestEngine.Events())) {
            SandboxProcess p = TestEngine.longLived(w.sandbox(), ws, command() + " > reach.out 2>&1", "run-cs",
                    "call-repl", Duration.ofSeconds(60));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe ended");
            p.violations().get(30, TimeUnit.SECONDS);
            assertUnreached(Files.readString(ws.resolve("reach.out")));
        }
    }

    private void assertUnreached(String out) throws InterruptedException {
        assertTrue(out.contains("PROBE DONE"), out);
        assertTrue(out.contains("UNFILTERED "), "the probe found srt's unfiltered helpers:\n" + out);
        assertFalse(out.contains("VISIBLE "), "the control socket is visible inside:\n" + out);
        assertFalse(out.contains(sock.getFileName().toString()), "the control socket is listed inside:\n" + out);
        assertFalse(out.contains("CONNECTED"), out);
        for (String line : out.lines().filter(l -> l.startsWith("UNFILTERED ")).toList()) {
            assertFalse(line.contains("attach=OK"), "an unfiltered process can be ptrace-attached: " + line);
            // apply-seccomp's outer process (it forks the filtered command) is in the command's user namespace; from
            // a long-lived process its memory opens, and what code put there reaches is what the SOCKET lines list
            if (!line.contains("apply-seccomp")) {
                assertFalse(line.contains("mem=OK"), "an unfiltered process's memory opens: " + line);
            }
        }
        for (String line : out.lines().filter(l -> l.startsWith("SOCKET ")).toList()) {
            assertTrue(List.of("claude-http-", "srt-mux-", "srt-obs-").stream().anyMatch(line::contains),
                    "only srt's own sockets are visible: " + line);
        }
        Thread.sleep(300);
        assertEquals(0, accepted.get(), "connections the host's control listener accepted");
    }
}
