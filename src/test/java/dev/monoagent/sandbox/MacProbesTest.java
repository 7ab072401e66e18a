package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Effective;
import dev.monoagent.common.ProbeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The macOS probe set's verdicts against engine outputs. The outputs are not recorded on a Mac (none here): they are
 * what {@link MacProbes#script} prints, line for line, with the refusal texts of bash 3.2 ({@code connect: Operation
 * not permitted}, {@code kill: (pid) - Operation not permitted}), Node's error codes and srt's proxy status lines.
 * Each probe must fail when its own line or the host's state says the guarantee did not hold, while the others pass.
 */
class MacProbesTest {
    private static final String TOKEN = "MONO-CANARY-1a2b3c4d";
    private static final int GRANTED = 50111;
    private static final int UNGRANTED = 50112;

    /** A run under a working Seatbelt profile. */
    private static final Map<String, String> GOOD = Map.ofEntries(
            Map.entry("outside", "1"),
            Map.entry("denied-write", "1"),
            Map.entry("allowed-write", "1"),
            Map.entry("hooks", "1"),
            Map.entry("env-glob", "1"),
            Map.entry("direct-tcp", "/bin/bash: connect: Operation not permitted /bin/bash: /dev/tcp/1.1.1.1/80: "
                    + "Operation not permitted"),
            Map.entry("ungranted-direct", "/bin/bash: connect: Operation not permitted /bin/bash: /dev/tcp/127.0.0.1/"
                    + UNGRANTED + ": Operation not permitted"),
            Map.entry("signal", "/bin/bash: line 9: kill: (4242) - Operation not permitted"),
            Map.entry("bind", "EPERM"),
            Map.entry("afunix", "EPERM"),
            Map.entry("proxy", "HTTP/1.1 403 Forbidden"),
            Map.entry("granted-status", "HTTP/1.1 200 Connection Established"),
            Map.entry("granted", TOKEN),
            Map.entry("ungranted-proxy", "HTTP/1.1 403 Forbidden"));

    @TempDir
    Path root;
    private Path ws;
    private Path outside;

    @BeforeEach
    void canary() throws IOException {
        ws = Files.createDirectories(root.resolve("ws"));
        outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(ws.resolve(".env"), SelfCheck.SECRET);
        Files.writeString(ws.resolve("allowed.txt"), "allowed\n");
    }

    private static String stdout(Map<String, String> lines) {
        return GOOD.keySet().stream().filter(lines::containsKey).map(k -> "P " + k + " " + lines.get(k))
                .collect(Collectors.joining("\n")) + "\n";
    }

    private Map<String, Boolean> judge(Map<String, String> lines, SelfCheck.Feed feed) throws IOException {
        ExecOutcome.Completed r = new ExecOutcome.Completed(0, 0, stdout(lines), "", false, false, List.of(), 10,
                Effective.NATIVE);
        List<ProbeResult> out = MacProbes.judge(ws, outside, TOKEN, r, feed, System.nanoTime());
        assertEquals(MacProbes.IDS, out.stream().map(ProbeResult::id).toList());
        return out.stream().collect(Collectors.toMap(ProbeResult::id, ProbeResult::passed));
    }

    private static Map<String, String> with(String key, String value) {
        Map<String, String> m = new java.util.HashMap<>(GOOD);
        m.put(key, value);
        return m;
    }

    private void onlyFails(String id, Map<String, Boolean> verdicts) {
        assertFalse(verdicts.get(id), id + " must fail: " + verdicts);
        verdicts.forEach((k, v) -> assertTrue(k.equals(id) || v, k + " must still pass: " + verdicts));
    }

    @Test
    void aWorkingProfilePassesEveryProbe() throws IOException {
        Map<String, Boolean> v = judge(GOOD, new SelfCheck.Feed(true, true));
        assertTrue(v.values().stream().allMatch(b -> b), v.toString());
    }

    @Test
    void anUnappliedProfileFailsAtTheFirstProbeAndSkipsTheRest() throws IOException {
        // sandbox-exec missing or a no-op: the outside write lands and the script stops
        Files.writeString(outside.resolve("outside.txt"), "x\n");
        Map<String, Boolean> v = judge(Map.of("outside", "0"), new SelfCheck.Feed(false, false));
        assertTrue(v.values().stream().noneMatch(b -> b), v.toString());
    }

    @Test
    void eachNetworkAndProcessProbeFailsOnItsOwnLine() throws IOException {
        SelfCheck.Feed feed = new SelfCheck.Feed(true, true);
        // a host without a route is not a sandbox refusal
        onlyFails("direct-tcp-blocked", judge(with("direct-tcp", "/bin/bash: connect: Network is unreachable"), feed));
        onlyFails("direct-tcp-blocked", judge(with("direct-tcp", "CONNECTED"), feed));
        onlyFails("proxy-denies-unlisted", judge(with("proxy", "HTTP/1.1 200 OK"), feed));
        onlyFails("proxy-denies-unlisted", judge(with("proxy", "none"), feed));
        onlyFails("host-loopback-granted", judge(with("granted", ""), feed));
        onlyFails("host-loopback-granted", judge(with("granted", "UNGRANTED-REACHED"), feed));
        // the ungranted port must be closed both ways: by Seatbelt directly and by the proxy's allowlist
        onlyFails("host-loopback-ungranted-blocked", judge(with("ungranted-direct", "CONNECTED"), feed));
        onlyFails("host-loopback-ungranted-blocked", judge(with("ungranted-proxy", "HTTP/1.1 200 Connection "
                + "Established"), feed));
        onlyFails("loopback-bind-refused", judge(with("bind", "bound"), feed));
        Map<String, String> noNode = new java.util.HashMap<>(GOOD);
        noNode.remove("bind");
        noNode.remove("afunix");
        Map<String, Boolean> v = judge(noNode, feed);
        assertFalse(v.get("loopback-bind-refused"));
        assertFalse(v.get("af-unix-refused"));
        // ENOENT: the socket was created and only the path is missing, so AF_UNIX is open
        onlyFails("af-unix-refused", judge(with("afunix", "ENOENT"), feed));
        onlyFails("host-signal-refused", judge(with("signal", "SIGNALLED"), feed));
        // a pid that does not exist proves nothing about signalling host processes
        onlyFails("host-signal-refused", judge(with("signal", "/bin/bash: line 9: kill: (4242) - No such process"),
                feed));
    }

