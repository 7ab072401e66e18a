package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What counts as weaker than the accepted policy (issue 9 item 1), judged on policies alone. */
class PolicyBaselineTest {
    @TempDir
    Path tmp;

    private Policy policy(Path ws, SandboxMode mode, NetworkMode net, List<String> allow, List<Path> writable,
                          List<String> deny) {
        return new Policy(ws, mode, Fallback.FAIL_CLOSED, false, List.of(ws), writable, deny,
                List.of(ws.resolve(".mono-agent"), ws.resolve("mono-agent.config.json")), List.of(), net, allow);
    }

    @Test
    void widerIsWeakerNarrowerIsNotAndEveryChangeIsAnEvent() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        List<String> deny = List.of(".env", ".env.*");
        Policy base = policy(ws, SandboxMode.NATIVE, NetworkMode.ALLOWLIST, List.of("example.com"), List.of(ws), deny);
        List<Event> events = new ArrayList<>();
        assertEquals(new PolicyBaseline.Decision.Same(true), PolicyBaseline.check(base));
        PolicyBaseline.accept(base, PolicyBaseline.check(base), "first use", events::add);
        assertEquals(new PolicyBaseline.Decision.Same(false), PolicyBaseline.check(base));

        // a sub-directory of an accepted root, a dropped allowlist host, an extra deny glob: not weaker
        Policy narrower = policy(ws, SandboxMode.NATIVE, NetworkMode.ALLOWLIST, List.of(), List.of(ws.resolve("src")),
                List.of(".env", ".env.*", "secrets/**"));
        assertInstanceOf(PolicyBaseline.Decision.Stronger.class, PolicyBaseline.check(narrower));

        Policy wider = policy(ws, SandboxMode.NATIVE, NetworkMode.ALLOWLIST, List.of("example.com", "evil.test"),
                List.of(ws, tmp.resolve("elsewhere")), List.of(".env"));
        PolicyBaseline.Decision.Weaker w = assertInstanceOf(PolicyBaseline.Decision.Weaker.class,
                PolicyBaseline.check(wider));
        assertEquals(List.of("sandbox.network.allowlist: adds evil.test",
                "sandbox.writableRoots: adds " + tmp.resolve("elsewhere"),
                "sandbox.denyWrite: no longer protects .env.*"), w.weaker());
        assertTrue(PolicyBaseline.refusal(w).contains(PolicyBaseline.ACCEPT_FLAG));

        Policy off = policy(ws, SandboxMode.OFF, NetworkMode.ALL, List.of(), List.of(ws), deny);
        PolicyBaseline.Decision.Weaker o = assertInstanceOf(PolicyBaseline.Decision.Weaker.class,
                PolicyBaseline.check(off));
        assertEquals(List.of("sandbox.mode: native -> off (commands would run on the host, unsandboxed)",
                "sandbox.network.mode: allowlist -> all"), o.weaker());
        PolicyBaseline.refused(off, o, "refused", events::add);
        assertInstanceOf(PolicyBaseline.Decision.Weaker.class, PolicyBaseline.check(off), "refusal changes nothing");

