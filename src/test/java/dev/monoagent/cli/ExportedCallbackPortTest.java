package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.ChildProcesses;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.TestEngine;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reviewer moved the sign-in callback ({@code MONO_AGENT_CODEX_CALLBACK_PORT}, exported to every mono-agent
 * process); a sign-in waits there in another process. A sandboxed command in this process must not reach it (a
 * {@code /cancel} ended the sign-in), while the same port is an ordinary granted listener when nothing names it.
 * A separate JVM, because the variable is read from the process environment; judged by what the listener accepted.
 */
class ExportedCallbackPortTest {
    @TempDir
    Path tmp;

    @Test
    void aSandboxedCommandCannotReachTheExportedCallbackPort() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        assertEquals(0, CliHarness.run(ws, Map.of(), "init", "--model", "openai:gpt-5", "--preset", "code-sandbox")
                .exit());
        AtomicInteger accepted = new AtomicInteger();
        try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                while (!listener.isClosed()) {
                    try (Socket s = listener.accept()) {
                        accepted.incrementAndGet();
                        s.getOutputStream().write("HTTP/1.0 200 OK\r\n\r\nSIGN-IN\n".getBytes(StandardCharsets.UTF_8));
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            int port = listener.getLocalPort();
            String curl = "{\"command\":\"curl -s -m 5 http://127.0.0.1:" + port + "/cancel; echo done\"}";
            // nothing names the port: a plain granted listener, reached (the test can see a connection)
            String plain = cli(ws, null, curl);
            assertTrue(plain.contains("SIGN-IN") && accepted.get() == 1, "not reachable at all: " + plain);
            String held = cli(ws, port, curl);
            assertTrue(held.contains("done"), held);
            assertEquals(1, accepted.get(), "the sandbox reached the exported callback port: " + held);
        }
    }

    /** {@code tools call} in a JVM of its own, with the callback port exported when given. */
    private String cli(Path ws, Integer callbackPort, String args) throws Exception {
        HostEnv shared = TestEngine.env();
        ProcessBuilder pb = ChildProcesses.builder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), "dev.monoagent.cli.Main", "tools", "call",
                "Bash", args)).directory(ws.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("PATH", shared.path());
        env.put("HOME", shared.home().toString());
        env.put("MONO_AGENT_CACHE_DIR", shared.cacheRoot().toString());
        env.put("MONO_AGENT_CONFIG_DIR", System.getenv("MONO_AGENT_CONFIG_DIR"));
        env.remove("MONO_AGENT_CODEX_CALLBACK_PORT");
        if (callbackPort != null) {
            env.put("MONO_AGENT_CODEX_CALLBACK_PORT", callbackPort.toString());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        return out;
    }
}
