package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.common.Violation.Kind;
import dev.monoagent.common.Violation.Tier;
import dev.monoagent.config.Enums.NetworkMode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Adversarial attempts against the real engine (srt + bubblewrap), each followed by a check of the host's state and,
 * where the attempt is visible to us, of the violation it produced (tier and callId). Network attempts only target
 * 127.0.0.1 or outside addresses the sandbox must block.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EscapeSuiteTest {
    private static final String SECRET = "SECRET=1\n";
    private Path root;
    private Path ws;
    private Path repo;
    private HostEnv env;
    private Sandbox sb;
    private Sandbox repoSb;
    private ServerSocket granted;
    private ServerSocket product;
    private final TestEngine.Events events = new TestEngine.Events();
    private String hostOnlyVar;

    @BeforeAll
    void open() throws Exception {
        root = Files.createTempDirectory("mono-agent-escape-").toRealPath();
        ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve(".env"), SECRET);
        Files.createDirectories(ws.resolve("sub"));
        Files.writeString(ws.resolve("sub/.env"), SECRET);
        Files.writeString(ws.resolve(".env.production"), SECRET);
        repo = Files.createDirectories(root.resolve("repo"));
        Process git = new ProcessBuilder("git", "init", "-q", repo.toString()).inheritIO().start();
        assertEquals(0, git.waitFor());
        granted = server("GRANTED-OK");
        product = server("PRODUCT-PORT-REACHED");
        Map<String, String> hostEnv = new HashMap<>(System.getenv());
        hostEnv.put("OPENAI_API_KEY", "sk-canary-openai");
        hostEnv.put("ANTHROPIC_API_KEY", "sk-ant-canary");
        HostEnv base = TestEngine.env();
        env = new HostEnv(base.cacheRoot(), base.home(), base.path(), base.tmpRoot(), hostEnv,
                List.of(product.getLocalPort()));
        sb = Sandbox.open(TestEngine.config(ws, NetworkMode.LOCALHOST, List.of()), events, env);
        assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
        repoSb = Sandbox.open(TestEngine.config(repo, NetworkMode.NONE, List.of()), events, env);
        assertEquals("ready", repoSb.status().state(), String.valueOf(repoSb.status().reason()));
        hostOnlyVar = System.getenv().keySet().stream()
                .filter(k -> k.matches("[A-Z_]{4,}") && !List.of("PATH", "HOME", "LANG", "TERM", "USER", "LOGNAME",
                        "SHELL", "TMPDIR", "TZ", "LC_ALL", "LC_CTYPE", "COLORTERM", "PWD", "OLDPWD", "SHLVL")
                        .contains(k))
                .findFirst().orElse(null);
    }

    @AfterAll
    void close() throws Exception {
        sb.close();
        repoSb.close();
        granted.close();
        product.close();
        SrtRuntime.deleteTree(root);
    }

    private static ServerSocket server(String body) throws IOException {
        ServerSocket ss = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
        ProcessRunner.pump("test-server", () -> {
            while (!ss.isClosed()) {
                try (Socket s = ss.accept(); OutputStream os = s.getOutputStream()) {
                    s.setSoTimeout(2000);
                    byte[] buf = new byte[4096];
                    s.getInputStream().read(buf);
                    os.write(("HTTP/1.0 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                            .getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    if (ss.isClosed()) {
                        return;
                    }
                }
            }
        });
        return ss;
    }

    /** One attempt: a bash command, then host-side assertions on the completed outcome. */
    private record Attempt(String name, boolean inRepo, String command, Check check) {}

    @FunctionalInterface
    private interface Check {
        void verify(ExecOutcome.Completed c, String callId) throws Exception;
    }

    private void unchanged(Path p) throws IOException {
        assertTrue(Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS), p + " must still be a regular file");
        assertEquals(SECRET, Files.readString(p), p + " content");
    }

    /**
     * Nothing of a denied write reached the host: the path is absent, or — while a warm shell lives (ADR 0021) — it is
     * srt's empty mount point for the denied name, which stays in the workspace as long as that sandbox does.
     */
    private boolean noHostContent(Path p) throws java.io.IOException {
        if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        boolean empty = Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                ? Files.list(p).findAny().isEmpty() : Files.size(p) == 0;
        return empty && sb.engine() != null && sb.engine().warmShellsAlive() > 0;
    }

    private void violation(String callId, Tier tier, Kind kind) throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (Event e : events.all) {
                if (e instanceof Event.ViolationObserved vo && callId.equals(vo.violation().callId())
                        && vo.violation().tier() == tier && vo.violation().kind() == kind) {
                    assertEquals("run-escape", vo.violation().runId());
                    assertEquals("Bash", vo.violation().tool());
                    return;
                }
            }
            Thread.sleep(10);
        }
        List<Violation> seen = new ArrayList<>();
        events.all.stream().filter(e -> e instanceof Event.ViolationObserved)
                .forEach(e -> seen.add(((Event.ViolationObserved) e).violation()));
        throw new AssertionError("no " + tier + " " + kind + " violation for " + callId + "; saw " + seen);
    }

    private List<Attempt> attempts() {
        String rand = UUID.randomUUID().toString().substring(0, 8);
        int g = granted.getLocalPort();
        int p = product.getLocalPort();
        Path home = env.home();
        List<Attempt> a = new ArrayList<>();
        a.add(new Attempt("env-append", false, "echo X >> .env", (c, id) -> {
            unchanged(ws.resolve(".env"));
            violation(id, Tier.OBSERVED, Kind.WRITE);
        }));
        a.add(new Attempt("env-truncate", false, ": > .env", (c, id) -> {
            unchanged(ws.resolve(".env"));
            violation(id, Tier.OBSERVED, Kind.WRITE);
        }));
        a.add(new Attempt("env-rename-onto", false, "echo X > t1 && mv -f t1 .env", (c, id) -> {
            unchanged(ws.resolve(".env"));
            assertNotEquals(0, c.exitCode());
        }));
        a.add(new Attempt("env-symlink", false, "ln -sf /tmp/elsewhere .env", (c, id) -> unchanged(ws.resolve(".env"))));
        a.add(new Attempt("env-hardlink", false, "ln .env stolen && echo X >> stolen", (c, id) -> {
            unchanged(ws.resolve(".env"));
            assertFalse(Files.exists(ws.resolve("stolen")));
        }));
        a.add(new Attempt("env-rm", false, "rm -f .env", (c, id) -> unchanged(ws.resolve(".env"))));
        a.add(new Attempt("env-parent-mv", false, "mv sub sub2", (c, id) -> {
            unchanged(ws.resolve("sub/.env"));
            assertFalse(Files.exists(ws.resolve("sub2")));
        }));
        a.add(new Attempt("env-parent-rm", false, "rm -rf sub", (c, id) -> unchanged(ws.resolve("sub/.env"))));
        a.add(new Attempt("env-chmod", false, "chmod 666 .env; chmod 000 .env", (c, id) -> {
            unchanged(ws.resolve(".env"));
        }));
        a.add(new Attempt("env-via-proc-root", false, "echo X >> /proc/self/root$PWD/.env",
                (c, id) -> unchanged(ws.resolve(".env"))));
        a.add(new Attempt("env-production-existing", false, "echo X >> .env.production",
                (c, id) -> unchanged(ws.resolve(".env.production"))));
        a.add(new Attempt("env-local-new", false, "echo X > .env.local", (c, id) -> {
            assertTrue(noHostContent(ws.resolve(".env.local")), "well-known name is denied before it exists");
            violation(id, Tier.OBSERVED, Kind.WRITE);
        }));
        a.add(new Attempt("env-custom-new", false, "echo X > .env.custom", (c, id) -> {
            assertFalse(Files.exists(ws.resolve(".env.custom")), "moved to quarantine");
            try (Stream<Path> q = Files.walk(ws.resolve(".mono-agent/quarantine"))) {
                assertTrue(q.anyMatch(f -> f.getFileName().toString().equals(".env.custom")));
            }
            assertTrue(c.violations().stream().anyMatch(v -> v.tier() == Tier.DETECTED && id.equals(v.callId())));
            violation(id, Tier.DETECTED, Kind.WRITE);
        }));
        a.add(new Attempt("env-nested-new", false, "mkdir -p deep && echo X > deep/.env.secret", (c, id) -> {
            assertFalse(Files.exists(ws.resolve("deep/.env.secret")));
            violation(id, Tier.DETECTED, Kind.WRITE);
        }));
        a.add(new Attempt("git-hooks-without-git", false,
                "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
                (c, id) -> {
                    assertFalse(Files.exists(ws.resolve(".git/hooks/pre-commit")));
                    assertNotEquals(0, c.exitCode());
                }));
        a.add(new Attempt("git-init-without-git", false, "git init -q . && echo '[core]' >> .git/config",
                (c, id) -> assertTrue(noHostContent(ws.resolve(".git/config")))));
        a.add(new Attempt("git-hooks-in-repo", true, "echo evil > .git/hooks/pre-commit", (c, id) -> {
            assertFalse(Files.exists(repo.resolve(".git/hooks/pre-commit")));
            violation(id, Tier.OBSERVED, Kind.WRITE);
        }));
        a.add(new Attempt("git-config-in-repo", true, "git config core.hooksPath /tmp/evil-hooks", (c, id) -> {
            assertFalse(Files.readString(repo.resolve(".git/config")).contains("evil-hooks"));
        }));
        // the whole git control dir is read-only to the agent: reads work, commits are refused
        a.add(new Attempt("git-commit-refused-git-reads-work", true,
                "git -c user.email=a@b.c -c user.name=a commit -q --allow-empty -m test; echo rc=$?; git status "
                        + "--short >/dev/null && git diff >/dev/null && echo reads-ok",
                (c, id) -> {
                    assertTrue(c.stdout().contains("rc=128") && c.stdout().contains("reads-ok"), c.stdout());
                    assertTrue(c.violations().stream().anyMatch(v -> v.reason().contains(
                            "git control directory is read-only")), c.violations().toString());
                }));
        a.add(new Attempt("git-dir-head-index-refs", true, "echo 'ref: refs/heads/evil' > .git/HEAD; touch .git/index"
                + " .git/refs/heads/x .git/newfile; true", (c, id) -> {
                    assertFalse(Files.readString(repo.resolve(".git/HEAD")).contains("evil"));
                    assertFalse(Files.exists(repo.resolve(".git/refs/heads/x")));
                    assertFalse(Files.exists(repo.resolve(".git/newfile")));
                    violation(id, Tier.OBSERVED, Kind.WRITE);
                }));
        a.add(new Attempt("write-home", false, "echo X > ~/pwned-" + rand,
                (c, id) -> assertFalse(Files.exists(home.resolve("pwned-" + rand)))));
        a.add(new Attempt("write-etc", false, "echo X > /etc/mono-agent-pwned-" + rand, (c, id) -> {
            assertFalse(Files.exists(Path.of("/etc/mono-agent-pwned-" + rand)));
            violation(id, Tier.OBSERVED, Kind.WRITE);
        }));
        a.add(new Attempt("write-tmp", false, "echo X > /tmp/mono-agent-pwned-" + rand,
                (c, id) -> assertFalse(Files.exists(Path.of("/tmp/mono-agent-pwned-" + rand)))));
        a.add(new Attempt("write-state-dir", false, "mkdir -p .mono-agent/runs; echo X > .mono-agent/pwned",
                (c, id) -> assertFalse(Files.exists(ws.resolve(".mono-agent/pwned")))));
        a.add(new Attempt("write-engine-cache", false, "echo X > " + env.cacheRoot() + "/pwned",
                (c, id) -> assertFalse(Files.exists(env.cacheRoot().resolve("pwned")))));
        a.add(new Attempt("curl-external-via-proxy", false, "curl -sS -m 5 http://example.com/", (c, id) -> {
            assertFalse(c.stdout().contains("Example Domain"));
            violation(id, Tier.OBSERVED, Kind.NETWORK);
        }));
        a.add(new Attempt("curl-external-direct", false, "curl -sS -m 5 --noproxy '*' http://1.1.1.1/",
                (c, id) -> assertNotEquals(0, c.exitCode())));
        a.add(new Attempt("node-http-external", false, "node -e \"require('http').get('http://example.com/', "
                + "r => console.log('REACHED')).on('error', e => { console.error(e.message); process.exit(3); })\"",
                (c, id) -> {
                    assertFalse(c.stdout().contains("REACHED"));
                    violation(id, Tier.INFERRED, Kind.NETWORK);
                }));
        a.add(new Attempt("node-fetch-external", false, "node -e \"fetch('http://example.com/').then(() => "
                + "console.log('REACHED'), e => { console.error(String(e.cause)); process.exit(3); })\"",
                (c, id) -> assertFalse(c.stdout().contains("REACHED"))));
        a.add(new Attempt("python-socket-external", false, "python3 -c \"import socket; "
                + "socket.create_connection(('1.1.1.1', 80), timeout=3); print('REACHED')\"", (c, id) -> {
                    assertFalse(c.stdout().contains("REACHED"));
                    violation(id, Tier.INFERRED, Kind.NETWORK);
                }));
        a.add(new Attempt("dns-lookup", false, "getent hosts example.com", (c, id) -> {
            assertNotEquals(0, c.exitCode());
            assertEquals("", c.stdout());
        }));
        a.add(new Attempt("raw-ip-tcp", false, "exec 3<>/dev/tcp/1.1.1.1/443 && echo REACHED",
                (c, id) -> assertFalse(c.stdout().contains("REACHED"))));
        a.add(new Attempt("ungranted-host-port-direct", false, "exec 3<>/dev/tcp/127.0.0.1/" + p + " && echo REACHED",
                (c, id) -> assertFalse(c.stdout().contains("REACHED"))));
        a.add(new Attempt("ungranted-host-port-via-proxy", false,
                "curl -sS -m 5 -x \"$HTTP_PROXY\" --noproxy '' http://127.0.0.1:" + p + "/", (c, id) -> {
                    assertFalse(c.stdout().contains("PRODUCT-PORT-REACHED"));
                    violation(id, Tier.OBSERVED, Kind.NETWORK);
                }));
        a.add(new Attempt("granted-host-port-curl", false, "curl -sS -m 5 http://127.0.0.1:" + g + "/",
                (c, id) -> assertEquals("GRANTED-OK", c.stdout(), c.stderr())));
        a.add(new Attempt("granted-host-port-node-fetch", false, "node -e \"fetch('http://127.0.0.1:" + g
                + "/').then(r => r.text()).then(t => console.log(t))\"",
                (c, id) -> assertEquals("GRANTED-OK\n", c.stdout(), c.stderr())));
        a.add(new Attempt("granted-host-port-node-http", false, "node -e \"require('http').get('http://127.0.0.1:" + g
                + "/', r => r.on('data', d => process.stdout.write(d)))\"",
                (c, id) -> assertEquals("GRANTED-OK", c.stdout(), c.stderr())));
        a.add(new Attempt("granted-host-port-python", false, "python3 -c \"import urllib.request; "
                + "print(urllib.request.urlopen('http://127.0.0.1:" + g + "/', timeout=5).read().decode())\"",
                (c, id) -> assertEquals("GRANTED-OK\n", c.stdout(), c.stderr())));
        a.add(new Attempt("session-tmpdir-is-writable", false, "f=$(mktemp) && echo ok > \"$f\" && cat \"$f\"",
                (c, id) -> assertEquals("ok\n", c.stdout(), c.stderr())));
        a.add(new Attempt("read-ssh-key", false, "cat ~/.ssh/id_test", (c, id) -> {
            assertFalse(c.stdout().contains("PRIVATE-KEY-CANARY"));
            violation(id, Tier.INFERRED, Kind.READ);
        }));
        a.add(new Attempt("host-api-keys-invisible", false, "env", (c, id) -> {
            assertFalse(c.stdout().contains("sk-canary-openai"));
            assertFalse(c.stdout().contains("sk-ant-canary"));
            assertFalse(c.stdout().contains("OPENAI_API_KEY"));
            if (hostOnlyVar != null) {
                assertFalse(c.stdout().contains(hostOnlyVar + "="), hostOnlyVar + " leaked");
            }
        }));
        a.add(new Attempt("af-unix-socket", false, "python3 -c \"import socket; socket.socket(socket.AF_UNIX); "
                + "print('REACHED')\"", (c, id) -> {
                    assertFalse(c.stdout().contains("REACHED"));
                    assertNotEquals(0, c.exitCode());
                }));
        a.add(new Attempt("symlink-out-of-workspace", false, "ln -s /etc/hostname hn && echo X >> hn", (c, id) -> {
            assertNotEquals(0, c.exitCode());
            assertFalse(Files.readString(Path.of("/etc/hostname")).contains("X\n"));
        }));
        return a;
    }

    @TestFactory
    Stream<DynamicTest> adversarialAttemptsLeaveTheHostUnchanged() {
        return attempts().stream().map(at -> DynamicTest.dynamicTest(at.name(), () -> {
            String callId = "call-" + at.name();
            Path dir = at.inRepo() ? repo : ws;
            CommandSpec spec = CommandSpec.bash(at.command(), dir).withAttribution("run-escape", callId, "Bash")
                    .withTimeout(Duration.ofSeconds(20));
            ExecOutcome o = (at.inRepo() ? repoSb : sb).exec(spec);
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
            assertEquals("native", c.mode().wire());
            at.check().verify(c, callId);
        }));
    }

    /**
     * A command that fails looking exactly like a bwrap setup error must not be run a second time by the
     * prepared-wrap retry (it would repeat side effects, e.g. a deploy or a payment).
     */
    @Test
    void fakeBwrapErrorDoesNotRunTheCommandTwice() throws Exception {
        Path counter = ws.resolve("counter-" + UUID.randomUUID().toString().substring(0, 8));
        String cmd = "echo ran >> " + counter.getFileName() + "; echo 'bwrap: fake' >&2; exit 1";
        for (int i = 0; i < 3; i++) {
            // the first run leaves a prepared wrap for an unchanged layout; the next ones reuse it
            Files.deleteIfExists(counter);
            ExecOutcome.Completed c = (ExecOutcome.Completed) sb.exec(CommandSpec.bash(cmd, ws));
            assertEquals(1, c.exitCode());
            assertEquals("bwrap: fake\n", c.stderr(), "the start marker is stripped");
            assertEquals("ran\n", Files.readString(counter), "run " + i + " executed the command more than once");
        }
        Files.deleteIfExists(counter);
    }

    @TestFactory
    Stream<DynamicTest> processRunnerKeepsRealExitCodesSignalsAndStdin() {
        return Stream.of(
                DynamicTest.dynamicTest("timeout-kills-the-group", () -> {
                    ExecOutcome.Completed c = (ExecOutcome.Completed) sb.exec(CommandSpec.bash("sleep 30 & sleep 30", ws)
                            .withTimeout(Duration.ofSeconds(1)));
                    assertTrue(c.timedOut());
                    assertTrue(c.signal() == 15 || c.signal() == 9, "signal " + c.signal());
                    assertTrue(c.elapsedMillis() < 5000, "elapsed " + c.elapsedMillis());
                }),
                DynamicTest.dynamicTest("signal-exit-is-not-zero", () -> {
                    ExecOutcome.Completed c = (ExecOutcome.Completed) sb.exec(CommandSpec.bash("kill -TERM $$", ws));
                    assertEquals(143, c.exitCode());
                    assertEquals(15, c.signal());
                }),
                DynamicTest.dynamicTest("stdin-is-fed", () -> {
                    CommandSpec s = new CommandSpec(List.of("/bin/cat"), ws, Duration.ofSeconds(10), "hello stdin",
                            Map.of(), null, null, "Exec", CommandSpec.DEFAULT_MAX_OUTPUT);
                    ExecOutcome.Completed c = (ExecOutcome.Completed) sb.exec(s);
                    assertEquals("hello stdin", c.stdout());
                }),
                DynamicTest.dynamicTest("output-is-bounded", () -> {
                    CommandSpec s = new CommandSpec(List.of("/bin/bash", "-c", "head -c 3000000 /dev/zero"), ws,
                            Duration.ofSeconds(10), null, Map.of(), null, null, "Exec", 1000);
                    ExecOutcome.Completed c = (ExecOutcome.Completed) sb.exec(s);
                    assertEquals(1000, c.stdout().length());
                    assertTrue(c.truncated());
                    assertEquals(0, c.exitCode());
                }),
                DynamicTest.dynamicTest("long-lived-process", () -> {
                    StartOutcome so = sb.start(new CommandSpec(List.of("/bin/cat"), ws, Duration.ofSeconds(10), null,
                            Map.of(), null, "call-repl", "NodeRepl", CommandSpec.DEFAULT_MAX_OUTPUT));
                    SandboxProcess proc = assertInstanceOf(StartOutcome.Started.class, so).process();
                    proc.stdin().write("ping\n".getBytes(StandardCharsets.UTF_8));
                    proc.stdin().flush();
                    byte[] buf = new byte[5];
                    assertEquals(5, proc.stdout().readNBytes(buf, 0, 5));
                    assertEquals("ping\n", new String(buf, StandardCharsets.UTF_8));
                    proc.destroy();
                    assertNotEquals(0, proc.waitFor());
                    assertTrue(noHostContent(ws.resolve(".env.local")), "mount points cleaned after exit");
                }));
    }
}