        assertEquals(2, events.size());
        Event.PolicyChanged refused = (Event.PolicyChanged) events.get(1);
        assertTrue(refused.weaker() && !refused.applied() && refused.by().equals("refused"), refused.toString());
        assertEquals(2, Files.readAllLines(ws.resolve(".mono-agent/policy-changes.jsonl")).size());
    }

    private static Policy full(Path ws, SandboxMode mode, Fallback fb, boolean unsafe, List<Path> readable,
                               List<Path> writable, List<String> deny, List<Path> prot, List<Path> denyRead,
                               NetworkMode net, List<String> allow, List<Integer> ports) {
        return new Policy(ws, mode, fb, unsafe, readable, writable, deny, prot, denyRead, net, allow, ports);
    }

    /**
     * One widening per dimension of the compiled policy, each alone against the same accepted base. The map must
     * name every {@link PolicyBaseline.Dimension}: a dimension added without a widening case fails here.
     */
    @Test
    void everyDimensionOfTheCompiledPolicyIsCompared() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path home = tmp.resolve("home");
        List<Path> prot = List.of(ws.resolve(".mono-agent"), ws.resolve(".git/config"));
        List<Path> denyRead = List.of(home.resolve(".ssh"), home);
        List<String> deny = List.of(".env", ".env.*");
        Policy base = full(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws), deny, prot,
                denyRead, NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080));
        PolicyBaseline.accept(base, PolicyBaseline.check(base), "first use", e -> { });
        java.util.Map<PolicyBaseline.Dimension, List<Object[]>> cases = new java.util.EnumMap<>(
                PolicyBaseline.Dimension.class);
        cases.put(PolicyBaseline.Dimension.MODE, List.<Object[]>of(new Object[] {full(ws, SandboxMode.OFF,
                Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws), deny, prot, denyRead, NetworkMode.LOCALHOST,
                List.of(), List.of(5432, 8080)), "sandbox.mode: native -> off (commands would run on the host, "
                + "unsandboxed)"}));
        cases.put(PolicyBaseline.Dimension.HOST_FALLBACK, List.<Object[]>of(new Object[] {full(ws, SandboxMode.NATIVE,
                Fallback.UNSAFE_HOST_PROCESS, true, List.of(ws), List.of(ws), deny, prot, denyRead,
                NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080)),
                "sandbox.fallback: fail-closed -> unsafe-host-process (commands may run on the host)"}));
        cases.put(PolicyBaseline.Dimension.NETWORK, List.of(
                new Object[] {full(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                        deny, prot, denyRead, NetworkMode.LOCALHOST, List.of(), List.of()),
                        "sandbox.network.localhostPorts: no longer narrowed (every host loopback listener is "
                        + "granted)"},
                new Object[] {full(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                        deny, prot, denyRead, NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080, 9229)),
                        "sandbox.network.localhostPorts: adds 9229"},
                new Object[] {full(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                        deny, prot, denyRead, NetworkMode.ALLOWLIST, List.of("example.com"), List.of(5432, 8080)),
                        "sandbox.network.mode: localhost -> allowlist"},
                new Object[] {full(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                        deny, prot, denyRead, NetworkMode.ALL, List.of(), List.of(5432, 8080)),
                        "sandbox.network.mode: localhost -> all"}));
        cases.put(PolicyBaseline.Dimension.READABLE_ROOTS, List.<Object[]>of(new Object[] {full(ws,
                SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws, home.resolve("other")), List.of(ws),
                deny, prot, denyRead, NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080)),
                "sandbox.readableRoots: adds " + home.resolve("other")}));
        cases.put(PolicyBaseline.Dimension.WRITABLE_ROOTS, List.<Object[]>of(new Object[] {full(ws,
                SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws, home), deny, prot, denyRead,
                NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080)), "sandbox.writableRoots: adds " + home}));
        cases.put(PolicyBaseline.Dimension.DENY_WRITE, List.<Object[]>of(new Object[] {full(ws, SandboxMode.NATIVE,
                Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws), List.of(".env"), prot, denyRead,
                NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080)), "sandbox.denyWrite: no longer protects .env.*"}));
        cases.put(PolicyBaseline.Dimension.PROTECTED, List.<Object[]>of(new Object[] {full(ws, SandboxMode.NATIVE,
                Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws), deny, List.of(ws.resolve(".mono-agent")),
                denyRead, NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080)),
                "protected path no longer protected: " + ws.resolve(".git/config")}));
        cases.put(PolicyBaseline.Dimension.DENY_READ, List.<Object[]>of(new Object[] {full(ws, SandboxMode.NATIVE,
                Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws), deny, prot, List.of(home),
                NetworkMode.LOCALHOST, List.of(), List.of(5432, 8080)),
                "read-denied path no longer denied: " + home.resolve(".ssh")}));
        assertEquals(java.util.EnumSet.allOf(PolicyBaseline.Dimension.class), cases.keySet(),
                "every dimension needs a widening case");
        for (var e : cases.entrySet()) {
            for (Object[] c : e.getValue()) {
                PolicyBaseline.Decision d = PolicyBaseline.check((Policy) c[0]);
                PolicyBaseline.Decision.Weaker w = assertInstanceOf(PolicyBaseline.Decision.Weaker.class, d,
                        e.getKey() + ": " + c[1]);
                assertEquals(List.of(c[1]), w.weaker(), e.getKey().toString());
                assertTrue(PolicyBaseline.refusal(w).contains((String) c[1]));
            }
        }
        // narrowing in each of those is not weaker
        Policy narrower = full(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws.resolve("src")),
                List.of(ws.resolve("src")), List.of(".env", ".env.*", "*.pem"), List.of(prot.get(0), prot.get(1),
                ws.resolve("IDENTITY.md")), List.of(home.resolve(".ssh"), home, tmp.resolve("srv")),
                NetworkMode.LOCALHOST, List.of(), List.of(5432));
        assertInstanceOf(PolicyBaseline.Decision.Stronger.class, PolicyBaseline.check(narrower));
        assertInstanceOf(PolicyBaseline.Decision.Stronger.class, PolicyBaseline.check(full(ws, SandboxMode.NATIVE,
                Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws), deny, prot, denyRead, NetworkMode.NONE,
                List.of(), List.of())));
    }

    @Test
    void fromAnAllowlistToLocalhostIsWeakerAndSubdomainsAreCovered() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2"));
        Policy allow = policy(ws, SandboxMode.NATIVE, NetworkMode.ALLOWLIST, List.of("example.com"), List.of(ws),
                List.of(".env"));
        PolicyBaseline.accept(allow, PolicyBaseline.check(allow), "first use", e -> { });
        // localhost grants host loopback listeners the allowlist never did: the old rank order called this narrower
        assertEquals(List.of("sandbox.network.mode: allowlist -> localhost"), assertInstanceOf(
                PolicyBaseline.Decision.Weaker.class, PolicyBaseline.check(policy(ws, SandboxMode.NATIVE,
                        NetworkMode.LOCALHOST, List.of(), List.of(ws), List.of(".env")))).weaker());
        assertInstanceOf(PolicyBaseline.Decision.Stronger.class, PolicyBaseline.check(policy(ws, SandboxMode.NATIVE,
                NetworkMode.ALLOWLIST, List.of("api.example.com", "*.cdn.example.com"), List.of(ws),
                List.of(".env"))));
        assertEquals(List.of("sandbox.network.allowlist: adds *.com"), assertInstanceOf(
                PolicyBaseline.Decision.Weaker.class, PolicyBaseline.check(policy(ws, SandboxMode.NATIVE,
                        NetworkMode.ALLOWLIST, List.of("*.com"), List.of(ws), List.of(".env")))).weaker());
    }

    @Test
    void aBaselineAcceptedBeforePortsWereComparedStillCatchesWidening() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws3"));
        Files.createDirectories(ws.resolve(".mono-agent"));
        // the shape the previous version wrote: no ports, no read denies
        Files.writeString(ws.resolve(".mono-agent/policy-accepted.json"), "{\"mode\":\"NATIVE\","
                + "\"unsafeHostFallback\":false,\"network\":\"NONE\",\"allowlist\":[],\"readableRoots\":[\"" + ws
                + "\"],\"writableRoots\":[\"" + ws + "\"],\"denyWrite\":[\".env\"],\"protected\":[]}");
        Policy same = new Policy(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                List.of(".env"), List.of(), List.of(tmp.resolve("home")), NetworkMode.NONE, List.of(), List.of());
        PolicyBaseline.Decision.Stronger st = assertInstanceOf(PolicyBaseline.Decision.Stronger.class,
                PolicyBaseline.check(same));
        assertEquals(List.of("now recorded: read-denied path"), st.changes());
        Policy local = new Policy(ws, SandboxMode.NATIVE, Fallback.FAIL_CLOSED, false, List.of(ws), List.of(ws),
                List.of(".env"), List.of(), List.of(), NetworkMode.LOCALHOST, List.of(), List.of());
        assertEquals(List.of("sandbox.network.mode: none -> localhost"), assertInstanceOf(
                PolicyBaseline.Decision.Weaker.class, PolicyBaseline.check(local)).weaker());
    }
}
