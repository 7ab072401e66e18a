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
 *
 * <p>The probe rows always show one self-check with its time: on open the last one recorded (read before the engine
 * is proven, so the list is never empty while a proof exists), then the proof the engine holds, then every check or
 * setup run here. {@link #proofProperty()} says how far those rows can be trusted right now.
 */
public final class SandboxPanelModel {
    /** Probe count of the full self-check, for progress before the engine has reported its list. */
    static final int EXPECTED_PROBES = 10;
    /** A recorded pass older than this no longer counts (the engine's own cache lifetime). */
    static final java.time.Duration PROOF_TTL = java.time.Duration.ofHours(24);

    /** How far the shown probe rows can be trusted. */
    public enum Proof {
        /** No self-check known. */
        NONE,
        /** Every probe passed and the engine is enforcing on that proof (or is being proven again now). */
        PASSED,
        /** The shown check failed. */
        FAILED,
        /** The shown check passed, but is too old or the engine is no longer enforcing. */
        STALE
    }

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
    private final ReadOnlyObjectWrapper<CheckReport> shown = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<Proof> proof = new ReadOnlyObjectWrapper<>(Proof.NONE);
    private final ReadOnlyStringWrapper proofText = new ReadOnlyStringWrapper("No self-check recorded yet.");
    /** The rows come from the engine or a check run here, not from the record on disk. */
    private boolean rowsFromEngine;

    private final ReadOnlyStringWrapper notice = new ReadOnlyStringWrapper("");

    public SandboxPanelModel(SandboxPort port, TaskExecutor executor, EventSink events) {
        this.port = port;
        this.notice.set(String.join("\n", port.notices()));
        this.executor = executor;
        this.events = events;
    }

    /**
     * Reads the engine state in the background. The first time, the recorded self-check is shown right away (cheap)
     * while the engine is opened and proven.
     */
    public void refresh() {
        if (shown.get() == null && !running.get()) {
            executor.submit("sandbox-last-check", port::lastCheck, r -> showCheck(r, false), e -> { });
        }
        executor.submit("sandbox-status", () -> new Status(port.snapshot(), port.lastCheck()), st -> {
            showCheck(st.check(), true);
            apply(st.snapshot());
        }, e -> apply(stateWithError(e)));
    }

    private record Status(SandboxSnapshot snapshot, CheckReport check) {}

    /** Shows {@code r} as the probe rows unless a check is running or the rows are already newer. */
    private void showCheck(CheckReport r, boolean fromEngine) {
        if (r == null || running.get() || (rowsFromEngine && !fromEngine)) {
            return;
        }
        CheckReport cur = shown.get();
        if (fromEngine && rowsFromEngine && cur != null && cur.at().isAfter(r.at())) {
            return;
        }
        rowsFromEngine |= fromEngine;
        shown.set(r);
        probes.setAll(r.results().stream().map(p -> new ProbeRow(p.id(),
                p.passed() ? ProbeRow.State.PASS : ProbeRow.State.FAIL, p.detail(), p.millis())).toList());
        judgeProof();
    }

    /** Re-derives {@link #proofProperty()} and its sentence from the shown check and the engine state. */
    private void judgeProof() {
        CheckReport r = shown.get();
        SandboxSnapshot s = snapshot.get();
        if (r == null) {
            proof.set(Proof.NONE);
            proofText.set("No self-check recorded yet — run Check.");
            return;
        }
        String at = TIME.format(r.at());
        if (!r.passed()) {
            proof.set(Proof.FAILED);
            proofText.set("FAILED at " + at + " — " + r.firstFailure());
        } else if (r.at().isBefore(Instant.now().minus(PROOF_TTL))) {
            proof.set(Proof.STALE);
            proofText.set("STALE — passed at " + at + ", more than 24 h ago; run Check.");
        } else if (s != null && s.effective() != Effective.NATIVE) {
            proof.set(Proof.STALE);
            proofText.set("STALE — passed at " + at + ", but the sandbox is " + s.effective().wire() + " now.");
        } else {
            proof.set(Proof.PASSED);
            proofText.set("Passed at " + at + (rowsFromEngine ? "" : " (recorded; proving the engine now…)"));
        }
    }

    static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter
            .ofPattern("yyyy-MM-dd HH:mm:ss").withZone(java.time.ZoneId.systemDefault());

    /** Re-proves the engine. */
    public void check() {
        run("sandbox-check", () -> port.check(this::probeFinished));
    }

    /** Installs the pinned engine, then runs the full check. */
    public void setup() {
        run("sandbox-setup", () -> port.setup(s -> executor.runOnUi(() -> step.set(s)), this::probeFinished));
    }

    private static final java.util.concurrent.atomic.AtomicInteger CHECKS = new java.util.concurrent.atomic.AtomicInteger();
    /** Pairs this panel's check events (the check runs on a worker; the id is set before it starts). */
    private volatile String checkId;

    private void run(String name, java.util.concurrent.Callable<CheckReport> work) {
        if (running.get()) {
            return;
        }
        running.set(true);
        checkId = "ui-check-" + CHECKS.incrementAndGet();
        events.accept(new Event.SelfCheckStarted(Instant.now(), checkId));
        probes.clear();
        shown.set(null);
        proof.set(Proof.NONE);
        proofText.set("Check running…");
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
        String id = checkId;
        executor.runOnUi(() -> {
            if (!running.get() || !id.equals(checkId)) {
                return; // the check already finished: its report set the rows
            }
            probes.add(new ProbeRow(r.id(), r.passed() ? ProbeRow.State.PASS : ProbeRow.State.FAIL, r.detail(),
                    r.millis()));
            progress.set(Math.min(0.99, probes.size() / (double) Math.max(EXPECTED_PROBES, probes.size() + 1)));
        });
        events.accept(new Event.ProbeFinished(Instant.now(), checkId, r));
    }

    private void checkFinished(CheckReport r) {
        running.set(false);
        progress.set(1);
        // the report is the record: rows reflect it exactly, even if some live callbacks were missed
        rowsFromEngine = false;
        showCheck(r, true);
        step.set(r.passed() ? "All " + r.results().size() + " probes passed." : "Check failed: " + r.firstFailure());
        SandboxSnapshot base = snapshot.get();
        if (base != null) {
            apply(base.afterCheck(r));
        } else {
            lastVerified.set(r.passed() ? r.at() : null);
            badge.set(Badge.of(r.passed() ? Effective.NATIVE : Effective.BLOCKED, r.firstFailure(), lastVerified.get()));
        }
        events.accept(new Event.SelfCheckFinished(r.at(), checkId, r.passed(), r.results()));
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
        judgeProof();
    }

    private SandboxSnapshot stateWithError(Throwable e) {
        return dev.monoagent.ui.port.PolicyFactory.unproven(port.policy(), Effective.BLOCKED,
                "status failed: " + e.getMessage(), "unknown");
    }

    public ReadOnlyObjectProperty<SandboxSnapshot> snapshotProperty() {
        return snapshot.getReadOnlyProperty();
    }

    /**
     * What was held back from the workspace's own files and how the sandbox is weaker than the playbook's, one line
     * each; empty when neither applies.
     */
    public javafx.beans.property.ReadOnlyStringProperty noticeProperty() {
        return notice.getReadOnlyProperty();
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

    /** The self-check the probe rows show, or null. */
    public ReadOnlyObjectProperty<CheckReport> shownCheckProperty() {
        return shown.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Proof> proofProperty() {
        return proof.getReadOnlyProperty();
    }

    /** One line on the shown rows: "Passed at …", "FAILED at … — probe: detail", "STALE — …". */
    public ReadOnlyStringProperty proofTextProperty() {
        return proofText.getReadOnlyProperty();
    }

    /** Probe rows, in finishing order. */
    public ObservableList<ProbeRow> probes() {
        return FXCollections.unmodifiableObservableList(probes);
    }
}
