package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.MonoConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The functional proof that gates every command: a canary workspace, a canary policy (localhost network with one
 * granted host port), and sandboxed commands (one on Linux, two on macOS) that attempt what the sandbox must refuse
 * and do what it must allow; the host then checks the results on disk and in the violation feed. Any failed probe
 * makes the engine unavailable. Probes and their reasoning are described in {@code docs/sandbox-probes.md}.
 */
final class SelfCheck {
    /** Bumped whenever the probe set or its script changes, so cached passes of an older one are not trusted. */
    static final int VERSION = 4;
    static final String SECRET = "CANARY-SECRET\n";

    private SelfCheck() {}

    /** Runs all probes; the returned list always includes {@code engine} first. */
    static List<ProbeResult> run(HostEnv env, HostTools tools, SrtRuntime.Resolution engine, Path setsid) {
        long t0 = System.nanoTime();
        List<ProbeResult> out = new ArrayList<>();
        Path root = null;
        try (ServerSocket granted = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"));
             ServerSocket ungranted = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"))) {
            String token = "MONO-CANARY-" + UUID.randomUUID().toString().substring(0, 8);
            ProcessRunner.pump("selfcheck-granted", () -> serve(granted, token));
            ProcessRunner.pump("selfcheck-ungranted", () -> serve(ungranted, "UNGRANTED-REACHED"));
            root = Files.createTempDirectory(env.tmpRoot(), "mono-agent-selfcheck-");
            Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
            Path outside = Files.createDirectories(root.resolve("outside"));
            Files.writeString(ws.resolve(".env"), SECRET);
            // the repository probes use a second writable root whose repository exists before the engine starts, as
            // a reviewed repository's does (a repository that appears later is GitAppearsAfterStartTest's case)
            Path repo = Files.createDirectories(root.resolve("repo")).toRealPath();
            plantRepo(repo);
            Policy policy = new Policy(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws, repo),
                    List.of(ws, repo),
                    MonoConfig.Sandbox.DEFAULT_DENY_WRITE, List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"),
                    ws.resolve(".git/hooks"), env.cacheRoot()), List.of(env.home().resolve(".ssh"), env.home()),
                    NetworkMode.LOCALHOST, List.of());
            // only the canary port may be granted, whatever else listens on this host
            List<Integer> others = MacHost.listening(List.of(granted.getLocalPort()));
            List<Integer> exclude = new ArrayList<>(env.extraProtected());
            exclude.addAll(others);
            exclude.add(ungranted.getLocalPort());
            HostEnv canaryEnv = env.withProtectedPorts(exclude);
            ViolationLog log = new ViolationLog(ws.resolve(".mono-agent"), dev.monoagent.common.EventSink.NONE);
            try (NativeEngine ne = new NativeEngine(canaryEnv, tools, engine, policy, setsid, log)) {
                long ti = System.nanoTime();
                SrtBridge.InitResult init = ne.start();
                boolean engineOk = init.clean();
                out.add(probe("engine", engineOk, engineOk ? "SRT initialized."
                        : "SRT initialize reported: " + init.problem(), ti));
                if (!engineOk) {
                    return out;
                }
                // macOS has its own first batch (MacProbes): the Linux one proves namespaces through /proc, and runs
                // the repository probes in the same command (one command less: ≈ 60 ms of the check here)
                if (Platform.current() != Platform.MACOS) {
                    out.addAll(firstBatch(ne, ws, outside, token, granted.getLocalPort(), ungranted.getLocalPort(),
                            repo));
                } else {
                    out.addAll(MacProbes.firstBatch(ne, ws, outside, token, granted.getLocalPort(),
                            ungranted.getLocalPort(), tools.node()));
                    if (out.stream().allMatch(ProbeResult::passed)) {
                        out.addAll(repoBatch(ne, repo));
                    }
                }
                if (out.stream().noneMatch(pr -> pr.id().equals("git-dir-readonly"))) {
                    for (String id : List.of("git-hooks-denied-repo", "git-dir-readonly")) {
                        out.add(new ProbeResult(id, false, "FAILED: skipped, an earlier probe failed.", 0));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            out.add(new ProbeResult("engine", false, "self-check could not run: " + e.getMessage(), ms(t0)));
        } finally {
            SrtRuntime.deleteTree(root);
        }
        return out;
    }

    static void serve(ServerSocket ss, String token) {
        while (!ss.isClosed()) {
            try (Socket s = ss.accept(); OutputStream os = s.getOutputStream()) {
                os.write((token + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static List<ProbeResult> firstBatch(NativeEngine ne, Path ws, Path outside, String token, int grantedPort,
                                                int ungrantedPort, Path repo) throws IOException {
        long t0 = System.nanoTime();
        String hostNet = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        String hostPid = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        String script = String.join("\n",
                "p(){ echo \"P $*\"; }",
                // one readlink for both (each program started in here costs a few ms on a slow host); the probes
                // below use group commands, not subshells, for the same reason: a failed redirection fails the group
                "__r=$(readlink /proc/self/ns/net /proc/self/ns/pid); __n=${__r%%$'\\n'*}; __q=${__r#*$'\\n'}",
                "[ \"$__n\" != " + CommandScript.quote(hostNet) + " ] && p netns-differs 1 || p netns-differs 0",
                "__i=; { read; read; while IFS=: read -r __f _; do __i=\"$__i${__f// /} \"; done; } < /proc/net/dev; "
                        + "p ifaces $__i",
                "[ \"$__q\" != " + CommandScript.quote(hostPid) + " ] && p pidns 1 || p pidns 0",
                // not isolated (e.g. a no-op bwrap): stop before attempting anything on what may be the host
                "if [ \"$__n\" = " + CommandScript.quote(hostNet) + " ] || [ \"$__q\" = " + CommandScript.quote(hostPid)
                        + " ]; then exit 0; fi",
                // started early so its start-up overlaps the file probes
                "socat TCP-LISTEN:47011,bind=127.0.0.1,reuseaddr SYSTEM:'echo inside-ok' >/dev/null 2>&1 &",
                "if { echo pwned >> .env; } 2>/dev/null; then p denied-write 0; else p denied-write 1; fi",
                "if echo allowed > allowed.txt; then p allowed-write 1; else p allowed-write 0; fi",
                "if { echo x > " + CommandScript.quote(outside + "/outside.txt") + "; } 2>/dev/null; then p outside 0; "
                        + "else p outside 1; fi",
                "if { mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit; } 2>/dev/null; then p hooks 0; "
                        + "else p hooks 1; fi",
                "echo canary > .env.canary 2>/dev/null; true",
                // only lo exists here (checked above), so these connects fail at once instead of timing out
                "if { : 3<>/dev/tcp/1.1.1.1/80; } 2>/dev/null; then p direct-tcp 0; else p direct-tcp 1; fi",
                "__pa=${HTTP_PROXY#*://}; __c=${__pa%@*}; printf -v __c '%b' \"${__c//%/\\\\x}\"",
                "if exec 4<>/dev/tcp/127.0.0.1/3128; then printf 'GET http://example.com/ HTTP/1.1\\r\\nHost: "
                        + "example.com\\r\\nProxy-Authorization: Basic %s\\r\\nConnection: close\\r\\n\\r\\n' "
                        + "\"$(printf %s \"$__c\" | base64 -w0)\" >&4; read -t 3 __st <&4; exec 4<&-; "
                        + "p proxy $__st; else p proxy none; fi",
                "for ((__k = 0; __k < 400; __k++)); do __t=$(</proc/net/tcp); "
                        + "[[ $__t == *':B7A3 00000000:0000 0A'* ]] && break; sleep 0.005; done",
                "__l=; if exec 5<>/dev/tcp/127.0.0.1/47011; then read -t 2 __l <&5; exec 5<&-; fi; p loopback $__l",
                "__g=; if exec 6<>/dev/tcp/127.0.0.1/" + grantedPort + "; then read -t 3 __g <&6; exec 6<&-; fi; "
                        + "p granted $__g",
                "if { : 7<>/dev/tcp/127.0.0.1/" + ungrantedPort + "; } 2>/dev/null; then p ungranted 0; "
                        + "else p ungranted 1; fi",
                "__u=$(socat -u OPEN:/dev/null UNIX-CONNECT:\"$TMPDIR\"/none.sock 2>&1); "
                        + "case \"$__u\" in *'not permitted'*) p afunix 1;; *) p afunix 0 $__u;; esac",
                // the repository probes, in the second writable root (its repository existed before the engine)
                "cd " + CommandScript.quote(repo.toString()) + " && { " + repoScript(REPO_PREFIX) + "; }",
                "exit 0");
        NativeEngine.Attribution who = new NativeEngine.Attribution(null, "selfcheck-1", "sandbox-check", "self-check");
        ExecOutcome.Completed r = ne.run(List.of("/bin/bash", "--noprofile", "--norc", "-c", script), who, Map.of(),
                ws, null, Duration.ofSeconds(20), 1 << 20);
        Map<String, String> p = parse(r.stdout());
        List<ProbeResult> out = new ArrayList<>();
        String envNow = Files.exists(ws.resolve(".env")) ? Files.readString(ws.resolve(".env")) : "";
        out.add(probe("denied-write-blocked", "1".equals(p.get("denied-write")) && envNow.equals(SECRET),
                "Denied write refused; host file unchanged.", t0));
        Path allowed = ws.resolve("allowed.txt");
        out.add(probe("allowed-write", "1".equals(p.get("allowed-write")) && Files.exists(allowed)
                        && Files.readString(allowed).equals("allowed\n"), "Allowed write visible on host.", t0));
        out.add(probe("outside-write-denied", "1".equals(p.get("outside"))
                && !Files.exists(outside.resolve("outside.txt")), "Outside write denied.", t0));
        out.add(probe("git-hooks-denied-no-git", "1".equals(p.get("hooks"))
                        && !Files.exists(ws.resolve(".git/hooks/pre-commit")),
                "Planting .git/hooks without .git refused.", t0));
        boolean detected = r.violations().stream().anyMatch(v -> v.tier() == Violation.Tier.DETECTED
                && v.target() != null && v.target().endsWith(".env.canary"));
        out.add(probe("env-detected", detected && !Files.exists(ws.resolve(".env.canary")),
                "New .env.* detected and quarantined.", t0));
        String ifaces = p.getOrDefault("ifaces", "").trim();
        out.add(probe("netns-isolated", "1".equals(p.get("netns-differs")) && ifaces.equals("lo"),
                "Own network namespace with only lo" + (ifaces.equals("lo") ? "." : " (saw: " + ifaces + ")."), t0));
        out.add(probe("pidns-isolated", "1".equals(p.get("pidns")), "Own PID namespace.", t0));
        out.add(probe("direct-tcp-blocked", "1".equals(p.get("direct-tcp")), "Direct external TCP refused.", t0));
        String proxy = p.getOrDefault("proxy", "");
        out.add(probe("proxy-denies-unlisted", proxy.contains(" 403"),
                "Proxy denied unlisted host" + (proxy.contains(" 403") ? " (403)." : " (got: " + proxy + ")."), t0));
        out.add(probe("loopback-inside", "inside-ok".equals(p.get("loopback")), "Loopback inside works.", t0));
        out.add(probe("host-loopback-granted", token.equals(p.get("granted")),
                "Granted host loopback port reachable" + (token.equals(p.get("granted")) ? "."
                        : " (got: '" + p.getOrDefault("granted", "") + "'; " + tail(r.stderr()) + ")."), t0));
        out.add(probe("host-loopback-ungranted-blocked", "1".equals(p.get("ungranted")),
                "Ungranted host port unreachable.", t0));
        out.add(probe("af-unix-refused", p.getOrDefault("afunix", "").startsWith("1"), "AF_UNIX sockets refused.",
                t0));
        Feed feed = awaitFeed(ne, r, "selfcheck-1");
        out.add(probe("violation-feed", feed.write() && feed.network(),
                "Violation feed saw the canary write" + (feed.write() ? "" : " (missing)") + " and the network deny"
                        + (feed.network() ? "." : " (missing)."), t0));
        if (p.containsKey(REPO_PREFIX + "gitdir")) {
            out.addAll(repoProbes(repo, r, REPO_PREFIX, t0));
        }
        return out;
    }

    /** What the violation feed saw of a batch: an engine-observed canary write and the proxy's example.com deny. */
    record Feed(boolean write, boolean network) {
        static Feed of(List<Violation> vs) {
            return new Feed(vs.stream().anyMatch(v -> v.tier() == Violation.Tier.OBSERVED
                    && v.kind() == Violation.Kind.WRITE && v.target() != null
                    && (v.target().endsWith("/.env") || v.target().contains("outside.txt"))),
                    vs.stream().anyMatch(v -> v.tier() == Violation.Tier.OBSERVED
                    && v.kind() == Violation.Kind.NETWORK && v.target() != null
                    && v.target().startsWith("example.com")));
        }
    }

    /** The feed is asynchronous: late events for {@code callId} get a moment (bounded, 1 s) before judging. */
    static Feed awaitFeed(NativeEngine ne, ExecOutcome.Completed r, String callId) {
        Feed f;
        long deadline = System.nanoTime() + 1_000_000_000L;
        do {
            List<Violation> vs = new ArrayList<>(r.violations());
            vs.addAll(ne.lateViolations(callId));
            f = Feed.of(vs);
            if (f.write() && f.network()) {
                break;
            }
            sleep(10);
        } while (System.nanoTime() < deadline);
        return f;
    }

    /** The repository probes' names in the first batch's output (its own {@code hooks} probe is another). */
    private static final String REPO_PREFIX = "repo-";

    private static final String REPO_CONFIG = "[core]\n\trepositoryformatversion = 0\n";

    /** A minimal repository's control dir: hooks, objects, refs, HEAD, config and an empty index. */
    static void plantRepo(Path ws) throws IOException {
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.createDirectories(ws.resolve(".git/objects"));
        Files.createDirectories(ws.resolve(".git/refs"));
        Files.writeString(ws.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        Files.writeString(ws.resolve(".git/config"), REPO_CONFIG);
        Files.writeString(ws.resolve(".git/index"), "");
    }

    /** The shell probe of {@link #repoBatch}: P lines, and the mounts over the git dir when a write got through. */
    static final String REPO_SCRIPT = repoScript("");

    /** {@link #REPO_SCRIPT} with its probe names prefixed (run in the repository's directory). */
    static String repoScript(String prefix) {
        return "if { echo evil > .git/hooks/pre-commit; } 2>/dev/null; then echo 'P " + prefix + "hooks 0'; "
            + "else echo 'P " + prefix + "hooks 1'; fi; if { echo '[x]' >> .git/config; } 2>/dev/null; then echo 'P "
            + prefix + "config 0'; else echo 'P " + prefix + "config 1'; fi; "
            + "if { echo 'ref: refs/heads/evil' > .git/HEAD; } 2>/dev/null || { echo x > .git/index; } 2>/dev/null; "
            + "then echo 'P " + prefix + "gitdir 0'; else echo 'P " + prefix + "gitdir 1'; fi; "
            // only when a write got through: the mounts this command saw over the git dir, for the failure detail
            + "if [ -e .git/hooks/pre-commit ] || [[ $(<.git/HEAD) == *evil* ]] 2>/dev/null || [ -s .git/index ]; "
            + "then "
            + "awk -v w=\"$PWD\" '$5==w || index($5, w \"/.git\")==1 {printf \"M %s %s %s;\", $4, $5, $6}' "
            + "/proc/self/mountinfo; echo; fi";
    }

    /** The two repository probes' verdicts from a run of {@link #REPO_SCRIPT} in {@code ws}. */
    record RepoVerdict(boolean hooksAndConfig, boolean gitDir, String why) {}

    static RepoVerdict judgeRepo(Path ws, ExecOutcome.Completed r) throws IOException {
        return judgeRepo(ws, r, "");
    }

    /** As above for {@link #repoScript} run with {@code prefix}. */
    static RepoVerdict judgeRepo(Path ws, ExecOutcome.Completed r, String prefix) throws IOException {
        Map<String, String> p = parse(r.stdout());
        boolean ok = "1".equals(p.get(prefix + "hooks")) && "1".equals(p.get(prefix + "config"))
                && !Files.exists(ws.resolve(".git/hooks/pre-commit"))
                && Files.readString(ws.resolve(".git/config")).equals(REPO_CONFIG);
        boolean gitdir = "1".equals(p.get(prefix + "gitdir"))
                && Files.readString(ws.resolve(".git/HEAD")).equals("ref: refs/heads/main\n")
                && Files.size(ws.resolve(".git/index")) == 0;
        String mounts = r.stdout().lines().filter(l -> l.startsWith("M ")).findFirst().orElse("");
        String why = ok && gitdir ? "" : " (saw: " + tail(r.stdout().lines().filter(l -> l.startsWith("P " + prefix))
                .reduce("", (x, y) -> x + y + " ") + " | " + r.stderr()).replace('\n', ' ') + "; exit " + r.exitCode()
                + (mounts.isEmpty() ? "" : "; mounts: " + mounts.replace(ws.toString(), "<ws>")) + ")";
        return new RepoVerdict(ok, gitdir, why);
    }

    private static List<ProbeResult> repoBatch(NativeEngine ne, Path ws) throws IOException {
        long t0 = System.nanoTime();
        NativeEngine.Attribution who = new NativeEngine.Attribution(null, "selfcheck-2", "sandbox-check", "self-check");
        ExecOutcome.Completed r = ne.run(List.of("/bin/bash", "--noprofile", "--norc", "-c", REPO_SCRIPT), who,
                Map.of(), ws, null, Duration.ofSeconds(20), 1 << 20);
        return repoProbes(ws, r, "", t0);
    }

    /** The two repository probes, judged from a command that ran {@link #repoScript} with {@code prefix} in ws. */
    private static List<ProbeResult> repoProbes(Path ws, ExecOutcome.Completed r, String prefix, long t0)
            throws IOException {
        RepoVerdict v = judgeRepo(ws, r, prefix);
        return List.of(probe("git-hooks-denied-repo", v.hooksAndConfig(), "Planting .git/hooks and editing .git/config "
                + "in a repo refused." + (v.hooksAndConfig() ? "" : v.why()), t0), probe("git-dir-readonly", v.gitDir(),
                "Writing .git/HEAD and .git/index refused (the whole git control directory is read-only)."
                + (v.gitDir() ? "" : v.why()), t0));
    }

    static String tail(String s) {
        String t = s.strip();
        return t.length() > 300 ? t.substring(t.length() - 300) : t;
    }

    static Map<String, String> parse(String stdout) {
        Map<String, String> m = new HashMap<>();
        for (String line : stdout.split("\n")) {
            if (line.startsWith("P ")) {
                String rest = line.substring(2);
                int sp = rest.indexOf(' ');
                if (sp < 0) {
                    m.put(rest, "");
                } else {
                    m.put(rest.substring(0, sp), rest.substring(sp + 1).trim());
                }
            }
        }
        return m;
    }

    static ProbeResult probe(String id, boolean ok, String detail, long t0) {
        return new ProbeResult(id, ok, ok ? detail : "FAILED: " + detail, ms(t0));
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
