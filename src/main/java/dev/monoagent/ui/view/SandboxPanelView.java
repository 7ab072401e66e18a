package dev.monoagent.ui.view;

import dev.monoagent.ui.model.ProbeRow;
import dev.monoagent.ui.model.SandboxPanelModel;
import dev.monoagent.ui.port.SandboxSnapshot;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignC;
import org.kordamp.ikonli.materialdesign2.MaterialDesignS;
import org.kordamp.ikonli.materialdesign2.MaterialDesignW;

/**
 * The sandbox panel: effective mode (big), engine facts, the policy as enforced (roots, protected paths, network,
 * fallback), Setup and Check with a progress bar and one row per probe, and the last verified time.
 */
public final class SandboxPanelView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneId.systemDefault());

    private final Label effective = new Label();
    private final GridPane engine = new GridPane();
    private final VBox policy = new VBox(2);

    public SandboxPanelView(SandboxPanelModel model) {
        getStyleClass().add("sandbox-panel");
        setSpacing(8);
        setPadding(new Insets(8));
        Label title = new Label("Sandbox", Icons.of(MaterialDesignS.SHIELD_LOCK, "title-icon"));
        title.getStyleClass().add("panel-title");
        effective.getStyleClass().add("effective");
        effective.setId("sandbox-effective");
        engine.getStyleClass().add("facts");
        engine.setHgap(8);
        engine.setVgap(2);

        Button setup = new Button("Setup", Icons.of(MaterialDesignW.WRENCH, "setup-icon"));
        setup.setId("sandbox-setup");
        setup.setOnAction(e -> model.setup());
        Button check = new Button("Check", Icons.of(MaterialDesignC.CHECK_CIRCLE, "check-icon"));
        check.setId("sandbox-check");
        check.setOnAction(e -> model.check());
        setup.disableProperty().bind(model.runningProperty());
        check.disableProperty().bind(model.runningProperty());
        ProgressBar progress = new ProgressBar();
        progress.progressProperty().bind(model.progressProperty());
        progress.visibleProperty().bind(model.runningProperty().or(model.progressProperty().greaterThan(0)));
        progress.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(progress, Priority.ALWAYS);
        HBox actions = new HBox(6, setup, check, progress);
        Label step = new Label();
        step.textProperty().bind(model.stepProperty());
        step.setWrapText(true);
        step.getStyleClass().add("step");

        ListView<ProbeRow> probes = new ListView<>(model.probes());
        probes.setId("probe-list");
        probes.getStyleClass().add("probes");
        probes.setPrefHeight(200);
        probes.setCellFactory(lv -> new ListCell<>() {
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
        });
        Label verified = new Label();
        verified.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(() ->
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
        VBox content = new VBox(6, title, effective, probesTitle, actions, step, probes, verified, engineTitle, engine,
                policyTitle, policy);
        ScrollPane scroll = new ScrollPane(content);
        scroll.setFitToWidth(true);
        VBox.setVgrow(scroll, Priority.ALWAYS);
        getChildren().add(scroll);
        model.snapshotProperty().addListener((o, a, s) -> show(s));
        if (model.snapshotProperty().get() != null) {
            show(model.snapshotProperty().get());
        }
    }

    private void show(SandboxSnapshot s) {
        effective.setText("effective: " + s.effective().wire() + (s.reason() == null ? "" : "\n" + s.reason()));
        effective.getStyleClass().removeIf(c -> c.startsWith("effective-"));
        effective.getStyleClass().add("effective-" + s.effective().wire());
        effective.setWrapText(true);
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
        key.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
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
}
