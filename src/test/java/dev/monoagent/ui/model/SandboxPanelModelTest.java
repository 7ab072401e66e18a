package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.ui.FakeSandbox;
import dev.monoagent.ui.port.PolicyFactory;
import dev.monoagent.ui.port.UnavailableSandbox;
import dev.monoagent.ui.task.DirectTaskExecutor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxPanelModelTest {
    @TempDir
    Path ws;

    private final List<Event> events = new ArrayList<>();

    @Test
    void unverifiedNativeEngineAsksForCheck() {
        SandboxPanelModel m = new SandboxPanelModel(new FakeSandbox(ws), new DirectTaskExecutor(), events::add);
        m.refresh();
        assertEquals(Badge.Level.UNVERIFIED, m.badgeProperty().get().level());
        assertEquals("native", m.snapshotProperty().get().effective().wire());
    }

    @Test
    void passingCheckShowsEveryProbeAndEnforcingBadge() {
        SandboxPanelModel m = new SandboxPanelModel(new FakeSandbox(ws), new DirectTaskExecutor(), events::add);
        m.refresh();
        m.check();
        assertEquals(FakeSandbox.PROBES, m.probes().stream().map(ProbeRow::id).toList());
        assertTrue(m.probes().stream().allMatch(r -> r.state() == ProbeRow.State.PASS));
        assertEquals(Badge.Level.ENFORCING, m.badgeProperty().get().level());
        assertTrue(m.badgeProperty().get().text().matches("Sandbox: ENFORCING \\(verified \\d\\d:\\d\\d\\)"));
        assertFalse(m.runningProperty().get());
        assertEquals(1.0, m.progressProperty().get());
        assertTrue(events.stream().anyMatch(e -> e instanceof Event.SelfCheckFinished s && s.passed()));
        assertEquals(10, events.stream().filter(e -> e instanceof Event.ProbeFinished).count());
    }

    @Test
    void failingCheckTurnsBadgeRedWithTheFailingProbe() {
        FakeSandbox fake = new FakeSandbox(ws);
        SandboxPanelModel m = new SandboxPanelModel(fake, new DirectTaskExecutor(), events::add);
        m.refresh();
        fake.setAvailable(false);
        m.check();
        assertEquals(Badge.Level.BLOCKED, m.badgeProperty().get().level());
        assertEquals("BLOCKED — engine: SRT not found.", m.badgeProperty().get().text());
        assertEquals(ProbeRow.State.FAIL, m.probes().get(0).state());
    }

    @Test
    void engineBecomingUnavailableTurnsBadgeRed() {
        FakeSandbox fake = new FakeSandbox(ws);
        SandboxPanelModel m = new SandboxPanelModel(fake, new DirectTaskExecutor(), events::add);
        m.refresh();
        m.check();
        m.onEvent(new Event.SandboxStateChanged(java.time.Instant.now(), dev.monoagent.common.Effective.BLOCKED, "sandbox_unavailable: gone"));
        assertEquals(new Badge(Badge.Level.BLOCKED, "BLOCKED — sandbox_unavailable: gone"), m.badgeProperty().get());
        assertEquals(null, m.lastVerifiedProperty().get());
    }

    @Test
    void noEngineMeansBlockedFailClosed() {
        SandboxPanelModel m = new SandboxPanelModel(
                new UnavailableSandbox(PolicyFactory.defaults(ws), "not installed"), new DirectTaskExecutor(),
                events::add);
        m.refresh();
        assertEquals("blocked", m.snapshotProperty().get().effective().wire());
        assertEquals("fail-closed", m.snapshotProperty().get().fallback());
        assertEquals(Badge.Level.BLOCKED, m.badgeProperty().get().level());
    }

    @Test
    void setupReportsItsStepAndRunsTheCheck() {
        SandboxPanelModel m = new SandboxPanelModel(new FakeSandbox(ws), new DirectTaskExecutor(), events::add);
        m.refresh();
        m.setup();
        assertEquals(10, m.probes().size());
        assertEquals("All 10 probes passed.", m.stepProperty().get());
    }

    @Test
    void policySummaryListsProtectedPathsAndNetwork() {
        SandboxPanelModel m = new SandboxPanelModel(new FakeSandbox(ws), new DirectTaskExecutor(), events::add);
        m.refresh();
        var s = m.snapshotProperty().get();
        assertTrue(s.protectedPaths().contains(ws.toAbsolutePath().normalize().resolve(".git/config").toString()));
        assertTrue(s.protectedPaths().stream().anyMatch(p -> p.endsWith("**/.env")));
        assertEquals("none", s.network());
    }

    @Test
    void onOpenTheRecordedCheckIsShownWithItsTime() {
        FakeSandbox fake = new FakeSandbox(ws);
        java.time.Instant at = java.time.Instant.now().minus(java.time.Duration.ofMinutes(20));
        fake.record(FakeSandbox.report(at, null));
        SandboxPanelModel m = new SandboxPanelModel(fake, new DirectTaskExecutor(), events::add);
        m.refresh();
        assertEquals(FakeSandbox.PROBES, m.probes().stream().map(ProbeRow::id).toList());
        assertEquals(SandboxPanelModel.Proof.PASSED, m.proofProperty().get());
        assertTrue(m.proofTextProperty().get().startsWith("Passed at " + SandboxPanelModel.TIME.format(at)),
                m.proofTextProperty().get());
    }

    @Test
    void aRecordedPassOlderThanADayIsStale() {
        FakeSandbox fake = new FakeSandbox(ws);
        fake.record(FakeSandbox.report(java.time.Instant.now().minus(java.time.Duration.ofHours(26)), null));
        SandboxPanelModel m = new SandboxPanelModel(fake, new DirectTaskExecutor(), events::add);
        m.refresh();
        assertEquals(10, m.probes().size());
        assertEquals(SandboxPanelModel.Proof.STALE, m.proofProperty().get());
        assertTrue(m.proofTextProperty().get().startsWith("STALE — passed at"), m.proofTextProperty().get());
    }

    @Test
    void aRecordedFailureIsMarkedWithItsProbe() {
        FakeSandbox fake = new FakeSandbox(ws);
        fake.record(FakeSandbox.report(java.time.Instant.now(), "own-netns"));
        SandboxPanelModel m = new SandboxPanelModel(fake, new DirectTaskExecutor(), events::add);
        m.refresh();
        assertEquals(SandboxPanelModel.Proof.FAILED, m.proofProperty().get());
        assertTrue(m.proofTextProperty().get().contains("own-netns: own-netns failed."), m.proofTextProperty().get());
        assertEquals(ProbeRow.State.FAIL, m.probes().stream().filter(r -> r.id().equals("own-netns")).findFirst()
                .orElseThrow().state());
    }

    @Test
    void aPassTurnsStaleWhenTheEngineStopsEnforcing() {
        FakeSandbox fake = new FakeSandbox(ws);
        fake.record(FakeSandbox.report(java.time.Instant.now(), null));
        SandboxPanelModel m = new SandboxPanelModel(fake, new DirectTaskExecutor(), events::add);
        fake.subscribe(m::onEvent);
        m.refresh();
        assertEquals(SandboxPanelModel.Proof.PASSED, m.proofProperty().get());
        fake.setAvailable(false);
        assertEquals(SandboxPanelModel.Proof.STALE, m.proofProperty().get());
        assertTrue(m.proofTextProperty().get().endsWith("but the sandbox is blocked now."),
                m.proofTextProperty().get());
        assertEquals(10, m.probes().size(), "the last evidence stays visible");
    }
}