    @Test
    void writeProbesCheckTheHostNotOnlyTheExitStatus() throws IOException {
        SelfCheck.Feed feed = new SelfCheck.Feed(true, true);
        check("denied-write-blocked", feed, () -> Files.writeString(ws.resolve(".env"), "pwned\n"));
        check("allowed-write", feed, () -> Files.delete(ws.resolve("allowed.txt")));
        check("git-hooks-denied-no-git", feed, () -> {
            Files.createDirectories(ws.resolve(".git/hooks"));
            Files.writeString(ws.resolve(".git/hooks/pre-commit"), "evil\n");
        });
        check("env-glob-refused", feed, () -> Files.writeString(ws.resolve(".env.canary"), "canary\n"));
        onlyFails("denied-write-blocked", judge(with("denied-write", "0"), feed));
        onlyFails("env-glob-refused", judge(with("env-glob", "0"), feed));
        onlyFails("allowed-write", judge(with("allowed-write", "0"), feed));
    }

    private interface Io {
        void run() throws IOException;
    }

    /** {@code id} fails when the host shows the write that the script's line claims was refused (or made). */
    private void check(String id, SelfCheck.Feed feed, Io damage) throws IOException {
        damage.run();
        onlyFails(id, judge(GOOD, feed));
        SrtRuntime.deleteTree(ws);
        canary();
    }

    @Test
    void aBlindFeedFailsTheFeedProbe() throws IOException {
        onlyFails("violation-feed", judge(GOOD, new SelfCheck.Feed(true, false)));
        onlyFails("violation-feed", judge(GOOD, new SelfCheck.Feed(false, true)));
    }

    @Test
    void theScriptReadsNoLinuxStateAndSharesIdsWhereTheGuaranteeIsTheSame() {
        String script = MacProbes.script(outside, GRANTED, UNGRANTED, 4242, Path.of("/opt/homebrew/bin/node"));
        for (String linuxOnly : List.of("/proc", "/sys/", "ns/net", "ns/pid", "mountinfo", "socat", "3128",
                "base64 -w")) {
            assertFalse(script.contains(linuxOnly), "macOS script uses " + linuxOnly);
        }
        for (String shared : List.of("outside-write-denied", "denied-write-blocked", "allowed-write",
                "git-hooks-denied-no-git", "direct-tcp-blocked", "proxy-denies-unlisted", "host-loopback-granted",
                "host-loopback-ungranted-blocked", "af-unix-refused", "violation-feed")) {
            assertTrue(MacProbes.IDS.contains(shared), shared);
        }
        // the namespace probes have no macOS meaning; what they protect is attempted directly instead
        assertFalse(MacProbes.IDS.contains("netns-isolated"));
        assertFalse(MacProbes.IDS.contains("pidns-isolated"));
        assertFalse(MacProbes.IDS.contains("env-detected"));
    }

    @Test
    void runWithoutAnySandboxTheScriptStopsAfterTheOutsideWrite() throws Exception {
        // what a no-op sandbox-exec would let happen: run here, on the host, unconfined
        Files.delete(ws.resolve("allowed.txt"));
        String script = MacProbes.script(outside, GRANTED, UNGRANTED, 4242, Path.of("/nonexistent/node"));
        Process p = new ProcessBuilder("/bin/bash", "--noprofile", "--norc", "-c", script).directory(ws.toFile())
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor());
        assertEquals("P outside 0\n", out);
        assertEquals(SelfCheck.SECRET, Files.readString(ws.resolve(".env")), "nothing after the first probe ran");
        assertFalse(Files.exists(ws.resolve("allowed.txt")));
        ExecOutcome.Completed r = new ExecOutcome.Completed(0, 0, out, "", false, false, List.of(), 10,
                Effective.NATIVE);
        assertTrue(MacProbes.judge(ws, outside, TOKEN, r, new SelfCheck.Feed(false, false), 0).stream()
                .noneMatch(ProbeResult::passed));
    }

    @Test
    void theScriptIsValidBash() throws Exception {
        Consumer<String> parses = s -> {
            try {
                Process p = new ProcessBuilder("/bin/bash", "-n", "-c", s).redirectErrorStream(true).start();
                String err = new String(p.getInputStream().readAllBytes());
                assertEquals(0, p.waitFor(), err);
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        parses.accept(MacProbes.script(outside, GRANTED, UNGRANTED, 4242, Path.of("/opt/homebrew/bin/node")));
    }
}
