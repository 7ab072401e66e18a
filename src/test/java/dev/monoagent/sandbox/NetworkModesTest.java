package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * none / allowlist / all against the real engine. Only 127.0.0.1 is ever reached; outside hosts are only used where
 * the sandbox must refuse them (the proxy answers 403 without connecting).
 */
class NetworkModesTest {
    @TempDir
    Path tmp;
    Path ws;
    ServerSocket host;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve(".env"), "S=1\n");
        host = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"));
        ProcessRunner.pump("test-server", () -> {
            while (!host.isClosed()) {
                try (Socket s = host.accept(); OutputStream os = s.getOutputStream()) {
                    s.getInputStream().read(new byte[4096]);
                    os.write("HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nHOST-OK".getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @AfterEach
    void tearDown() throws Exception {
        host.close();
    }

    private ExecOutcome.Completed run(Sandbox sb, String cmd) {
        return assertInstanceOf(ExecOutcome.Completed.class, sb.exec(CommandSpec.bash(cmd, ws)));
    }

    @Test
    void noneGrantsNoHostPortAndProxiesNothing() {
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), e -> { }, TestEngine.env())) {
            assertEquals("ready", sb.status().state(), sb.status().reason());
            assertFalse(run(sb, "curl -sS -m 5 http://127.0.0.1:" + host.getLocalPort() + "/").stdout()
                    .contains("HOST-OK"));
            assertFalse(run(sb, "curl -sS -m 5 --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:"
                    + host.getLocalPort() + "/").stdout().contains("HOST-OK"));
            ExecOutcome.Completed c = run(sb, "curl -s -o /dev/null -w '%{http_code}' -m 5 http://example.com/");
            assertEquals("403", c.stdout());
        }
    }

    @Test
    void allowlistRefusesUnlistedHostsAndHostLoopback() {
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.ALLOWLIST, List.of("example.org")),
                e -> { }, TestEngine.env())) {
            assertEquals("ready", sb.status().state(), sb.status().reason());
            assertEquals("403", run(sb, "curl -s -o /dev/null -w '%{http_code}' -m 5 http://example.com/").stdout());
            assertEquals("403", run(sb, "curl -s -o /dev/null -w '%{http_code}' -m 5 http://notexample.org/")
                    .stdout());
            assertFalse(run(sb, "curl -sS -m 5 http://127.0.0.1:" + host.getLocalPort() + "/").stdout()
                    .contains("HOST-OK"));
        }
    }

    @Test
    void allIsUnrestrictedEgressWithFilesystemRulesIntact() throws Exception {
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.ALL, List.of()), e -> { }, TestEngine.env())) {
            assertEquals("ready", sb.status().state(), sb.status().reason());
            assertEquals("HOST-OK", run(sb, "curl -sS -m 5 http://127.0.0.1:" + host.getLocalPort() + "/").stdout());
            ExecOutcome.Completed c = run(sb, "echo X >> .env; mkdir -p .git/hooks && echo x > .git/hooks/pre-commit");
            assertNotEquals(0, c.exitCode());
            assertEquals("S=1\n", Files.readString(ws.resolve(".env")));
            assertTrue(!Files.exists(ws.resolve(".git/hooks/pre-commit")));
        }
    }
}
