package dev.monoagent.ui.view;

import dev.monoagent.ui.model.ProbeRow;
import dev.monoagent.ui.model.SandboxPanelModel;
import dev.monoagent.ui.port.SandboxSnapshot;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignC;
import org.kordamp.ikonli.materialdesign2.MaterialDesignS;
import org.kordamp.ikonli.materialdesign2.MaterialDesignW;

/**
 * The sandbox panel: effective mode (big), Setup and Check, the shown self-check (its verdict and time, one row per
 * probe), engine facts and the policy as enforced. The state word and both buttons sit above the scrolling part, so
 * they stay on screen at any height; neither they nor the state word ever shorten. In compact mode (narrow windows)
 * the same nodes form one strip instead: state word, badge, the check verdict, Setup, Check.
 */
public final class SandboxPanelView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneId.systemDefault());
    /** Narrowest the full panel gets: the buttons, the state word and a readable probe row. */
    public static final double MIN_WIDTH = 290;
    private static final javafx.css.PseudoClass STALE = javafx.css.PseudoClass.getPseudoClass("stale");

    private final Label effective = new Label();
    private final Label reason = new Label();
    private final GridPane engine = new GridPane();
    private final VBox policy = new VBox(2);
    private final Button setup;
    private final Button check;
    private final ProgressBar progress = new ProgressBar();
    private final Label proofLine = new Label();
    private final BadgeLabel stripBadge;
    private final VBox top;
    private final VBox content;
    private final Label title;
    private final Label step = new Label();
    private final ListView<ProbeRow> probes;
    private final HBox actions;
    private final ScrollPane scroll;
    private final HBox strip = new HBox(8);
    private boolean compact;

    public SandboxPanelView(SandboxPanelModel model) {
        getStyleClass().add("sandbox-panel");
        setMinWidth(MIN_WIDTH);
        title = new Label("Sandbox", Icons.of(MaterialDesignS.SHIELD_LOCK, "title-icon"));
        title.getStyleClass().add("panel-title");
        effective.getStyleClass().add("effective");
        effective.setId("sandbox-effective");
        effective.setMinWidth(Region.USE_PREF_SIZE);
        reason.getStyleClass().add("effective-reason");
        reason.setWrapText(true);
        reason.managedProperty().bind(reason.visibleProperty());
        engine.getStyleClass().add("facts");
        engine.setHgap(8);
        engine.setVgap(2);

        setup = new Button("Setup", Icons.of(MaterialDesignW.WRENCH, "setup-icon"));
        setup.setId("sandbox-setup");
        setup.setOnAction(e -> model.setup());
        setup.setTooltip(new Tooltip("Install the pinned engine into the private cache, then check it (Ctrl+Shift+S)"));
        check = new Button("Check", Icons.of(MaterialDesignC.CHECK_CIRCLE, "check-icon"));
        check.setId("sandbox-check");
        check.setOnAction(e -> model.check());
        check.setTooltip(new Tooltip("Re-prove the engine with every probe (Ctrl+Shift+K)"));
        for (Button b : List.of(setup, check)) {
            b.setMinWidth(Region.USE_PREF_SIZE);
            b.disableProperty().bind(model.runningProperty());
        }
        progress.progressProperty().bind(model.progressProperty());
        progress.visibleProperty().bind(model.runningProperty());
        progress.managedProperty().bind(progress.visibleProperty());
        progress.setMaxWidth(Double.MAX_VALUE);
        progress.setMinWidth(40);
        HBox.setHgrow(progress, Priority.ALWAYS);
        actions = new HBox(6, setup, check, progress);
        actions.getStyleClass().add("sandbox-actions");
        step.textProperty().bind(model.stepProperty());
        step.setWrapText(true);
        step.getStyleClass().add("step");
        step.managedProperty().bind(step.textProperty().isNotEmpty());

        proofLine.setId("probe-status");
        proofLine.textProperty().bind(model.proofTextProperty());
        proofLine.setWrapText(true);
        proofLine.setTooltip(new Tooltip());
        proofLine.getTooltip().textProperty().bind(model.proofTextProperty());
        probes = new ListView<>(model.probes());
        probes.setId("probe-list");
        probes.getStyleClass().add("probes");
        probes.setPrefHeight(10 * 26 + 4);
        probes.setMinHeight(90);
        probes.setPlaceholder(new Label("No probe results yet."));
        probes.setCellFactory(lv -> new ProbeCell());
        applyProof(model.proofProperty().get());
        model.proofProperty().addListener((o, a, p) -> applyProof(p));
        Label verified = new Label();
        verified.textProperty().bind(Bindings.createStringBinding(() ->
                model.lastVerifiedProperty().get() == null ? "Last verified: never"
                        : "Last verified: " + TIME.format(model.lastVerifiedProperty().get()),
                model.lastVerifiedProperty()));
        verified.setId("sandbox-verified");

        Label policyTitle = new Label("Policy");
        policyTitle.getStyleClass().add("section-title");
        Label engineTitle = new Label("Engine");
        engineTitle.getStyleClass().add("section-title");
        Label probesTitle = new Label("Functional check");
        probesTitle.getStyleClass().add("section-title");
        Label notice = new Label();
        notice.setId("sandbox-notice");
        notice.getStyleClass().add("sandbox-notice");
        notice.setWrapText(true);
        notice.textProperty().bind(model.noticeProperty());
        notice.visibleProperty().bind(model.noticeProperty().isNotEmpty());
        notice.managedProperty().bind(notice.visibleProperty());
        top = new VBox(6, title, effective, reason, notice, actions, step);
        top.getStyleClass().add("sandbox-top");
        content = new VBox(6, probesTitle, proofLine, probes, verified, engineTitle, engine, policyTitle, policy);
        content.getStyleClass().add("sandbox-content");
        scroll = new ScrollPane(content);
        scroll.setFitToWidth(true);
        scroll.setHbarPolicy(ScrollPane.ScrollBarPolicy.NEVER);
        VBox.setVgrow(scroll, Priority.ALWAYS);

        stripBadge = new BadgeLabel(model.badgeProperty());
        stripBadge.setId("sandbox-strip-badge");
        strip.getStyleClass().add("sandbox-strip");
        setCompact(false);

        model.snapshotProperty().addListener((o, a, s) -> show(s));
        if (model.snapshotProperty().get() != null) {
            show(model.snapshotProperty().get());
        }
    }

    /**
     * Full panel (false) or one strip for narrow windows (true): state word, badge, the check verdict (may shorten,
     * full text in its tooltip), Setup, Check. The buttons and labels are the same nodes in both.
     */
    public void setCompact(boolean on) {
        compact = on;
        if (on) {
            HBox.setHgrow(proofLine, Priority.ALWAYS);
            proofLine.setWrapText(false);
            proofLine.setMinWidth(0);
            proofLine.setMaxWidth(Double.MAX_VALUE);
            progress.setMaxWidth(120);
            HBox.setHgrow(progress, Priority.NEVER);
            strip.getChildren().setAll(Icons.of(MaterialDesignS.SHIELD_LOCK, "title-icon"), effective, stripBadge,
                    proofLine, progress, setup, check);
            getStyleClass().add("compact");
            getChildren().setAll(strip);
            setMinWidth(Region.USE_COMPUTED_SIZE);
        } else {
            proofLine.setWrapText(true);
            proofLine.setMinWidth(Region.USE_COMPUTED_SIZE);
            progress.setMaxWidth(Double.MAX_VALUE);
            HBox.setHgrow(progress, Priority.ALWAYS);
            actions.getChildren().setAll(setup, check, progress);
            if (proofLine.getParent() != content) {
                content.getChildren().add(1, proofLine);
            }
            top.getChildren().setAll(title, effective, reason, actions, step);
            getStyleClass().remove("compact");
            getChildren().setAll(top, scroll);
            setMinWidth(MIN_WIDTH);
        }
    }

    public boolean isCompact() {
        return compact;
    }

    /** Keyboard entry point of the panel. */
    public void focusCheck() {
        check.requestFocus();
    }

    private void applyProof(SandboxPanelModel.Proof p) {
        proofLine.getStyleClass().removeIf(c -> c.startsWith("proof-"));
        proofLine.getStyleClass().add("proof-" + p.name().toLowerCase(Locale.ROOT));
        // stale rows are still shown (they are the last evidence) but visibly not current
        probes.pseudoClassStateChanged(STALE, p == SandboxPanelModel.Proof.STALE);
    }

    private void show(SandboxSnapshot s) {
        effective.setText("effective: " + s.effective().wire());
        effective.getStyleClass().removeIf(c -> c.startsWith("effective-"));
        effective.getStyleClass().add("effective-" + s.effective().wire());
        reason.setText(s.reason() == null ? "" : s.reason());
        reason.setVisible(s.reason() != null);
        engine.getChildren().clear();
        int row = 0;
        row = fact(row, "engine", "srt (" + s.engine() + ")");
        row = fact(row, "source", s.source());
        row = fact(row, "version", s.version());
        row = fact(row, "digest", s.digest());
        row = fact(row, "integrity", s.integrity());
        row = fact(row, "install", s.installRoot());
        policy.getChildren().clear();
        policyLines("readable", s.readableRoots());
        policyLines("writable", s.writableRoots());
        policyLines("protected", s.protectedPaths());
        policyLines("network", List.of(s.network()));
        policyLines("grants", s.grants());
        policyLines("fallback", List.of(s.fallback() + (s.fallbackActive() ? " (ACTIVE)" : " (inactive)")));
    }

    private int fact(int row, String k, String v) {
        Label key = new Label(k);
        key.getStyleClass().add("fact-key");
        key.setMinWidth(Region.USE_PREF_SIZE);
        Label val = new Label(v == null ? "—" : v);
        val.getStyleClass().add("fact-value");
        val.setWrapText(true);
        engine.addRow(row, key, val);
        return row + 1;
    }

    private void policyLines(String k, List<String> values) {
        Label key = new Label(k);
        key.getStyleClass().add("fact-key");
        policy.getChildren().add(key);
        for (String v : values) {
            Label l = new Label("  " + v);
            l.getStyleClass().add(k.equals("protected") ? "protected-path" : "fact-value");
            l.setWrapText(true);
            policy.getChildren().add(l);
        }
    }

    /** One probe: pass/fail icon, id, detail and duration, wrapped to the panel's width. */
    private static final class ProbeCell extends ListCell<ProbeRow> {
        @Override
        protected void updateItem(ProbeRow r, boolean empty) {
            super.updateItem(r, empty);
            getStyleClass().removeAll("probe-pass", "probe-fail", "probe-pending");
            if (empty || r == null) {
                setText(null);
                setGraphic(null);
                return;
            }
            getStyleClass().add("probe-" + r.state().name().toLowerCase(Locale.ROOT));
            setGraphic(Icons.of(r.state() == ProbeRow.State.PASS ? MaterialDesignC.CHECK_CIRCLE
                    : MaterialDesignC.CLOSE_CIRCLE, "probe-icon"));
            setText(r.id() + " — " + r.detail() + " (" + r.millis() + " ms)");
            setWrapText(true);
            setPrefWidth(0);
        }
    }
}
