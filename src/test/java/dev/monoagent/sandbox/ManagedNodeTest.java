package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.Enums.NetworkMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A host with no Node at all (PATH holds every system program except node/npm/npx/corepack): {@code sandbox setup}
 * downloads the pinned Node from a loopback registry that serves the real npm platform package, installs the engine
 * without npm from the shipped lockfile, and the 16 probes pass on that Node; a flipped byte in the managed binary
 * makes it corrupt and nothing runs. The registry's tarballs are the real ones, fetched once (integrity-checked)
 * into {@code target/npm-fixture}: the only step that needs the network, and no npm is needed for it.
 */
class ManagedNodeTest {
    private static final Set<String> NODE_NAMES = Set.of("node", "nodejs", "npm", "npx", "corepack");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path fixture;
    private static HttpServer registry;
    private static final Map<String, Path> served = new HashMap<>();
    private static volatile boolean corruptNode;

    @BeforeAll
    static void fixtureAndRegistry() throws Exception {
        fixture = Path.of(System.getProperty("monoagent.projectDir", ".")).resolve("target/npm-fixture");
        Files.createDirectories(fixture);
        // name, version, integrity: the pinned Node and the engine's lockfile entries
        List<String[]> pkgs = new ArrayList<>();
        pkgs.add(new String[] {NodeRuntime.pin().pkg(), NodeRuntime.VERSION, NodeRuntime.pin().integrity()});
        try (InputStream in = SrtRuntime.class.getResourceAsStream("engine/package-lock.json")) {
            JsonNode packages = JSON.readTree(in).path("packages");
            for (Iterator<Map.Entry<String, JsonNode>> it = packages.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().startsWith("node_modules/")) {
                    pkgs.add(new String[] {e.getKey().substring("node_modules/".length()),
                            e.getValue().path("version").asText(), e.getValue().path("integrity").asText()});
                }
            }
        }
        for (String[] p : pkgs) {
            String base = p[0].contains("/") ? p[0].substring(p[0].indexOf('/') + 1) : p[0];
            Path f = fixture.resolve(p[0].replace("@", "").replace('/', '-') + "-" + p[1] + ".tgz");
            if (!Files.isRegularFile(f)) {
                // fetched once from the real registry with the product's own integrity-checked download
                Path part = Files.createTempFile(fixture, "fetch-", ".part");
                RegistryTarball.fetch(RegistryTarball.url(HostEnv.detect(), p[0], p[1]), p[2], part);
                Files.move(part, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
            served.put("/" + p[0] + "/-/" + base + "-" + p[1] + ".tgz", f);
        }
        registry = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        registry.createContext("/", ex -> {
            Path f = served.get(ex.getRequestURI().getPath());
            byte[] body = f == null ? new byte[0] : Files.readAllBytes(f);
            if (f != null && corruptNode && f.getFileName().toString().startsWith("node-linux")) {
                body[body.length / 2] ^= 1; // a tampered mirror
            }
            ex.sendResponseHeaders(f == null ? 404 : 200, body.length == 0 ? -1 : body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        registry.start();
    }

    @AfterAll
    static void stop() {
        if (registry != null) {
            registry.stop(0);
        }
        roots.forEach(SrtRuntime::deleteTree);
    }

    private static final List<Path> roots = new ArrayList<>();

    /** A temp root removed after the class (JUnit's @TempDir warns about every symlink of the PATH farm). */
    private static Path tempRoot() throws IOException {
        Path r = Files.createTempDirectory("mono-agent-nodeless-");
        roots.add(r);
        return r;
    }

    /** A PATH with every program of /usr/bin and /usr/sbin except any Node or npm. */
    private static String nodelessPath(Path root) throws IOException {
        Path bin = Files.createDirectories(root.resolve("bin"));
        for (String dir : List.of("/usr/sbin", "/usr/bin")) {
            try (Stream<Path> s = Files.list(Path.of(dir))) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    String name = p.getFileName().toString();
                    if (!NODE_NAMES.contains(name) && !Files.exists(bin.resolve(name)) && Files.isExecutable(p)) {
                        Files.createSymbolicLink(bin.resolve(name), p);
                    }
                }
            }
        }
        return bin.toString();
    }

    private HostEnv env(Path root) throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Map<String, String> host = new HashMap<>(HostEnv.detect().hostEnv());
        host.put("npm_config_registry", "http://127.0.0.1:" + registry.getAddress().getPort() + "/");
        return new HostEnv(root.resolve("cache"), home, nodelessPath(root), Files.createDirectories(root.resolve("tmp")),
                host, List.of());
    }

    @Test
    void setupInstallsPinnedNodeAndTheProbesPassWithItThenAFlippedByteStopsEverything()
            throws Exception {
        Path root = tempRoot();
        corruptNode = false;
        HostEnv env = env(root);
        Path ws = Files.createDirectories(root.resolve("ws"));
        assertFalse(HostTools.hostNodeQualifies(env, List.of()), "the test PATH must hold no node");
        HostTools.Found before = HostTools.find(env);
        assertInstanceOf(HostTools.Missing.class, before);
        assertTrue(((HostTools.Missing) before).line().contains("sandbox setup"), before.toString());

        Sandbox sb = Sandbox.unproven(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(), env);
        List<String> progress = new ArrayList<>();
        SandboxStatus st = sb.setup(progress::add);
        assertEquals("ready", st.state(), st.reason() + "\n" + String.join("\n", progress));
        assertTrue(st.probes().size() >= 16, "the full self-check ran: " + st.probes());
        assertTrue(st.probes().stream().allMatch(ProbeResult::passed), st.probes().toString());
        NodeRuntime nr = new NodeRuntime(env);
        Path node = nr.binary();
        assertTrue(st.node().contains("managed") && st.node().contains(node.toString()), st.node());
        assertTrue(String.join("\n", progress).contains("Integrity verified"), String.join("\n", progress));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(node.getParent().getParent())));
        assertEquals("managed", new SrtRuntime(env).resolve().source().wire());
        assertEquals(node, ToolBinaries.find(env, sb.policy()).node(), "NodeRepl runs on the same managed Node");
        ExecOutcome ran = sb.exec(CommandSpec.bash("echo ran-on-managed-node", ws).withTimeout(Duration.ofSeconds(30)));
        assertTrue(ran instanceof ExecOutcome.Completed c && c.stdout().contains("ran-on-managed-node"), ran.toString());

