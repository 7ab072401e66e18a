package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstanceTest {
    @TempDir
    Path ws;

    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
    private final AtomicInteger focused = new AtomicInteger();
    private final AtomicInteger stopped = new AtomicInteger();

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    private InstanceHandler handler() {
        SandboxSummary sb = new SandboxSummary(dev.monoagent.common.Effective.NATIVE, "srt (present)", "fail-closed", false, null, null);
        return new InstanceHandler() {
            @Override public InstanceStatus status() {
                return new InstanceStatus(ws.toString(), ws.resolve("mono-agent.config.json").toString(), 42,
                        "2026-11-29T10:00:00Z", "window", "sock", sb);
            }
            @Override public void focus() { focused.incrementAndGet(); }
            @Override public void stop() { stopped.incrementAndGet(); }
        };
    }

    @Test
    void firstAcquireOwnsWorkspaceAndServesStatus() throws Exception {
        Instance.Acquisition a = Instance.acquire(ws, handler(), pool);
        try (Instance i = assertInstanceOf(Instance.Acquired.class, a).instance()) {
            Optional<InstanceStatus> s = ControlClient.forWorkspace(ws).status();
            assertTrue(s.isPresent());
            assertEquals(List.of("effective: native", "engine: srt (present)", "fallback: fail-closed",
                    "fallback active: no"), s.get().sandbox().lines());
            assertEquals(i.endpoint(), ControlEndpoint.socketPath(ws));
        }
    }

    @Test
    void secondAcquireReportsTheRunningInstance() throws Exception {
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            Instance.Acquisition b = Instance.acquire(ws, handler(), pool);
            Instance.AlreadyRunning r = assertInstanceOf(Instance.AlreadyRunning.class, b);
            assertEquals(42, r.status().orElseThrow().pid());
        }
    }

    @Test
    void focusAndStopReachTheHandler() throws Exception {
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            ControlClient c = ControlClient.forWorkspace(ws);
            assertTrue(c.focus().isPresent());
            assertTrue(c.stop().isPresent());
            assertEquals(1, focused.get());
            // the server answers stop first and then stops (so the caller gets the last status): wait for it
            for (int k = 0; k < 200 && stopped.get() == 0; k++) {
                Thread.sleep(10);
            }
            assertEquals(1, stopped.get());
        }
    }

    @Test
    void closedInstanceFreesWorkspaceAndRemovesSocket() throws Exception {
        ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance().close();
        assertFalse(Files.exists(ControlEndpoint.socketPath(ws)));
        assertTrue(ControlClient.forWorkspace(ws).status().isEmpty());
        try (Instance again = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            assertTrue(ControlClient.forWorkspace(ws).status().isPresent());
        }
    }

    @Test
    void staleSocketFileIsReplaced() throws Exception {
        Path sock = ControlEndpoint.socketPath(ws);
        Files.createDirectories(sock.getParent());
        Files.writeString(sock, "stale");
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            assertTrue(ControlClient.forWorkspace(ws).status().isPresent());
        }
    }

    @Test
    void endpointIsOwnerOnly() throws Exception {
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            assertEquals("rwx------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(i.endpoint().getParent())));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(i.endpoint())));
        }
    }

    @Test
    void deepWorkspaceUsesShortSocketPath() {
        Path deep = ws.resolve("a".repeat(60)).resolve("b".repeat(60));
        Path sock = ControlEndpoint.socketPath(deep);
        assertTrue(sock.toString().length() <= ControlEndpoint.MAX_SOCKET_PATH, sock.toString());
        assertEquals(sock, ControlEndpoint.socketPath(deep));
    }

    @Test
    void relaunchCommandRerunsTheSameClassPath() {
        List<String> argv = InstanceLauncher.relaunchCommand("dev.monoagent.cli.Main", List.of("start"));
        assertTrue(argv.get(0).endsWith("java"), argv.toString());
        assertEquals(System.getProperty("java.class.path"), argv.get(argv.indexOf("-cp") + 1));
        assertEquals(List.of("dev.monoagent.cli.Main", "start"), argv.subList(argv.size() - 2, argv.size()));
    }

    /**
     * A request of a kind the instance does not know (another version's client, or garbage) is refused with a code the
     * client reads, not a text it must match, and the instance goes on serving; a kind this instance does not serve
     * is told apart from one that was served and failed.
     */
    @Test
    void anUnknownOrUnservedRequestIsRefusedByCode() throws Exception {
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            for (String raw : List.of("{\"op\":\"reboot\"}", "{\"tool\":\"Bash\"}", "not json")) {
                try (var ch = java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                    ch.connect(java.net.UnixDomainSocketAddress.of(i.endpoint()));
                    ch.write(java.nio.ByteBuffer.wrap((raw + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                    ControlProtocol.Reply r = ControlProtocol.JSON.readValue(ControlProtocol.readLine(ch),
                            ControlProtocol.Reply.class);
                    assertFalse(r.ok(), raw);
                    assertEquals(ControlProtocol.Code.UNKNOWN_REQUEST, r.code(), raw + ": " + r.error());
                }
            }
            ControlClient c = ControlClient.forWorkspace(ws);
            assertTrue(c.status().isPresent(), "still serving");
            ControlClient.ControlException tool = org.junit.jupiter.api.Assertions.assertThrows(
                    ControlClient.ControlException.class, () -> c.callTool("Bash", "{\"command\":\"true\"}", "r1"));
            assertTrue(tool.notServed(), tool.getMessage());
            ControlClient.ControlException run = org.junit.jupiter.api.Assertions.assertThrows(
                    ControlClient.ControlException.class, () -> c.run("hi", false, null).orElseThrow().stream(l -> { }));
            assertTrue(run.notServed(), run.getMessage());
        }
    }

    @Test
    void nothingRunningMeansEmptyStatus() {
        assertTrue(InstanceLauncher.status(ws).isEmpty());
        assertTrue(InstanceLauncher.stop(ws, java.time.Duration.ofMillis(10)).isEmpty());
    }

    /**
     * A peer that connects and never sends its request must not park the control server's accept (a {@code tools
     * call} would hang behind it): it is disconnected after the request wait, and the instance keeps
     * answering others meanwhile.
     */
    @Test
    void aPeerThatNeverSendsItsRequestIsDisconnected() throws Exception {
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, handler(), pool)).instance()) {
            List<java.nio.channels.SocketChannel> silent = new java.util.ArrayList<>();
            for (int k = 0; k < 20; k++) {
                java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(
                        java.net.StandardProtocolFamily.UNIX);
                ch.connect(java.net.UnixDomainSocketAddress.of(ControlEndpoint.socketPath(ws)));
                silent.add(ch);
            }
            assertTrue(ControlClient.forWorkspace(ws).status().isPresent(), "status while 20 peers sit silent");
            long t0 = System.nanoTime();
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    ControlServer.REQUEST_WAIT.plusSeconds(20), () -> {
                        for (java.nio.channels.SocketChannel ch : silent) {
                            assertEquals(-1, ch.read(java.nio.ByteBuffer.allocate(16)), "closed by the server");
                            ch.close();
                        }
                    }, "the server kept a silent connection open");
            assertTrue(System.nanoTime() - t0 >= ControlServer.REQUEST_WAIT.toNanos() / 2,
                    "closed long before the request wait: the test would not show the deadline");
        }
    }

    /** The client's wait for a tool call follows the call's own timeout; running out is an error, not "no instance". */
    @Test
    void aToolCallThatDoesNotAnswerInTimeIsAnErrorNotARetryElsewhere() throws Exception {
        assertEquals(java.time.Duration.ofMillis(1500).plus(ControlClient.TOOL_MARGIN),
                ControlClient.toolWait("{\"command\":\"sleep 1\",\"timeout_ms\":1500}"));
        assertEquals(dev.monoagent.sandbox.CommandSpec.DEFAULT_TIMEOUT.plus(ControlClient.TOOL_MARGIN),
                ControlClient.toolWait("{}"));
        assertEquals(dev.monoagent.sandbox.CommandSpec.MAX_TIMEOUT.plus(ControlClient.TOOL_MARGIN),
                ControlClient.toolWait("{\"timeout_ms\":99999999999}"));
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        InstanceHandler base = handler();
        InstanceHandler hanging = new InstanceHandler() {
            @Override public InstanceStatus status() { return base.status(); }
            @Override public void focus() { }
            @Override public void stop() { }
            @Override public ToolCallReply callTool(String name, String argsJson, String runId) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }
        };
        try (Instance i = ((Instance.Acquired) Instance.acquire(ws, hanging, pool)).instance()) {
            ControlClient c = ControlClient.forWorkspace(ws);
            long t0 = System.nanoTime();
            ControlClient.TimedOut e = org.junit.jupiter.api.Assertions.assertThrows(ControlClient.TimedOut.class,
                    () -> c.callTool("Bash", "{}", "r1", java.time.Duration.ofMillis(800)));
            assertTrue(e.getMessage().contains("did not answer"), e.getMessage());
            assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "the wait was not kept");
        } finally {
            release.countDown();
        }
    }
}
