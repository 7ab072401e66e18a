package dev.monoagent.ui.view;

import dev.monoagent.ui.model.MemoryModel;
import dev.monoagent.ui.port.MemoryPort;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/** The Memory tab: status line, today's journal, and a search box with hybrid results and their source lines. */
public final class MemoryView extends VBox {
    public MemoryView(MemoryModel model) {
        super(6);
        setPadding(new Insets(8));
        Label status = new Label();
        status.setId("memory-status");
        status.textProperty().bind(model.statusProperty());
        status.setWrapText(true);

        ListView<MemoryPort.Row> today = list(model.today());
        today.setId("memory-today");
        today.setPlaceholder(new Label("No journal entries today."));

        TextField query = new TextField();
        query.setId("memory-query");
        query.setPromptText("Search memory (keyword + vector) — Enter searches");
        query.setOnAction(e -> model.search(query.getText()));
        Button go = new Button("Search");
        go.setOnAction(e -> model.search(query.getText()));
        HBox.setHgrow(query, Priority.ALWAYS);
        Label found = new Label();
        found.setId("memory-found");
        found.textProperty().bind(model.foundProperty());

        ListView<MemoryPort.Row> results = list(model.results());
        results.setId("memory-results");
        results.setPlaceholder(new Label("No results."));
        VBox.setVgrow(today, Priority.ALWAYS);
        VBox.setVgrow(results, Priority.ALWAYS);
        getChildren().addAll(status, new Label("Today"), today, new HBox(6, query, go), found, results);
    }

    private static ListView<MemoryPort.Row> list(javafx.collections.ObservableList<MemoryPort.Row> rows) {
        ListView<MemoryPort.Row> v = new ListView<>(rows);
        v.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(MemoryPort.Row r, boolean empty) {
                super.updateItem(r, empty);
                setText(empty || r == null ? null
                        : r.source() + "  ·  " + r.time() + "  ·  " + r.kind() + "\n" + r.text());
            }
        });
        return v;
    }
}
