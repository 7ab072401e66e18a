package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.common.Violation.Kind;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The macOS engine path as far as Linux can run it: our Seatbelt config goes through the real bridge and srt 0.0.78
 * with srt's platform forced to macOS ({@code renderMacos}), so the profile checked here is the one srt would hand to
 * {@code sandbox-exec}, its proxy is the one a Mac command would talk to, and its macOS log monitor parses the
 * {@code log stream} lines. Nothing here runs under Seatbelt: whether the kernel enforces the profile is
 * {@code installer/macos-check.sh}'s job on a Mac.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeatbeltRenderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private Path root;
    private Path ws;
    private Path repo;
    private Path outside;
    private Path macRoot;
    private Path streamFile;
    private Path argsFile;
    private HostEnv env;
    private HostTools tools;
    private SrtBridge bridge;
    private ServerSocket granted;
    private ServerSocket ungranted;
    private String token;
    private Policy policy;
    private List<Path> literals;
    private Path sessionTmp;
    private final List<SrtBridge.EngineEvent> events = new CopyOnWriteArrayList<>();
    private JsonNode rendered;
    private List<String> argv;
    private String profile;

    @BeforeAll
    void render() throws Exception {
        // on a Mac srt would spawn the real `log stream` (first on the bridge's PATH) and the forced platform is the real
        // one: what this test stands in for is macos-check.sh's job there
        org.junit.jupiter.api.Assumptions.assumeTrue(Platform.current() != Platform.MACOS,
                "renders for macOS on a host that is not one");
        root = Files.createTempDirectory("mono-agent-seatbelt-").toRealPath();
        ws = Files.createDirectories(root.resolve("ws"));
        outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        Files.writeString(ws.resolve(".env.production"), "SECRET=2\n");
        // a second writable root holding a repository from before the engine started, as a reviewed one does
        repo = Files.createDirectories(root.resolve("repo"));
        SelfCheck.plantRepo(repo);
        // a Mac's top level, for the read scope (the real / here is Linux's)
        macRoot = root.resolve("macroot");
        for (String d : List.of("Applications", "Library", "System", "Users", "Volumes", "private", "usr", "bin",
                "sbin", "cores", "opt/homebrew", "opt/vendor", "dev")) {
            Files.createDirectories(macRoot.resolve(d));
        }
        Files.createSymbolicLink(macRoot.resolve("tmp"), Path.of("private/tmp"));
        granted = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"));
        ungranted = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"));
        token = "MAC-CANARY-" + System.nanoTime();
        ProcessRunner.pump("seatbelt-granted", () -> SelfCheck.serve(granted, token));
        ProcessRunner.pump("seatbelt-ungranted", () -> SelfCheck.serve(ungranted, "UNGRANTED-REACHED"));

        HostEnv base = TestEngine.env();
        // the fake `log` srt's macOS monitor spawns (found on the bridge's PATH: Linux has no `log` of its own)
        Path fakeBin = Files.createDirectories(root.resolve("fakebin"));
        streamFile = root.resolve("stream.txt");
        argsFile = root.resolve("log-args.txt");
        Path fakeLog = fakeBin.resolve("log");
        Files.writeString(fakeLog, "#!/bin/bash\n"
                + "# stands in for macOS `log stream`: records its argv, then emits the recorded stream block by block\n"
                + "printf '%s\\n' \"$@\" > " + CommandScript.quote(argsFile.toString()) + "\n"
                + "f=" + CommandScript.quote(streamFile.toString()) + "\n"
                + "while [ ! -e \"$f.ready\" ]; do sleep 0.05; done\n"
                + "block=\n"
                + "while IFS= read -r line || [ -n \"$line\" ]; do\n"
                + "  case \"$line\" in '#'*) continue;; esac\n"
                + "  if [ \"$line\" = ---- ]; then printf '%s' \"$block\"; block=; sleep 0.2; continue; fi\n"
                + "  block=\"$block$line\"$'\\n'\n"
                + "done < \"$f\"\n"
                + "printf '%s' \"$block\"\n"
                + "exec sleep 600\n");
        Files.setPosixFilePermissions(fakeLog, PosixFilePermissions.fromString("rwxr-xr-x"));
        env = base.withPath(fakeBin + ":" + base.path());
        tools = ((HostTools.Ok) HostTools.find(base)).tools();
        SrtRuntime.Resolution engine = new SrtRuntime(base).resolve();
        assertTrue(engine.usable(), engine.detail());

        policy = new Policy(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws, repo), List.of(ws, repo),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"),
                ws.resolve(".git/hooks"), ws.resolve(".git/commondir"), ws.resolve("IDENTITY.md"), base.cacheRoot()),
                List.of(base.home().resolve(".ssh"), base.home()),
                NetworkMode.LOCALHOST, List.of());
        WorkspaceFacts facts = WorkspaceFacts.scan(policy, tools.rg(), base.home());
        literals = PolicyCompiler.denyLiterals(policy, facts);
        Path tmpBase = Files.createDirectories(root.resolve("t/mono-agent-test"));
        sessionTmp = Files.createDirectories(tmpBase.resolve("s-seatbelt"));
        Files.createDirectories(SrtBridge.bridgeTmp(sessionTmp));
        PolicyCompiler.EngineFacts ef = new PolicyCompiler.EngineFacts(base.home(), sessionTmp, null, null,
                tools.rg(), null, List.of(Path.of("/usr/bin")), SeatbeltPolicy.readDenied(macRoot));
        SrtConfig config = SeatbeltPolicy.config(policy, literals, ef, List.of(granted.getLocalPort()), facts);

        bridge = SrtBridge.start(tools, engine, ws, sessionTmp, env, null, events::add);
        bridge.awaitReady(Duration.ofSeconds(20));
        rendered = bridge.renderMacos(config.toMap(), Duration.ofSeconds(30));
        argv = unquote(rendered.path("wrapped").asText());
        int p = argv.indexOf("-p");
        assertTrue(p > 0 && argv.get(p - 1).equals("/usr/bin/sandbox-exec"), "sandbox-exec -p in " + argv);
        profile = argv.get(p + 1);
    }

    @AfterAll
    void close() throws IOException {
        if (bridge != null) {
            bridge.close();
        }
        if (granted != null) {
            granted.close();
            ungranted.close();
        }
        SrtRuntime.deleteTree(root);
    }

    /**
     * The words of srt's wrapped command line as a shell splits them: run by the host bash with {@code env} (its first
     * word) defined as a function that prints its arguments, so nothing of the command is executed.
     */
    private static List<String> unquote(String wrapped) throws IOException, InterruptedException {
        Process pr = new ProcessBuilder("/bin/bash", "--noprofile", "--norc", "-c",
                "env() { printf '%s\\0' \"$@\"; }\n" + wrapped).start();
        pr.getOutputStream().close();
        byte[] out = pr.getInputStream().readAllBytes();
        assertTrue(pr.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, pr.exitValue(), new String(pr.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        List<String> words = new ArrayList<>(List.of(new String(out, StandardCharsets.UTF_8).split("\0")));
        return words;
    }

    /** The profile's rules: header ({@code (deny file-write*}) → filter lines, in order, one entry per rule. */
    private List<Map.Entry<String, List<String>>> rules() {
        List<Map.Entry<String, List<String>>> out = new ArrayList<>();
        List<String> cur = null;
        for (String line : profile.split("\n")) {
            if (line.startsWith("(") && !line.endsWith(")")) {
                cur = new ArrayList<>();
                out.add(Map.entry(line.strip(), cur));
            } else if (cur != null && line.startsWith("  (")) {
                cur.add(line.strip());
            } else {
                cur = null;
            }
        }
        return out;
    }

    private List<String> filters(String header) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<String>> r : rules()) {
            if (r.getKey().equals(header)) {
                out.addAll(r.getValue());
            }
        }
        return out;
    }

    /** Whether a {@code (subpath ..)}, {@code (literal ..)} or {@code (regex ..)} among {@code filters} matches {@code p}. */
    private static boolean covered(List<String> filters, Path p) throws IOException {
        for (String f : filters) {
            Matcher m = Pattern.compile("^\\((subpath|literal|regex) (\".*\")\\)$").matcher(f);
            if (!m.matches()) {
                continue;
            }
            String v = JSON.readValue(m.group(2), String.class);
            boolean hit = switch (m.group(1)) {
                case "subpath" -> p.startsWith(Path.of(v));
                case "literal" -> p.equals(Path.of(v));
                default -> Pattern.compile(v).matcher(p.toString()).matches();
            };
            if (hit) {
                return true;
            }
        }
        return false;
    }

    private static String subpath(Path p) {
        return "(subpath \"" + p + "\")";
    }

    /** The SBPL regex literals among {@code filters}, as Java patterns (srt's are plain ^...$ regexes). */
    private static List<Pattern> regexes(List<String> filters) throws IOException {
        List<Pattern> out = new ArrayList<>();
        Matcher m = Pattern.compile("^\\(regex (\".*\")\\)$").matcher("");
        for (String f : filters) {
            if (m.reset(f).matches()) {
                out.add(Pattern.compile(JSON.readValue(m.group(1), String.class)));
            }
        }
        return out;
    }

    @Test
    void writeDeniesCarryOurLiteralsAndTheGlobsAsRegexes() throws IOException {
        List<String> deny = filters("(deny file-write*");
        for (Path lit : literals) {
            assertTrue(deny.contains(subpath(lit)), "deny literal " + lit + " in " + deny);
        }
        for (Path must : List.of(ws.resolve(".env"), ws.resolve(".env.production"), ws.resolve(".mono-agent"),
                ws.resolve(".git/hooks"), ws.resolve(".git/config"))) {
            assertTrue(deny.contains(subpath(must)), must + " in " + deny);
        }
        // absent ones Linux must not mount over (bwrap would leave an empty file on the host) are denied here
        for (Path absent : List.of(ws.resolve("IDENTITY.md"), ws.resolve(".git/commondir"))) {
            assertFalse(literals.contains(absent), absent + " is not a Linux deny literal while absent");
            assertTrue(deny.contains(subpath(absent)), absent + " in " + deny);
        }
        // the glob .env.* is refused at any depth by name, also for files that do not exist yet
        List<Pattern> rx = regexes(deny);
        for (String p : List.of(".env.custom", "sub/dir/.env.new", ".env.x/inner")) {
            assertTrue(rx.stream().anyMatch(r -> r.matcher(ws + "/" + p).matches()), p + " matched by " + rx);
        }
        for (String p : List.of("env.txt", "src/main.java", ".environment")) {
            assertFalse(rx.stream().anyMatch(r -> r.matcher(ws + "/" + p).matches()), p + " must stay writable");
        }
        // what the rules say about single writes (Seatbelt: the deny block comes after the allow block, so it wins)
        List<String> allowRules = filters("(allow file-write*");
        for (Path p : List.of(ws.resolve(".env"), ws.resolve("sub/.env.new"), ws.resolve(".git/hooks/pre-commit"),
                ws.resolve(".mono-agent/violations/x.jsonl"), repo.resolve(".git/HEAD"), repo.resolve(".git/index"),
                repo.resolve(".git/config"), repo.resolve(".git/hooks/pre-commit"), repo.resolve(".git/objects/ab"))) {
            assertTrue(covered(deny, p), p + " must be write-denied by " + deny);
        }
        for (Path p : List.of(ws.resolve("allowed.txt"), ws.resolve("src/Main.java"), repo.resolve("README.md"),
                sessionTmp.resolve("scratch"))) {
            assertTrue(covered(allowRules, p) && !covered(deny, p), p + " must be writable");
        }
        for (Path p : List.of(outside.resolve("outside.txt"), root.resolve("other.txt"))) {
            assertFalse(covered(allowRules, p), p + " must not be writable");
        }
        // and writes are allowed in the roots and the session temp dir only (plus srt's own /dev files)
        List<String> allow = filters("(allow file-write*");
        assertTrue(allow.contains(subpath(ws)), "ws writable: " + allow);
        assertTrue(allow.contains(subpath(sessionTmp)), "session tmp writable: " + allow);
        assertFalse(allow.stream().anyMatch(a -> a.equals(subpath(outside)) || a.equals(subpath(root))), "" + allow);
        // renaming a protected file away is refused too
        List<String> move = filters("(deny file-write-unlink file-write-create");
        assertTrue(move.contains(subpath(ws.resolve(".env"))), "move-blocking .env: " + move);
    }

    @Test
    void readScopeDeniesHomeAndTheMacTopLevelAndReopensTheRoots() {
        List<String> deny = filters("(deny file-read*");
        HostEnv base = TestEngine.env();
        for (Path d : List.of(base.home(), base.home().resolve(".ssh"), Path.of("/Users"), Path.of("/Volumes"),
                Path.of("/cores"), Path.of("/opt/vendor"), Path.of("/private/var/folders"), Path.of("/private/tmp"),
                Path.of("/private/etc/ssh"))) {
            assertTrue(deny.contains(subpath(d)), "read deny " + d + " in " + deny);
        }
        for (Path d : List.of(Path.of("/System"), Path.of("/usr"), Path.of("/opt/homebrew"), Path.of("/private"),
                Path.of("/Applications"))) {
            assertFalse(deny.contains(subpath(d)), d + " must stay readable");
        }
        List<String> allow = filters("(allow file-read*");
        for (Path d : List.of(ws, sessionTmp, Path.of("/usr/bin"))) {
            assertTrue(allow.contains(subpath(d)), "read allow " + d + " in " + allow);
        }
    }

    @Test
    void networkIsTheProxyOnlyAndTheGrantsLiveInIt() throws Exception {
        int proxyPort = rendered.path("proxyPort").asInt();
        assertTrue(proxyPort > 0);
        assertTrue(profile.contains("(allow network-outbound (remote ip \"localhost:" + proxyPort + "\"))"), profile);
        for (String open : List.of("(allow network*)", "(local ip \"*:*\")", "(remote ip \"localhost:*\")",
                "(socket-domain AF_UNIX)", "(remote unix-socket")) {
            assertFalse(profile.contains(open), "profile must not contain " + open);
        }
        Map<String, String> assigned = new LinkedHashMap<>();
        for (String w : argv.subList(0, argv.indexOf("/usr/bin/sandbox-exec"))) {
            int eq = w.indexOf('=');
            if (eq > 0) {
                assigned.put(w.substring(0, eq), w.substring(eq + 1));
            }
        }
        String proxy = assigned.get("HTTP_PROXY");
        assertNotNull(proxy, "HTTP_PROXY in " + assigned.keySet());
        assertTrue(proxy.endsWith("@localhost:" + proxyPort), proxy);
        assertEquals(sessionTmp.toString(), assigned.get("TMPDIR"));
        // the probe script's proxy section, run on this host against srt's real proxy with the command's credentials:
        // an unlisted host is refused, the granted port answers through CONNECT, the ungranted one is refused
        String script = "p(){ echo \"P $*\"; }\n" + MacProbes.proxySection(granted.getLocalPort(),
                ungranted.getLocalPort());
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", "--noprofile", "--norc", "-c", script);
        pb.environment().put("HTTP_PROXY", proxy);
        Process pr = pb.start();
        pr.getOutputStream().close();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(pr.waitFor(20, TimeUnit.SECONDS));
        Map<String, String> p = SelfCheck.parse(out);
        assertTrue(p.getOrDefault("proxy", "").contains(" 403"), out);
        assertTrue(p.getOrDefault("granted-status", "").contains(" 200"), out);
        assertEquals(token, p.get("granted"), out);
        assertTrue(p.getOrDefault("ungranted-proxy", "").contains(" 403"), out);
        // the proxy's deny reached the feed, attributed to the rendered command
        String id = rendered.path("commandId").asText();
        assertTrue(waitFor(() -> events.stream().anyMatch(e -> id.equals(e.commandId())
                && e.line().startsWith("deny network-outbound example.com:80"))), "proxy deny in " + events);
    }

    @Test
    void logMonitorTurnsRecordedStreamLinesIntoViolations() throws Exception {
        String tag = profile.lines().filter(l -> l.startsWith("; LogTag: ")).findFirst().orElseThrow()
                .substring("; LogTag: ".length());
        String suffix = tag.substring(tag.indexOf("_END_") + "_END_".length());
        // srt asked `log` for exactly this session's events (the predicate is what keeps other sessions out)
        assertTrue(waitFor(() -> Files.exists(argsFile)), "srt did not spawn log");
        assertEquals(List.of("stream", "--predicate", "(eventMessage ENDSWITH \"" + suffix + "\")", "--style",
                "compact"), Files.readAllLines(argsFile));
        String recorded;
        try (InputStream in = getClass().getResourceAsStream("seatbelt-log-stream.txt")) {
            recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Files.writeString(streamFile, recorded.replace("{WS}", ws.toString()).replace("{OUTSIDE}", outside.toString())
                .replace("{TAG}", tag).replace("{SUFFIX}", suffix));
        Files.createFile(Path.of(streamFile + ".ready"));
        String id = rendered.path("commandId").asText();
        assertTrue(waitFor(() -> seatbelt().stream().anyMatch(e -> e.line().contains("network-bind"))),
                "last recorded event never arrived: " + events);
        List<SrtBridge.EngineEvent> got = seatbelt();
        // srt drops lines without "deny" and its known noise (mDNSResponder, diagnosticd, analyticsd) itself
        assertEquals(List.of("bash(48211) deny(1) file-write-data " + ws + "/.env",
                "bash(48211) deny(1) file-write-create " + outside + "/outside.txt",
                "2 duplicate reports for bash deny(1) file-write-data " + ws + "/.env",
                "bash(48211) deny(1) network-outbound 1.1.1.1:80",
                "node(48230) deny(1) network-bind 127.0.0.1:0"), got.stream().map(SrtBridge.EngineEvent::line).toList());
        assertTrue(got.stream().allMatch(e -> id.equals(e.commandId())), "attributed by the log tag: " + got);
        // and ours classifies what is left: the kernel's repeat summary is no violation of its own
        List<NativeEngine.Classified> c = got.stream().map(e -> NativeEngine.classify(e.line(), Platform.MACOS))
                .filter(java.util.Objects::nonNull).toList();
        assertEquals(List.of(Kind.WRITE, Kind.WRITE, Kind.NETWORK, Kind.NETWORK),
                c.stream().map(NativeEngine.Classified::kind).toList());
        assertEquals(ws + "/.env", c.get(0).target());
        assertEquals(outside + "/outside.txt", c.get(1).target());
        assertEquals("1.1.1.1:80", c.get(2).target());
        assertTrue(c.get(0).reason().startsWith("write refused by the sandbox (Seatbelt file-write-data, bash[48211]"),
                c.get(0).reason());
        // the self-check's feed verdict accepts exactly this: an observed canary write and the proxy's deny
        List<dev.monoagent.common.Violation> vs = new ArrayList<>();
        for (NativeEngine.Classified k : c) {
            vs.add(new dev.monoagent.common.Violation(java.time.Instant.now(),
                    dev.monoagent.common.Violation.Tier.OBSERVED, k.kind(), null, "selfcheck-1", "sandbox-check",
                    "self-check", k.target(), k.reason()));
        }
        assertEquals(new SelfCheck.Feed(true, false), SelfCheck.Feed.of(vs));
    }

    @Test
    void aBridgeThatRenderedForMacosNeverWrapsOrInitialisesAgain() {
        SrtBridge.InitResult init = bridge.init(Map.of("network", Map.of()), Duration.ofSeconds(10));
        assertFalse(init.ok());
        assertTrue(init.error().contains("cannot initialize for commands"), init.error());
        IOException e = assertThrows(IOException.class, () -> bridge.wrap(false, null, Duration.ofSeconds(10)));
        assertTrue(e.getMessage().contains("not initialized"), e.getMessage());
        IOException again = assertThrows(IOException.class,
                () -> bridge.renderMacos(Map.of("network", Map.of()), Duration.ofSeconds(10)));
        assertTrue(again.getMessage().contains("fresh bridge"), again.getMessage());
    }

    private List<SrtBridge.EngineEvent> seatbelt() {
        return events.stream().filter(e -> !e.line().startsWith("deny ") && !e.line().startsWith("allow ")).toList();
    }

    private static boolean waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (c.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20);
        }
        return c.getAsBoolean();
    }
}