        sb.close();

        // one flipped byte in the managed binary (the kernel refuses writes while it runs, so after the bridge is
        // gone): the next proof finds it corrupt and nothing runs
        try (RandomAccessFile f = new RandomAccessFile(node.toFile(), "rw")) {
            long at = f.length() / 3;
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x01);
        }
        Sandbox tampered = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                env);
        assertEquals("unavailable", tampered.status().state());
        assertTrue(tampered.status().reason().contains("corrupt"), tampered.status().reason());
        ExecOutcome after = tampered.exec(CommandSpec.bash("touch tampered-ran", ws).withTimeout(Duration.ofSeconds(30)));
        assertInstanceOf(ExecOutcome.PrepareFailed.class, after);
        assertFalse(Files.exists(ws.resolve("tampered-ran")), "nothing may run after the Node was found corrupt");
        tampered.close();
        assertInstanceOf(NodeRuntime.Corrupt.class, nr.resolve());
        assertFalse(Files.exists(node), "the corrupt binary is quarantined");
        assertTrue(Sandbox.nodeLine(env, TestEngine.config(ws, NetworkMode.NONE, List.of())).startsWith("none usable"));

        // setup repairs it (from the same pinned package) and the engine is usable again
        Sandbox again = Sandbox.unproven(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                env);
        assertEquals("ready", again.setup(line -> { }).state());
        again.close();
    }

    @Test
    void aTamperedRegistryTarballIsRefusedBeforeUnpacking() throws Exception {
        Path root = tempRoot();
        corruptNode = true;
        try {
            HostEnv env = env(root);
            List<String> progress = new ArrayList<>();
            NodeRuntime.State s = new NodeRuntime(env).setup(progress::add);
            NodeRuntime.Absent a = assertInstanceOf(NodeRuntime.Absent.class, s);
            assertTrue(a.detail().contains("integrity mismatch"), a.detail());
            assertFalse(Files.exists(new NodeRuntime(env).managedDir()));
            try (Stream<Path> left = Files.list(new NodeRuntime(env).versionDir())) {
                assertEquals(List.of(), left.map(p -> p.getFileName().toString()).toList(), "no staging left behind");
            }
        } finally {
            corruptNode = false;
        }
    }
}
