package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools over the REAL sandbox engine (srt via the sandbox facade, managed install in a temp cache): the
 * playbook's step 7 without a model, plus fail-closed with an absent engine.
 */
class SandboxedToolsTest {
    static final byte[] SECRET = "OPENAI_API_KEY=sk-canary\n".getBytes(StandardCharsets.UTF_8);
    static Path root;
    static HostEnv env;
    static HttpServer canary;

    @BeforeAll
    static void engine() throws IOException {
        root = Files.createTempDirectory("mono-tools-it-").toRealPath();
        Path home = Files.createDirectories(root.resolve("home"));
        Files.createDirectories(home.resolve(".ssh"));
        env = HostEnv.detect().withCacheRoot(root.resolve("cache")).withHome(home)
                .withPath("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
        canary = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        canary.createContext("/", ex -> {
            byte[] b = "canary-ok".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        canary.start();
        // install the pinned engine once for this class (npm registry → private cache)
        Path ws = Files.createDirectories(root.resolve("setup-ws"));
        try (Sandbox sb = Sandbox.open(config(ws, Enums.NetworkMode.LOCALHOST), e -> { }, env)) {
            if (!"ready".equals(sb.status().state())) {
                sb.setup(line -> { });
            }
            if (!"ready".equals(sb.status().state())) {
                throw new IllegalStateException("sandbox engine did not become ready: " + sb.status().lines());
            }
        }
    }

    @AfterAll
    static void stop() {
        if (canary != null) {
            canary.stop(0);
        }
    }

    static LoadedConfig config(Path ws, Enums.NetworkMode net) {
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(Enums.SandboxMode.NATIVE, new MonoConfig.Network(net, List.of()),
                List.of("."), List.of("."), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Enums.Fallback.FAIL_CLOSED, false);
        MonoConfig d = MonoConfig.DEFAULTS;
        MonoConfig mc = new MonoConfig(d.agent(), d.runtime(), d.providers(), d.context(), MonoConfig.Tools.DEFAULTS,
                s, d.memory(), d.processJobs(), d.monitors());
        return new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, mc, Map.of(), List.of(), Map.of());
    }

    static Path workspace(Path tmp) {
        try {
            Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
            Files.writeString(ws.resolve("README.md"), "# Demo repo\nhello from the repo\n");
            Files.write(ws.resolve(".env"), SECRET);
            return ws;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Violation> violations(List<Event> events, String callId) {
        return events.stream().filter(e -> e instanceof Event.ViolationObserved).map(e ->
                ((Event.ViolationObserved) e).violation()).filter(v -> callId.equals(v.callId())).toList();
    }

    @Test
    void playbookStepSeven(@TempDir Path tmp) throws Exception {
        Path ws = workspace(tmp);
        List<Event> events = new CopyOnWriteArrayList<>();
        int port = canary.getAddress().getPort();
        try (Sandbox sb = Sandbox.open(config(ws, Enums.NetworkMode.LOCALHOST), events::add, env);
             Tools tools = Tools.open(config(ws, Enums.NetworkMode.LOCALHOST), sb, events::add)) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run run = tools.run("run-7");

            // inspect the repo
            ToolResult read = run.call("c-read", "Read", json("file_path", "README.md"));
            assertEquals("     1\t# Demo repo\n     2\thello from the repo\n", read.text());

            // a Bash command
            ToolResult ls = run.call("c-ls", "Bash", json("command", "ls"));
            assertTrue(ls.text().contains("README.md") && ls.text().endsWith("Exit code: 0"), ls.text());
            assertEquals("native", ((ToolResult.Ok) ls).data().get("mode").asText());

            // NodeRepl state persists for the run
            assertEquals("undefined", run.call("c-n1", "NodeRepl", json("code", "const n = 40")).text());
            assertEquals("42", run.call("c-n2", "NodeRepl", json("code", "n + 2")).text());

            // external network blocked (through the proxy: refused without leaving the host), with a violation
            ToolResult curl = run.call("c-curl", "Bash", json("command",
                    "curl -sS -m 10 -o /dev/null -w '%{http_code}' http://example.com/"));
            assertFalse(curl.text().startsWith("200"), curl.text());
            assertTrue(violations(events, "c-curl").stream().anyMatch(v -> v.kind() == Violation.Kind.NETWORK),
                    "network violation attributed to the call: " + events);

            // host loopback canary reachable from Bash and from NodeRepl
            ToolResult loop = run.call("c-loop", "Bash", json("command",
                    "curl -sS -m 10 http://127.0.0.1:" + port + "/"));
            assertTrue(loop.text().startsWith("canary-ok"), loop.text());
            ToolResult fetch = run.call("c-fetch", "NodeRepl", json("code",
                    "await (await fetch('http://127.0.0.1:" + port + "/')).text()"));
            assertEquals("'canary-ok'", fetch.text());

            // .env: Write refused in-process, Bash refused by the engine; both leave a violation
            ToolResult w = run.call("c-wenv", "Write", json("file_path", ".env", "content", "pwned"));
            assertEquals("denied_by_policy", w.outcome().wire());
            assertEquals(Violation.Kind.WRITE, violations(events, "c-wenv").get(0).kind());
            ToolResult b = run.call("c-benv", "Bash", json("command", "echo pwned > .env"));
            assertTrue(((ToolResult.Ok) b).data().get("exitCode").asInt() != 0, b.text());
            assertFalse(violations(events, "c-benv").isEmpty(), "engine violation for the Bash write");
            ToolResult js = run.call("c-jenv", "NodeRepl", json("code",
                    "require('fs').writeFileSync('.env', 'pwned')"));
            assertTrue(js.text().startsWith("Uncaught Error"), js.text());
            assertArrayEquals(SECRET, Files.readAllBytes(ws.resolve(".env")));

            // the run continues
            assertEquals("42", run.call("c-n3", "NodeRepl", json("code", "n + 2")).text());
            assertEquals("ok", run.call("c-read2", "Read", json("file_path", "README.md")).outcome().wire());

            // a fresh run does not see n
            Tools.Run other = tools.run("run-8");
            assertEquals("'undefined'", other.call("c-o1", "NodeRepl", json("code", "typeof n")).text());
            other.close();
            run.close();
        }
    }

    @Test
    void absentEngineFailsClosedForCommandsOnly(@TempDir Path tmp) throws Exception {
        Path ws = workspace(tmp);
        HostEnv noEngine = env.withCacheRoot(Files.createDirectories(tmp.resolve("empty-cache")))
                .withPath("/usr/bin:/bin");
        List<Event> events = new CopyOnWriteArrayList<>();
        try (Sandbox sb = Sandbox.open(config(ws, Enums.NetworkMode.LOCALHOST), events::add, noEngine);
             Tools tools = Tools.open(config(ws, Enums.NetworkMode.LOCALHOST), sb, events::add)) {
            assertFalse("ready".equals(sb.status().state()));
            for (String[] c : List.of(new String[] {"Bash", json("command", "ls")},
                    new String[] {"Exec", json("executable", "/bin/ls")},
                    new String[] {"NodeRepl", json("code", "1 + 1")})) {
                ToolResult r = tools.call(c[0], c[1], "run-x");
                assertEquals("sandbox_prepare_failed", r.outcome().wire(), r.text());
                assertEquals("Error: Sandbox engine is unavailable and policy is fail-closed.", r.text());
            }
            assertEquals("ok", tools.call("Read", json("file_path", "README.md"), "run-x").outcome().wire());
            assertEquals("ok", tools.call("Glob", json("pattern", "*.md"), "run-x").outcome().wire());
            assertTrue(tools.call("Grep", json("pattern", "hello"), "run-x").text().contains("README.md"));
        }
    }
}
