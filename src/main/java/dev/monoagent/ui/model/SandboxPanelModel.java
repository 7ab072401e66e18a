package dev.monoagent.ui.model;

import dev.monoagent.common.Effective;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.ui.port.CheckReport;
import dev.monoagent.ui.port.SandboxPort;
import dev.monoagent.ui.port.SandboxSnapshot;
import dev.monoagent.ui.task.TaskExecutor;
import java.time.Instant;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The sandbox panel and the status-bar badge: effective mode, engine facts, policy summary, and the Setup / Check
 * commands with one row per probe as it finishes. The badge follows the last snapshot; a check that fails turns it
 * red with the failing probe as the reason, one that passes makes it ENFORCING with the time.
 */
public final class SandboxPanelModel {
    /** Probe count of the full self-check, for progress before the engine has reported its list. */
    static final int EXPECTED_PROBES = 10;

    private final SandboxPort port;
    private final TaskExecutor executor;
    private final EventSink events;

    private final ReadOnlyObjectWrapper<SandboxSnapshot> snapshot = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<Badge> badge = new ReadOnlyObjectWrapper<>(
            new Badge(Badge.Level.UNVERIFIED, "Sandbox: proving the engine…"));
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper();
    private final ReadOnlyStringWrapper step = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<Instant> lastVerified = new ReadOnlyObjectWrapper<>();
    private final ObservableList<ProbeRow> probes = FXCollections.observableArrayList();

    public SandboxPanelModel(SandboxPort port, TaskExecutor executor, EventSink events) {
        this.port = port;
        this.executor = executor;
        this.events = events;
    }

    /** Reads the engine state in the background. */
    public void refresh() {
        executor.submit("sandbox-status", port::snapshot, this::apply,
                e -> apply(stateWithError(e)));
    }

    /** Re-proves the engine. */
    public void check() {
        run("sandbox-check", () -> port.check(this::probeFinished));
    }

    /** Installs the pinned engine, then runs the full check. */
    public void setup() {
        run("sandbox-setup", () -> port.setup(s -> executor.runOnUi(() -> step.set(s)), this::probeFinished));
    }

    private void run(String name, java.util.concurrent.Callable<CheckReport> work) {
        if (running.get()) {
            return;
        }
        running.set(true);
        probes.clear();
        progress.set(0);
        step.set(name.equals("sandbox-setup") ? "Installing the pinned engine…" : "Checking…");
        executor.submit(name, work, this::checkFinished, e -> {
            running.set(false);
            step.set("Failed: " + e.getMessage());
            CheckReport failed = new CheckReport(false,
                    java.util.List.of(new ProbeResult("engine", false, String.valueOf(e.getMessage()), 0)),
                    Instant.now());
            checkFinished(failed);
        });
    }

    private void probeFinished(ProbeResult r) {
        executor.runOnUi(() -> {
            probes.add(new ProbeRow(r.id(), r.passed() ? ProbeRow.State.PASS : ProbeRow.State.FAIL, r.detail(),
                    r.millis()));
            progress.set(Math.min(0.99, probes.size() / (double) Math.max(EXPECTED_PROBES, probes.size() + 1)));
        });
        events.accept(new Event.ProbeFinished(Instant.now(), r));
    }

    private void checkFinished(CheckReport r) {
        running.set(false);
        progress.set(1);
        // the report is the record: rows reflect it exactly, even if some live callbacks were missed
        probes.setAll(r.results().stream().map(p -> new ProbeRow(p.id(),
                p.passed() ? ProbeRow.State.PASS : ProbeRow.State.FAIL, p.detail(), p.millis())).toList());
        step.set(r.passed() ? "All " + r.results().size() + " probes passed." : "Check failed: " + r.firstFailure());
        SandboxSnapshot base = snapshot.get();
        if (base != null) {
            apply(base.afterCheck(r));
        } else {
            lastVerified.set(r.passed() ? r.at() : null);
            badge.set(Badge.of(r.passed() ? Effective.NATIVE : Effective.BLOCKED, r.firstFailure(), lastVerified.get()));
        }
        events.accept(new Event.SelfCheckFinished(r.at(), r.passed(), r.results()));
    }

    /** Applies a state change reported by the engine (e.g. it became unavailable). */
    public void onEvent(Event e) {
        if (e instanceof Event.SandboxStateChanged s && snapshot.get() != null) {
            SandboxSnapshot c = snapshot.get();
            apply(new SandboxSnapshot(s.effective(), s.reason(), c.engine(), c.source(), c.version(), c.digest(), c.integrity(), c.installRoot(),
                    c.readableRoots(), c.writableRoots(), c.protectedPaths(), c.network(), c.grants(), c.fallback(),
                    s.effective() == Effective.UNSAFE_HOST_PROCESS, s.effective() == Effective.NATIVE
                    ? c.lastVerified() : null));
        }
    }

    private void apply(SandboxSnapshot s) {
        snapshot.set(s);
        lastVerified.set(s.lastVerified());
        badge.set(Badge.of(s.effective(), s.reason(), s.lastVerified()));
    }

    private SandboxSnapshot stateWithError(Throwable e) {
        return dev.monoagent.ui.port.PolicyFactory.unproven(port.policy(), Effective.BLOCKED,
                "status failed: " + e.getMessage(), "unknown");
    }

    public ReadOnlyObjectProperty<SandboxSnapshot> snapshotProperty() {
        return snapshot.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Badge> badgeProperty() {
        return badge.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty stepProperty() {
        return step.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Instant> lastVerifiedProperty() {
        return lastVerified.getReadOnlyProperty();
    }

    /** Probe rows, in finishing order. */
    public ObservableList<ProbeRow> probes() {
        return FXCollections.unmodifiableObservableList(probes);
    }
}
