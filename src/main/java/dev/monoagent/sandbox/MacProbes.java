package dev.monoagent.sandbox;

import dev.monoagent.common.ProbeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The first self-check batch on macOS: the same guarantees as {@link SelfCheck}'s Linux batch, proven by behaviour
 * under Seatbelt. Nothing here reads Linux state ({@code /proc}, namespaces, {@code /dev/tcp} to an in-sandbox port
 * 3128): where the Linux probe checks a mechanism (a network or PID namespace), the macOS one attempts what that
 * mechanism exists to prevent. Ids are shared where the guarantee is the same; see {@code docs/sandbox-probes.md},
 * "macOS". The script stays within bash 3.2 (the {@code /bin/bash} macOS ships).
 *
 * <p>The script, its proxy section and {@link #judge} are separate so the verdict logic can be tested on Linux
 * against recorded outputs, and the proxy section against srt's real proxy, without pretending to be a Mac run.
 */
final class MacProbes {
    /** The ids this batch reports, in order. */
    static final List<String> IDS = List.of("outside-write-denied", "denied-write-blocked", "allowed-write",
            "git-hooks-denied-no-git", "env-glob-refused", "direct-tcp-blocked", "proxy-denies-unlisted",
            "host-loopback-granted", "host-loopback-ungranted-blocked", "loopback-bind-refused", "af-unix-refused",
            "host-signal-refused", "violation-feed");

    private MacProbes() {}

    /**
     * Everything that talks to srt's proxy, whose address and credentials the sandbox gets in {@code HTTP_PROXY}
     * ({@code http://<user>:<token>@localhost:<port>}; the user is the per-command attribution key, percent-encoded):
     * an unlisted host must get 403, a CONNECT to the granted host port must return its token, a CONNECT to the
     * ungranted one must be refused.
     */
    static String proxySection(int grantedPort, int ungrantedPort) {
        String auth = "Proxy-Authorization: Basic %s\\r\\n";
        return String.join("\n",
                "__pa=${HTTP_PROXY#*://}; __c=${__pa%@*}; __hp=${__pa##*@}; __hp=${__hp%%/*}; __ph=${__hp%:*}; "
                        + "__pp=${__hp##*:}",
                "__c=$(printf '%b' \"${__c//%/\\\\x}\"); __b=$(printf %s \"$__c\" | base64 | tr -d '\\n')",
                "__st=none; if exec 4<>/dev/tcp/$__ph/$__pp; then printf 'GET http://example.com/ HTTP/1.1\\r\\n"
                        + "Host: example.com\\r\\n" + auth + "Connection: close\\r\\n\\r\\n' \"$__b\" >&4; "
                        + "read -t 3 __st <&4; exec 4<&-; fi; p proxy ${__st%$'\\r'}",
                "__st=none; __g=; if exec 6<>/dev/tcp/$__ph/$__pp; then printf 'CONNECT 127.0.0.1:" + grantedPort
                        + " HTTP/1.1\\r\\nHost: 127.0.0.1:" + grantedPort + "\\r\\n" + auth + "\\r\\n' \"$__b\" >&6; "
                        + "read -t 3 __st <&6; while read -t 3 __h <&6 && [ -n \"${__h%$'\\r'}\" ]; do :; done; "
                        + "read -t 3 __g <&6; exec 6<&-; fi; p granted-status ${__st%$'\\r'}; p granted $__g",
                "__st=none; if exec 8<>/dev/tcp/$__ph/$__pp; then printf 'CONNECT 127.0.0.1:" + ungrantedPort
                        + " HTTP/1.1\\r\\nHost: 127.0.0.1:" + ungrantedPort + "\\r\\n" + auth + "\\r\\n' \"$__b\" >&8; "
                        + "read -t 3 __st <&8; exec 8<&-; fi; p ungranted-proxy ${__st%$'\\r'}");
    }

    /** The whole batch: {@code node} runs the socket probes (bash can neither listen nor open AF_UNIX). */
    static String script(Path outside, int grantedPort, int ungrantedPort, long hostPid, Path node) {
        String js = "const net=require(\"net\");const s=net.createServer();"
                + "s.on(\"error\",e=>{console.log(\"P bind \"+e.code);u();});"
                + "s.listen(0,\"127.0.0.1\",()=>{console.log(\"P bind bound\");s.close();u();});"
                + "function u(){const c=net.connect(process.env.TMPDIR+\"/none.sock\");"
                + "c.on(\"error\",e=>console.log(\"P afunix \"+e.code));"
                + "c.on(\"connect\",()=>{console.log(\"P afunix connected\");c.destroy();});}";
        return String.join("\n",
                "p(){ echo \"P $*\"; }",
                // first a write outside every root: if it lands, no profile is applied (no sandbox-exec, or a no-op
                // one), so stop before attempting anything else on what is then the host
                "if (echo x > " + CommandScript.quote(outside + "/outside.txt") + ") 2>/dev/null; then p outside 0; "
                        + "exit 0; else p outside 1; fi",
                "if (echo pwned >> .env) 2>/dev/null; then p denied-write 0; else p denied-write 1; fi",
                "if echo allowed > allowed.txt; then p allowed-write 1; else p allowed-write 0; fi",
                "if (mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit) 2>/dev/null; then p hooks 0; "
                        + "else p hooks 1; fi",
                "if (echo canary > .env.canary) 2>/dev/null; then p env-glob 0; else p env-glob 1; fi",
                // the refusal must be the sandbox's ("Operation not permitted"), not a host without a route
                "__d=$( (exec 3<>/dev/tcp/1.1.1.1/80) 2>&1 && echo CONNECTED); p direct-tcp ${__d//$'\\n'/ }",
                "__d=$( (exec 7<>/dev/tcp/127.0.0.1/" + ungrantedPort + ") 2>&1 && echo CONNECTED); "
                        + "p ungranted-direct ${__d//$'\\n'/ }",
                "__k=$(kill -0 " + hostPid + " 2>&1 && echo SIGNALLED); p signal ${__k//$'\\n'/ }",
                CommandScript.quote(node.toString()) + " -e " + CommandScript.quote(js) + " 2>/dev/null",
                proxySection(grantedPort, ungrantedPort),
                "exit 0");
    }

    /** Runs the batch in the canary workspace and judges it (the violation feed gets its bounded grace period). */
    static List<ProbeResult> firstBatch(NativeEngine ne, Path ws, Path outside, String token, int grantedPort,
                                        int ungrantedPort, Path node) throws IOException {
        long t0 = System.nanoTime();
        NativeEngine.Attribution who = new NativeEngine.Attribution(null, "selfcheck-1", "sandbox-check", "self-check");
        String script = script(outside, grantedPort, ungrantedPort, ProcessHandle.current().pid(), node);
        ExecOutcome.Completed r = ne.run(List.of("/bin/bash", "--noprofile", "--norc", "-c", script), who, Map.of(),
                ws, null, Duration.ofSeconds(20), 1 << 20);
        SelfCheck.Feed feed = SelfCheck.awaitFeed(ne, r, "selfcheck-1");
        return judge(ws, outside, token, r, feed, t0);
    }

    /**
     * The verdicts for one run of {@link #script}: its {@code P} lines, and the host's own view of the canary files
     * and of the violation feed. Every write probe checks the host file as well as the exit status.
     */
    static List<ProbeResult> judge(Path ws, Path outside, String token, ExecOutcome.Completed r, SelfCheck.Feed feed,
                                   long t0) throws IOException {
        Map<String, String> p = SelfCheck.parse(r.stdout());
        List<ProbeResult> out = new ArrayList<>();
        out.add(SelfCheck.probe("outside-write-denied", "1".equals(p.get("outside"))
                && !Files.exists(outside.resolve("outside.txt")), "Outside write denied.", t0));
        if (!"1".equals(p.get("outside"))) {
            // the script stopped: nothing below was attempted, and a sandbox that let this through proves nothing
            for (String id : IDS.subList(1, IDS.size())) {
                out.add(new ProbeResult(id, false, "FAILED: skipped, the outside write was not refused (is the "
                        + "Seatbelt profile applied?).", 0));
            }
            return out;
        }
        String envNow = Files.exists(ws.resolve(".env")) ? Files.readString(ws.resolve(".env")) : "";
        out.add(SelfCheck.probe("denied-write-blocked", "1".equals(p.get("denied-write"))
                && envNow.equals(SelfCheck.SECRET), "Denied write refused; host file unchanged.", t0));
        Path allowed = ws.resolve("allowed.txt");
        out.add(SelfCheck.probe("allowed-write", "1".equals(p.get("allowed-write")) && Files.exists(allowed)
                && Files.readString(allowed).equals("allowed\n"), "Allowed write visible on host.", t0));
        out.add(SelfCheck.probe("git-hooks-denied-no-git", "1".equals(p.get("hooks"))
                && !Files.exists(ws.resolve(".git/hooks/pre-commit")), "Planting .git/hooks without .git refused.", t0));
        out.add(SelfCheck.probe("env-glob-refused", "1".equals(p.get("env-glob"))
                && !Files.exists(ws.resolve(".env.canary")), "New .env.* refused by the Seatbelt glob deny.", t0));
        String direct = p.getOrDefault("direct-tcp", "");
        out.add(SelfCheck.probe("direct-tcp-blocked", refused(direct), "Direct external TCP refused by the sandbox"
                + (refused(direct) ? "." : " (got: " + direct + ")."), t0));
        String proxy = p.getOrDefault("proxy", "");
        out.add(SelfCheck.probe("proxy-denies-unlisted", proxy.contains(" 403"),
                "Proxy denied unlisted host" + (proxy.contains(" 403") ? " (403)." : " (got: " + proxy + ")."), t0));
        boolean granted = token.equals(p.get("granted"));
        out.add(SelfCheck.probe("host-loopback-granted", granted, "Granted host loopback port reachable through the "
                + "proxy" + (granted ? "." : " (status: '" + p.getOrDefault("granted-status", "") + "', got: '"
                + p.getOrDefault("granted", "") + "'; " + SelfCheck.tail(r.stderr()) + ")."), t0));
        String ungrantedDirect = p.getOrDefault("ungranted-direct", "");
        String ungrantedProxy = p.getOrDefault("ungranted-proxy", "");
        boolean ungranted = refused(ungrantedDirect) && ungrantedProxy.contains(" 403");
        out.add(SelfCheck.probe("host-loopback-ungranted-blocked", ungranted, "Ungranted host port unreachable "
                + "directly and through the proxy" + (ungranted ? "." : " (direct: " + ungrantedDirect + "; proxy: "
                + ungrantedProxy + ")."), t0));
        String bind = p.getOrDefault("bind", "");
        out.add(SelfCheck.probe("loopback-bind-refused", denied(bind), "Listening on loopback refused" + (denied(bind)
                ? "." : " (got: " + (bind.isEmpty() ? "no answer from node" : bind) + ")."), t0));
        String unix = p.getOrDefault("afunix", "");
        out.add(SelfCheck.probe("af-unix-refused", denied(unix), "AF_UNIX sockets refused" + (denied(unix) ? "."
                : " (got: " + (unix.isEmpty() ? "no answer from node" : unix) + ")."), t0));
        String signal = p.getOrDefault("signal", "");
        out.add(SelfCheck.probe("host-signal-refused", refused(signal), "Signalling a host process refused"
                + (refused(signal) ? "." : " (got: " + signal + ")."), t0));
        out.add(SelfCheck.probe("violation-feed", feed.write() && feed.network(),
                "Violation feed saw the canary write" + (feed.write() ? "" : " (missing)") + " and the network deny"
                        + (feed.network() ? "." : " (missing)."), t0));
        return out;
    }

    /** A bash error that is the sandbox's refusal, and no success marker. */
    private static boolean refused(String message) {
        return !message.contains("CONNECTED") && !message.contains("SIGNALLED") && message.contains("not permitted");
    }

    /** A Node error code that is a permission refusal. */
    private static boolean denied(String code) {
        return code.equals("EPERM") || code.equals("EACCES");
    }
}
