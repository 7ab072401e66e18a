package dev.monoagent.ui.view;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.ui.model.ViolationsModel;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import org.kordamp.ikonli.materialdesign2.MaterialDesignA;
import org.kordamp.ikonli.materialdesign2.MaterialDesignE;

/**
 * The violations inspector: filter bar (text, tier, kind), a live table, the selected row's detail, "Jump to call"
 * and export. The table shows the model's filtered list, newest first unless the reviewer sorts by a column; selection
 * drives the model. The inspector is a short strip under the centre tabs (about 170 px of rows on a 1366×768 laptop),
 * so the table takes its whole height and the detail and the allowed traffic share a column beside it: stacked under
 * the table, the allowed list was squeezed to a scrollbar.
 */
public final class ViolationsView extends BorderPane {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());
    /** The table's time column: seconds are enough to tell rows apart at a glance; the detail has the instant. */
    private static final DateTimeFormatter ROW_TIME = DateTimeFormatter.ofPattern("HH:mm:ss")
            .withZone(ZoneId.systemDefault());
    /** Newest first: what a reviewer looks for is what the agent just did. */
    static final java.util.Comparator<Violation> NEWEST_FIRST = java.util.Comparator.comparing(Violation::time,
            java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder())).reversed();
    /** Rows of the allowed-traffic list (fixed, so its minimum height holds a known number of them). */
    private static final double ALLOWED_ROW = 22;

    private final TableView<Violation> table = new TableView<>();

    public ViolationsView(ViolationsModel model, java.nio.file.Path workspace, Runnable onExport) {
        getStyleClass().add("violations");
        Label title = new Label("Violations", Icons.of(MaterialDesignA.ALERT_OCTAGON, "title-icon"));
        title.getStyleClass().add("panel-title");
        Label count = new Label();
        // an aggregated row stands for many: the count says how many were counted rather than listed
        count.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(() -> {
            long more = model.aggregatedCount();
            return "(" + model.countProperty().get() + (more > 0 ? ", " + more + " more aggregated" : "") + ")";
        }, model.countProperty()));
        TextField filter = new TextField();
        filter.setPromptText("Filter target, command, reason…");
        filter.textProperty().bindBidirectional(model.filterTextProperty());
        ComboBox<Violation.Tier> tier = new ComboBox<>(FXCollections.observableArrayList(Violation.Tier.values()));
        tier.getItems().add(0, null);
        tier.setPromptText("any tier");
        tier.valueProperty().bindBidirectional(model.tierFilterProperty());
        ComboBox<Violation.Kind> kind = new ComboBox<>(FXCollections.observableArrayList(Violation.Kind.values()));
        kind.getItems().add(0, null);
        kind.setPromptText("any kind");
        kind.valueProperty().bindBidirectional(model.kindFilterProperty());
        Button jump = new Button("Jump to call");
        jump.setId("violation-jump");
        jump.setOnAction(e -> model.jumpToCall());
        jump.disableProperty().bind(model.selectedProperty().isNull());
        Button export = new Button("Export…", Icons.of(MaterialDesignE.EXPORT, "export-icon"));
        export.setOnAction(e -> onExport.run());
        HBox.setHgrow(filter, Priority.ALWAYS);
        filter.setMinWidth(120);
        // on a narrow window the filter field gives way; the buttons and the title keep their words
        for (javafx.scene.control.Control c : java.util.List.of(title, count, jump, export)) {
            c.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        }
        HBox bar = new HBox(6, title, count, filter, tier, kind, jump, export);
        bar.getStyleClass().add("toolbar-row");

        table.setId("violations-table");
        // a header click sorts by that column; with none chosen, newest first
        javafx.collections.transformation.SortedList<Violation> sorted =
                new javafx.collections.transformation.SortedList<>(model.rows());
        sorted.comparatorProperty().bind(javafx.beans.binding.Bindings.createObjectBinding(
                () -> table.getComparator() == null ? NEWEST_FIRST : table.getComparator(), table.comparatorProperty()));
        table.setItems(sorted);
        table.setPlaceholder(new Label("No violations — nothing was denied so far."));
        // every column inside the table's width: the short ones keep their words, the free texts (target, command,
        // reason) give way and are whole in the detail
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        // rows of this session are marked; the rest is the workspace's history from its run logs
        table.getColumns().add(col("", 20, 20, v -> model.inSession(v) ? "●" : ""));
        table.getColumns().add(col("Time", 70, 70, v -> ROW_TIME.format(v.time())));
        table.getColumns().add(col("Tier", 64, 64, v -> v.tier().name().toLowerCase()));
        table.getColumns().add(col("Kind", 56, 56, v -> v.kind().name().toLowerCase()));
        table.getColumns().add(col("Target", 150, 40, v -> ViolationsModel.targetText(v, t -> relative(workspace, t))));
        table.getColumns().add(col("Tool", 60, 56, Violation::tool));
        table.getColumns().add(col("Call id", 120, 120, Violation::callId));
        table.getColumns().add(col("Command", 180, 36, Violation::command));
        table.getColumns().add(col("Reason", 240, 36, Violation::reason));
        table.getSelectionModel().selectedItemProperty().addListener((o, a, v) -> model.select(v));
        table.setOnMouseClicked(e -> {
            if (e.getClickCount() == 2) {
                model.jumpToCall();
            }
        });
        model.selectedProperty().addListener((o, a, v) -> {
            if (v != null && table.getSelectionModel().getSelectedItem() != v) {
                table.getSelectionModel().select(v);
                table.scrollTo(v);
            }
        });
        TextArea detail = new TextArea();
        detail.setEditable(false);
        detail.textProperty().bind(model.detailProperty());
        detail.getStyleClass().add("violation-detail");
        // allowed traffic is not a violation: its own list under the table, never a row of it
        javafx.scene.control.ListView<Event.NetworkAllowed> allowed = new javafx.scene.control.ListView<>(
                new javafx.collections.transformation.SortedList<>(model.allowed(),
                        java.util.Comparator.comparing(Event.NetworkAllowed::time).reversed()));
        allowed.setId("allowed-traffic");
        allowed.setFixedCellSize(ALLOWED_ROW);
        // never less than three rows, whatever the window's height leaves the inspector
        allowed.setMinHeight(3.5 * ALLOWED_ROW);
        allowed.setPrefHeight(4.5 * ALLOWED_ROW);
        allowed.setPlaceholder(new Label("No allowed host-port connections so far."));
        allowed.setCellFactory(lv -> new javafx.scene.control.ListCell<>() {
            @Override
            protected void updateItem(Event.NetworkAllowed a, boolean empty) {
                super.updateItem(a, empty);
                setText(empty || a == null ? null : TIME.format(a.time()) + "  " + (a.tool() == null ? "" : a.tool()
                        + " ") + (a.callId() == null ? "" : a.callId() + "  ") + dev.monoagent.common.Printable.line(a.describe()));
            }
        });
        // short enough for the side column; the tooltip says what the list holds
        Label allowedTitle = new Label("Allowed traffic (granted listeners)");
        allowedTitle.setTooltip(new javafx.scene.control.Tooltip("Connections to granted host loopback listeners: "
                + "allowed, so not violations; newest first."));
        allowedTitle.setId("allowed-traffic-title");
        allowedTitle.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        detail.setMinHeight(40);
        javafx.scene.layout.VBox side = new javafx.scene.layout.VBox(4, detail, allowedTitle, allowed);
        javafx.scene.layout.VBox.setVgrow(detail, Priority.ALWAYS);
        // the detail keeps room for its short lines (time, tier, call, run) unwrapped: a wrapped target could start a
        // line that reads as another field; the table keeps room for every column's minimum
        side.setMinWidth(280);
        table.setMinWidth(table.getColumns().stream().mapToDouble(TableColumn::getMinWidth).sum() + 4);
        SplitPane split = new SplitPane(table, side);
        split.setDividerPositions(0.64);
        setTop(bar);
        setCenter(split);
    }

    /** Workspace paths are shown relative ({@code .env}); the detail pane keeps the full target. */
    static String relative(java.nio.file.Path workspace, String target) {
        if (target == null || !target.startsWith("/")) {
            return dev.monoagent.common.Printable.line(target);
        }
        try {
            java.nio.file.Path t = java.nio.file.Path.of(target);
            return dev.monoagent.common.Printable.line(t.startsWith(workspace) && !t.equals(workspace) ? workspace.relativize(t).toString()
                    : target);
        } catch (java.nio.file.InvalidPathException e) {
            return dev.monoagent.common.Printable.line(target);
        }
    }

    private static TableColumn<Violation, String> col(String name, double width, double min,
                                                      Function<Violation, String> f) {
        TableColumn<Violation, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setMinWidth(min);
        // a target, command or reason holds what the agent chose: escaped, so a newline or a bidi override in a
        // file name cannot make a row look like another
        c.setCellValueFactory(cd -> new ReadOnlyStringWrapper(cd.getValue() == null ? ""
                : dev.monoagent.common.Printable.line(f.apply(cd.getValue()))));
        return c;
    }

    public TableView<Violation> table() {
        return table;
    }
}
