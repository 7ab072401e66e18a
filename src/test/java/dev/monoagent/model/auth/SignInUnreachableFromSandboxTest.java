package dev.monoagent.model.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.TestEngine;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In network mode localhost the sandbox reaches the host's loopback listeners, and the ChatGPT sign-in's callback is
 * one: a sandboxed {@code curl 127.0.0.1:1455/cancel} cancelled the reviewer's sign-in (and a forged
 * {@code /auth/callback} could be sent). Our own listeners are never reachable from the sandbox, whatever
 * {@code localhostPorts} says — here a sign-in started after the engine was proven, on a port the system chose. Judged
 * by what the listener received and by the sign-in still waiting; a plain host listener beside it stays reachable.
 * Real srt sandbox.
 */
class SignInUnreachableFromSandboxTest {
    @TempDir
    Path tmp;

    @Test
    void aSandboxedCommandCannotReachTheSignInCallback() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        MonoConfig.Sandbox sbc = new MonoConfig.Sandbox(SandboxMode.NATIVE,
                new MonoConfig.Network(NetworkMode.LOCALHOST, List.of(), List.of()), List.of("."), List.of("."),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false);
        MonoConfig mc = new MonoConfig(MonoConfig.Agent.DEFAULTS, MonoConfig.Runtime.DEFAULTS, Map.of(),
                MonoConfig.Context.DEFAULTS, MonoConfig.Tools.DEFAULTS, sbc, MonoConfig.Memory.DEFAULTS,
                MonoConfig.ProcessJobs.DEFAULTS, MonoConfig.Monitors.DEFAULTS);
        LoadedConfig cfg = new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, mc, Map.of(), List.of(),
                Map.of());
        try (ServerSocket other = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Sandbox sb = Sandbox.open(cfg, e -> { }, TestEngine.env())) {
            assertEquals("ready", sb.status().state(), sb.status().reason());
            dev.monoagent.common.TaskExecutor.shared().submit("test-listener", () -> {
                while (!other.isClosed()) {
                    try (Socket c = other.accept(); OutputStream os = c.getOutputStream()) {
                        c.getInputStream().read(new byte[4096]);
                        os.write("HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nHOST-OK\n".getBytes(StandardCharsets.UTF_8));
                    } catch (java.io.IOException e) {
                        return null;
                    }
                }
                return null;
            });
            // a sign-in started after the engine was proven, on a port the system chose
            CodexAuth auth = new CodexAuth(new CodexAuthSettings(URI.create("https://auth.invalid"), "client", 0,
                    tmp.resolve("cfg"), tmp.resolve("codex")), Clock.systemUTC());
            try (BrowserLogin login = auth.startBrowserLogin()) {
                assertTrue(login.callbackListening(), login.callbackProblem());
                int port = URI.create(login.redirectUri()).getPort();
                String cmd = "for u in http://127.0.0.1:" + port + "/cancel 'http://localhost:" + port
                        + "/auth/callback?code=FORGED&state=x' http://0.0.0.0:" + port + "/cancel; do "
                        + "curl -sS -m 5 \"$u\"; curl -sS -m 5 --noproxy '' -x \"$HTTP_PROXY\" \"$u\"; done; "
                        + "curl -sS -m 5 http://127.0.0.1:" + other.getLocalPort() + "/";
                ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class, sb.exec(
                        CommandSpec.bash(cmd, ws).withAttribution("run-own", "c-own", "Bash")));
                assertTrue(c.stdout().contains("HOST-OK"), "another host listener is reachable: " + c.stdout()
                        + c.stderr());
                assertFalse(c.stdout().contains("cancelled"), c.stdout());
                assertEquals(0, login.requestsReceived(), "the sign-in's listener received nothing");
                assertThrows(TimeoutException.class, () -> login.await(Duration.ofMillis(300)),
                        "the sign-in is still waiting for its code");
                assertTrue(c.violations().stream().anyMatch(v -> v.kind() == Violation.Kind.NETWORK
                        && String.valueOf(v.target()).endsWith(":" + port)), c.violations().toString());
            }
        }
    }
}
