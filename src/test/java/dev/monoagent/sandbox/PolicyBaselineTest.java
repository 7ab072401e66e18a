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
}
