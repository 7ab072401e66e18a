package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.TestEngine;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against the real engine, two runs open in one service: a NodeRepl run (its REPL keeps running between calls) and a
 * run whose Bash call curls a granted host listener. The allowed connection is that call's: in its run's log with its
 * callId, counted in its own result, and absent from the other run's log.
 */
class AllowedTrafficAttributionTest {
    @TempDir
    Path tmp;

    @Test
    void anAllowedLoopbackConnectionGoesToTheCallThatMadeItWhileAnotherRunIsOpen() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test"},
                 "sandbox": {"mode": "native", "network": {"mode": "localhost"}, "fallback": "fail-closed"}}
                """);
        LoadedConfig lc = dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, Map.of()));
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"));
             TaskExecutor exec = TaskExecutor.create("allowed-attribution-test");
             AgentService service = AgentService.of(lc, TestEngine.env(), exec)) {
            StringBuffer got = new StringBuffer();
            Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try (Socket c = server.accept(); OutputStream os = c.getOutputStream()) {
                        byte[] buf = new byte[4096];
                        int n = c.getInputStream().read(buf);
                        got.append(n > 0 ? new String(buf, 0, n, StandardCharsets.UTF_8) : "");
                        os.write("HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nHOST-OK".getBytes(StandardCharsets.UTF_8));
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            int port = server.getLocalPort();

            ToolCallReply repl = service.callTool("NodeRepl", "{\"code\":\"40 + 2\"}", "run-repl", "call-repl");
            assertEquals(ToolOutcome.OK, repl.outcome(), repl.text());
            ToolCallReply curl = service.callTool("Bash",
                    "{\"command\":\"curl -sS -m 5 http://127.0.0.1:" + port + "/\"}", "run-curl", "call-curl");
            assertEquals(ToolOutcome.OK, curl.outcome(), curl.text());
            assertTrue(curl.text().contains("HOST-OK"), curl.text());
            assertTrue(got.toString().startsWith("GET / "), "the host listener was reached: " + got);
            ToolCallReply other = service.callTool("NodeRepl", "{\"code\":\"1\"}", "run-repl", "call-repl-2");
            assertEquals(ToolOutcome.OK, other.outcome(), other.text());

            // the call's own result counts it and says it
            assertEquals(1, curl.data().path("allowedConnections").asInt(), curl.data().toString());
            assertTrue(curl.text().contains("allowed connection to host port " + port), curl.text());

            // the run log of the call that made it holds it with its callId ...
            List<Event.NetworkAllowed> mine = allowed(ws, "run-curl");
            assertEquals(1, mine.size(), mine.toString());
            Event.NetworkAllowed a = mine.get(0);
            assertEquals("call-curl", a.callId());
            assertEquals("run-curl", a.runId());
            assertEquals("Bash", a.tool());
            assertEquals(port, a.port());
            assertTrue(a.command().contains("curl"), a.command());
            // ... and the other open run's log does not
            assertEquals(List.of(), allowed(ws, "run-repl"));
        }
    }

    static List<Event.NetworkAllowed> allowed(Path ws, String runId) throws Exception {
        try (Stream<String> lines = Files.lines(RunLogs.file(ws, runId))) {
            return lines.map(EventJson::read).filter(Event.NetworkAllowed.class::isInstance)
                    .map(Event.NetworkAllowed.class::cast).toList();
        }
    }
}
