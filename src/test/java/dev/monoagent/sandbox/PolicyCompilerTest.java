package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.MonoConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PolicyCompilerTest {
    @TempDir
    Path tmp;
    Path ws;
    Path home;
    Path cache;

    @BeforeEach
    void dirs() throws Exception {
        home = Files.createDirectories(tmp.resolve("home"));
        ws = Files.createDirectories(home.resolve("project"));
        cache = home.resolve(".cache/mono-agent");
    }

    private Policy policy(NetworkMode net, List<String> allow) {
        return PolicyCompiler.compile(TestEngine.config(ws, net, allow), home, cache);
    }

    private PolicyCompiler.EngineFacts facts() {
        Path bin = Path.of("/usr/bin");
        return new PolicyCompiler.EngineFacts(home, tmp.resolve("session"), bin.resolve("bwrap"), bin.resolve("socat"),
                bin.resolve("rg"), cache.resolve("x/apply-seccomp"), List.of(cache.resolve("x"), Path.of("/usr/bin")));
    }

    @Test
    void protectsStateDirGitAndEngineCacheLiterally() {
        Policy p = policy(NetworkMode.NONE, List.of());
        assertTrue(p.protectedLiterals().containsAll(List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"),
                ws.resolve(".git/hooks"), cache)));
        assertEquals(List.of(home.resolve(".ssh"), home), p.denyRead());
        assertEquals(List.of(ws), p.writableRoots());
    }

    @Test
    void expandsWriteGlobsToLiteralsIncludingWellKnownAndExistingNested() throws Exception {
        Files.createDirectories(ws.resolve("app/config"));
        Files.writeString(ws.resolve("app/.env"), "A=1");
        Files.writeString(ws.resolve("app/config/.env.custom"), "B=2");
        Files.createDirectories(ws.resolve("node_modules/x"));
        Files.writeString(ws.resolve("node_modules/x/.env"), "no dir is skipped");
        Files.createDirectories(ws.resolve("a/b/c/d/e"));
        Files.writeString(ws.resolve("a/b/c/d/e/.env.deep"), "no depth limit");
        List<Path> lits = PolicyCompiler.denyLiterals(policy(NetworkMode.NONE, List.of()));
        for (String rel : List.of(".env", ".env.local", ".env.production", ".env.development", ".env.test",
                ".env.staging", ".git/config", ".git/hooks", ".mono-agent", "app/.env", "app/config/.env.custom")) {
            assertTrue(lits.contains(ws.resolve(rel)), rel + " in " + lits);
        }
        assertTrue(lits.contains(ws.resolve("node_modules/x/.env")), lits.toString());
        assertTrue(lits.contains(ws.resolve("a/b/c/d/e/.env.deep")), lits.toString());
        Path rg = Path.of("/usr/bin/rg");
        if (Files.isExecutable(rg)) {
            // the ripgrep walk finds the same set as the Java walk
            assertEquals(new java.util.HashSet<>(lits),
                    new java.util.HashSet<>(PolicyCompiler.denyLiterals(policy(NetworkMode.NONE, List.of()), rg)));
        }
        assertTrue(lits.stream().noneMatch(l -> PolicyCompiler.hasGlobChars(l.toString())));
    }

    @Test
    void honoursCoreHooksPath() throws Exception {
        Files.createDirectories(ws.resolve(".git"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n\thooksPath = tools/githooks\n");
        Policy p = policy(NetworkMode.NONE, List.of());
        assertTrue(p.protectedLiterals().contains(ws.resolve("tools/githooks")));
    }

    @Test
    void noneModeHasEmptyAllowlistAndFilesystemRules() {
        Policy p = policy(NetworkMode.NONE, List.of());
        Map<String, Object> cfg = PolicyCompiler.engineConfig(p, PolicyCompiler.denyLiterals(p), facts(), List.of(5432));
        @SuppressWarnings("unchecked") Map<String, Object> net = (Map<String, Object>) cfg.get("network");
        assertEquals(List.of(), net.get("allowedDomains"));
        assertEquals(true, net.get("strictAllowlist"));
        @SuppressWarnings("unchecked") Map<String, Object> fs = (Map<String, Object>) cfg.get("filesystem");
        @SuppressWarnings("unchecked") List<String> denyRead = (List<String>) fs.get("denyRead");
        assertEquals(List.of(home.toString(), home.resolve(".ssh").toString()), denyRead.subList(0, 2));
        // outside home: every non-system top-level dir, never a system dir
        for (Path top : ReadScope.deniedTopLevel(Path.of("/"))) {
            assertTrue(denyRead.contains(top.toString()), top + " in " + denyRead);
        }
        assertTrue(denyRead.stream().noneMatch(d -> ReadScope.SYSTEM.contains(d)), denyRead.toString());
        assertEquals(List.of(ws.toString(), tmp.resolve("session").toString()), fs.get("allowWrite"));
        @SuppressWarnings("unchecked") List<String> allowRead = (List<String>) fs.get("allowRead");
        assertTrue(allowRead.contains(ws.toString()));
        assertTrue(allowRead.contains(cache.resolve("x").toString()), "helper dir under home stays readable");
        assertEquals("/usr/bin/bwrap", cfg.get("bwrapPath"));
        assertEquals("/usr/bin/socat", cfg.get("socatPath"));
        // srt's nested-danger scan must not honour agent-written ignore files or an rg config
        assertEquals(Map.of("command", "/usr/bin/rg", "args", List.of("--no-ignore", "--no-config", "--hidden")),
                cfg.get("ripgrep"));
        assertEquals(1, cfg.get("mandatoryDenySearchDepth"));
        assertEquals(Map.of("applyPath", cache.resolve("x/apply-seccomp").toString()), cfg.get("seccomp"));
    }

    @Test
    void localhostGrantsIpLiteralPorts() {
        Policy p = policy(NetworkMode.LOCALHOST, List.of());
        assertEquals(List.of("127.0.0.1:5432", "[::1]:5432", "127.0.0.1:8080", "[::1]:8080"),
                PolicyCompiler.allowedDomains(p, List.of(5432, 8080)));
    }

    @Test
    void allowlistEntriesAreHostSuffixes() {
        Policy p = policy(NetworkMode.ALLOWLIST, List.of("github.com", "*.npmjs.org"));
        assertEquals(List.of("github.com", "*.github.com", "*.npmjs.org"), PolicyCompiler.allowedDomains(p, List.of()));
    }

    @Test
    void allModeOmitsTheAllowlistButKeepsFilesystemRules() {
        Policy p = policy(NetworkMode.ALL, List.of());
        Map<String, Object> cfg = PolicyCompiler.engineConfig(p, PolicyCompiler.denyLiterals(p), facts(), List.of());
        @SuppressWarnings("unchecked") Map<String, Object> net = (Map<String, Object>) cfg.get("network");
        assertFalse(net.containsKey("allowedDomains"));
        @SuppressWarnings("unchecked") Map<String, Object> fs = (Map<String, Object>) cfg.get("filesystem");
        assertFalse(((List<?>) fs.get("denyWrite")).isEmpty());
    }

    @Test
    void homeAsReadableRootStillHidesSsh() throws Exception {
        Files.createDirectories(home.resolve(".ssh"));
        Files.createDirectories(home.resolve("docs"));
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(SandboxMode.NATIVE, MonoConfig.Network.DEFAULTS,
                List.of(".", home.toString()), List.of("."), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false);
        Policy p = PolicyCompiler.compile(TestEngine.config(ws, s), home, cache);
        Map<String, Object> cfg = PolicyCompiler.engineConfig(p, List.of(), facts(), List.of());
        @SuppressWarnings("unchecked") List<String> allowRead =
                (List<String>) ((Map<String, Object>) cfg.get("filesystem")).get("allowRead");
        // home is bound whole and ~/.ssh, deeper, is denied on top of it (srt mounts read denies shallow-first);
        // ReadParityTest reads it every way through the real sandbox
        @SuppressWarnings("unchecked") List<String> denyRead =
                (List<String>) ((Map<String, Object>) cfg.get("filesystem")).get("denyRead");
        assertTrue(allowRead.contains(home.toString()));
        assertTrue(denyRead.contains(home.resolve(".ssh").toString()));
        assertTrue(denyRead.contains(home.resolve(".aws").toString()), "every home secret, not only ~/.ssh");
        assertTrue(allowRead.stream().noneMatch(r -> Path.of(r).startsWith(home.resolve(".ssh"))));
        assertTrue(p.readDenial(home.resolve(".ssh/id_rsa")) != null);
        assertNull(p.readDenial(home.resolve("docs/a.txt")));
    }

    @ParameterizedTest
    @EnumSource(NetworkMode.class)
    void everyModeKeepsTheProtectedLiterals(NetworkMode mode) {
        Policy p = policy(mode, List.of("example.org"));
        Map<String, Object> cfg = PolicyCompiler.engineConfig(p, PolicyCompiler.denyLiterals(p), facts(), List.of());
        @SuppressWarnings("unchecked") List<String> deny =
                (List<String>) ((Map<String, Object>) cfg.get("filesystem")).get("denyWrite");
        assertTrue(deny.contains(ws.resolve(".git/hooks").toString()));
        assertTrue(deny.contains(ws.resolve(".mono-agent").toString()));
        assertTrue(deny.contains(cache.toString()));
    }

    @Test
    void commandScriptQuotesArgvAndAddsForwardersOnlyForGrantedPorts() {
        String none = CommandScript.build(List.of("echo", "it's"), List.of(), "/usr/bin/socat");
        assertTrue(none.endsWith("\nexec 'echo' 'it'\\''s'"), none);
        assertTrue(none.contains("for __mh in 0C38;"), "waits for srt's proxy forwarder: " + none);
        assertFalse(none.contains("TCP-LISTEN"), "no forwarder without a granted port: " + none);
        String s = CommandScript.build(List.of("true"), List.of(8080), "/usr/bin/socat");
        assertTrue(s.contains("TCP-LISTEN:8080,bind=127.0.0.1"));
        assertTrue(s.contains("PROXY:localhost:127.0.0.1:8080,proxyport=3128"));
        assertTrue(s.endsWith("exec 'true'"));
        assertTrue(s.contains("for __mh in 0C38 1F90;"), "waits for the proxy and the forwarder: " + s);
        assertTrue(s.contains("TCP6-LISTEN:8080,bind=[::1],ipv6only=1,fork,reuseaddr PROXY:localhost:127.0.0.1:8080,"),
                "[::1] inside is served too, reaching the IPv4 listener when there is no IPv6 one: " + s);
        assertTrue(s.contains("for __mh in 1F90; do [[ $__mt == *\"" + HostPorts.V6_LOOPBACK + ":$__mh "), s);
    }

    @Test
    void eachLoopbackForwarderDialsTheHostListenerOfItsOwnFamilyWhenThereIsOne() throws Exception {
        // 8080: IPv4 only; 5432: ::1 only; 3000: both (two listeners, perhaps two processes); 9000: :: (dual stack)
        HostPorts.Families f = new HostPorts.Families(java.util.Set.of(8080, 3000, 9000),
                java.util.Set.of(5432, 3000, 9000));
        String s = CommandScript.build(List.of("true"), List.of(3000, 5432, 8080, 9000), f, "/usr/bin/socat", null);
        for (String want : List.of("TCP-LISTEN:8080,bind=127.0.0.1,fork,reuseaddr PROXY:localhost:127.0.0.1:8080,",
                "TCP6-LISTEN:8080,bind=[::1],ipv6only=1,fork,reuseaddr PROXY:localhost:127.0.0.1:8080,",
                "TCP-LISTEN:5432,bind=127.0.0.1,fork,reuseaddr PROXY:localhost:[::1]:5432,",
                "TCP6-LISTEN:5432,bind=[::1],ipv6only=1,fork,reuseaddr PROXY:localhost:[::1]:5432,",
                "TCP-LISTEN:3000,bind=127.0.0.1,fork,reuseaddr PROXY:localhost:127.0.0.1:3000,",
                "TCP6-LISTEN:3000,bind=[::1],ipv6only=1,fork,reuseaddr PROXY:localhost:[::1]:3000,",
                "TCP6-LISTEN:9000,bind=[::1],ipv6only=1,fork,reuseaddr PROXY:localhost:[::1]:9000,")) {
            assertTrue(s.contains(want), want + " in " + s);
        }
        Path script = tmp.resolve("script.sh");
        Files.writeString(script, s);
        Process p = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
        assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes()) + s);
        Path tcp = tmp.resolve("tcp");
        Files.writeString(tcp, String.join("\n", "  sl  local_address rem_address   st",
                "   0: 0100007F:1F90 00000000:0000 0A 0", "   1: 0100007F:0BB8 00000000:0000 0A 0", ""));
        Files.writeString(tmp.resolve("tcp6"), String.join("\n", "  sl  local_address rem_address   st",
                "   0: " + HostPorts.V6_LOOPBACK + ":1538 00000000000000000000000000000000:0000 0A 0",
                "   1: " + HostPorts.V6_LOOPBACK + ":0BB8 00000000000000000000000000000000:0000 0A 0",
                "   2: 00000000000000000000000000000000:2328 00000000000000000000000000000000:0000 0A 0", ""));
        assertEquals(f, HostPorts.families(tcp));
    }

    @Test
    void hostPortsReadsLoopbackAndAnyListenersOnly() throws Exception {
        Path tcp = tmp.resolve("tcp");
        Files.writeString(tcp, String.join("\n",
                "  sl  local_address rem_address   st tx_queue rx_queue",
                "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000",
                "   1: 00000000:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000",
                "   2: 0A00000A:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000",
                "   3: 0100007F:0016 0100007F:9C40 01 00000000:00000000 00:00000000 00000000", ""));
        assertEquals(List.of(8080), HostPorts.listening(tcp, List.of(5432)));
        assertEquals(List.of(5432, 8080), HostPorts.listening(tcp, List.of()));
    }

    /**
     * A husky dispatch dir ({@code core.hooksPath .config/husky/_}) protects the hook bodies above it, in the workspace
     * and in another writable root's repository; one whose parent is a root does not freeze that root.
     */
    @Test
    void huskyDispatchDirProtectsTheHookBodiesAboveIt() {
        Path other = tmp.resolve("other");
        WorkspaceFacts.GitLayout git = new WorkspaceFacts.GitLayout(ws.resolve(".config/husky/_"),
                WorkspaceFacts.DotGit.DIRECTORY, List.of(other.resolve("_")));
        Policy p = PolicyCompiler.compile(TestEngine.config(ws, NetworkMode.NONE, List.of()), home, cache, git);
        assertTrue(p.protectedLiterals().containsAll(List.of(ws.resolve(".config/husky/_"), ws.resolve(".config/husky"),
                other.resolve("_"))), p.protectedLiterals().toString());
        assertFalse(p.protectedLiterals().contains(ws), p.protectedLiterals().toString());
        WorkspaceFacts.GitLayout atRoot = new WorkspaceFacts.GitLayout(ws.resolve("_"), WorkspaceFacts.DotGit.DIRECTORY);
        Policy q = PolicyCompiler.compile(TestEngine.config(ws, NetworkMode.NONE, List.of()), home, cache, atRoot);
        assertTrue(q.protectedLiterals().contains(ws.resolve("_")));
        assertFalse(q.protectedLiterals().contains(ws), q.protectedLiterals().toString());
    }

    /** The host's own file names are protected at any depth and in every writable root, the file tools' rule too. */
    @Test
    void hostFileNamesAndGlobsApplyInEveryRoot() throws Exception {
        Path other = Files.createDirectories(tmp.resolve("other"));
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(SandboxMode.NATIVE, new MonoConfig.Network(NetworkMode.NONE,
                List.of()), List.of("."), List.of(".", "../../other"), MonoConfig.Sandbox.DEFAULT_DENY_WRITE,
                Fallback.FAIL_CLOSED, false);
        dev.monoagent.config.LoadedConfig base = TestEngine.config(ws, s);
        dev.monoagent.config.LoadedConfig cfg = new dev.monoagent.config.LoadedConfig(ws.resolve("review.json"), true,
                ws, base.config(), Map.of(), List.of(), Map.of(), other.resolve("conf/agent.env"));
        Policy p = PolicyCompiler.compile(cfg, home, cache);
        assertEquals(List.of(ws, other), p.guardedRoots());
        for (Path f : List.of(ws.resolve("pkg/app/mono-agent.config.json"), ws.resolve("pkg/IDENTITY.md"),
                ws.resolve("a/SOUL.md"), ws.resolve("a/.mono-agent/x"), ws.resolve("a/review.json"),
                ws.resolve("mono-agent.config.json"), other.resolve("x/agent.env"), other.resolve(".env"),
                other.resolve("a/.env.local"), other.resolve(".envrc"), other.resolve(".husky/pre-commit"),
                other.resolve("IDENTITY.md"), other.resolve("lib/mono-agent.config.json"), other.resolve(".bashrc"))) {
            assertTrue(p.isProtected(f), f.toString());
        }
        for (Path f : List.of(ws.resolve("pkg/app/config.json"), other.resolve("src/main.c"),
                other.resolve("IDENTITY.txt"))) {
            assertNull(p.writeDenial(f), f.toString());
        }
    }
}
