package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import dev.monoagent.common.Violation.Kind;
import dev.monoagent.common.Violation.Tier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ViolationsModelTest {
    private final Instant t = Instant.parse("2026-11-29T10:00:00Z");
    private final Violation env = new Violation(t, Tier.OBSERVED, Kind.WRITE, "r", "c1", "Bash", "echo x >> .env",
            ".env", "denied");
    private final Violation net = new Violation(t, Tier.OBSERVED, Kind.NETWORK, "r", "c2", "Bash",
            "curl https://example.com", "example.com:443", "blocked by proxy");
    private final Violation scan = new Violation(t, Tier.DETECTED, Kind.WRITE, "r", "c3", "Bash", "touch a,b",
            ".env.local", "new protected file, quarantined");

    private ViolationsModel model() {
        ViolationsModel m = new ViolationsModel();
        m.add(env);
        m.add(net);
        m.add(scan);
        return m;
    }

    @Test
    void duplicatesFromEngineFeedAndOutcomeAreRecordedOnce() {
        ViolationsModel m = model();
        m.add(env);
        assertEquals(3, m.countProperty().get());
    }

    @Test
    void filtersCombineTextTierAndKind() {
        ViolationsModel m = model();
        m.kindFilterProperty().set(Kind.WRITE);
        assertEquals(List.of(env, scan), m.rows());
        m.tierFilterProperty().set(Tier.DETECTED);
        assertEquals(List.of(scan), m.rows());
        m.tierFilterProperty().set(null);
        m.kindFilterProperty().set(null);
        m.filterTextProperty().set("EXAMPLE");
        assertEquals(List.of(net), m.rows());
    }

    @Test
    void detailAndJumpFollowSelection() {
        ViolationsModel m = model();
        List<String> jumps = new ArrayList<>();
        m.onJump(jumps::add);
        m.select(net);
        assertTrue(m.detailProperty().get().contains("Target:   example.com:443"));
        m.jumpToCall();
        assertEquals(List.of("c2"), jumps);
    }

    @Test
    void csvQuotesFieldsWithCommas() {
        ViolationsModel m = model();
        m.filterTextProperty().set("quarantined");
        assertEquals("time,tier,kind,target,tool,callId,command,reason,runId\r\n"
                + "2026-11-29T10:00:00Z,DETECTED,WRITE,.env.local,Bash,c3,\"touch a,b\","
                + "\"new protected file, quarantined\",r\r\n", m.exportCsv());
    }

    @Test
    void jsonExportsFilteredRows() {
        ViolationsModel m = model();
        m.kindFilterProperty().set(Kind.NETWORK);
        String json = m.exportJson();
        assertTrue(json.contains("\"kind\" : \"network\""));
        assertTrue(!json.contains(".env"));
    }

    /** Allowed host-loopback traffic is listed apart, never as (or counted with) a violation. */
    @Test
    void allowedTrafficIsItsOwnListNotAViolationRow() {
        ViolationsModel m = model();
        var a = new dev.monoagent.common.Event.NetworkAllowed(t, "r", "c4", "Bash", "curl http://127.0.0.1:5432/",
                "127.0.0.1", 5432, "postgres (pid 77)");
        m.addAllowed(a);
        assertEquals(3, m.countProperty().get(), "the violation count is unchanged");
        assertEquals(3, m.rows().size());
        assertEquals(List.of(a), m.allowed());
        assertTrue(a.describe().contains("5432") && a.describe().contains("postgres (pid 77)"), a.describe());
        assertTrue(!m.exportJson().contains("5432"), "an export of violations holds no allowed traffic");
    }
}
