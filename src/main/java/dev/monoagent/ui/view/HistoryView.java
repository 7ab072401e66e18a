package dev.monoagent.ui.view;

import dev.monoagent.agent.Conversation;
import dev.monoagent.ui.model.HistoryModel;
import java.time.ZoneId;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignP;

/**
 * The History tab: the workspace's conversations, newest first (first prompt, when, turns). A click (or Enter) opens
 * one in the transcript and the next prompt continues it; "New conversation" starts afresh. The conversation the
 * prompt box continues is marked.
 */
public final class HistoryView extends VBox {
    public HistoryView(HistoryModel model) {
        super(6);
        setPadding(new Insets(8));
        Button fresh = new Button("New conversation", Icons.of(MaterialDesignP.PLUS, "run-icon"));
        fresh.setId("history-new");
        fresh.setOnAction(e -> model.newConversation());
        fresh.disableProperty().bind(model.busyBinding());
        Label status = new Label();
        status.setId("history-status");
        status.setWrapText(true);
        status.textProperty().bind(model.statusProperty());
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox top = new HBox(8, status, spacer, fresh);
        HBox.setHgrow(status, Priority.SOMETIMES);

        ListView<Conversation.Summary> list = new ListView<>(model.rows());
        list.setId("history-list");
        list.setPlaceholder(new Label("No conversations yet."));
        ZoneId zone = ZoneId.systemDefault();
        list.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(Conversation.Summary c, boolean empty) {
                super.updateItem(c, empty);
                getStyleClass().remove("history-current");
                if (empty || c == null) {
                    setText(null);
                    return;
                }
                setText(HistoryModel.describe(c, zone));
                if (c.id().equals(model.currentProperty().get())) {
                    getStyleClass().add("history-current");
                }
            }
        });
        model.currentProperty().addListener((o, a, b) -> list.refresh());
        list.setOnMouseClicked(e -> {
            Conversation.Summary c = list.getSelectionModel().getSelectedItem();
            if (c != null && !model.busyBinding().get()) {
                model.open(c);
            }
        });
        list.setOnKeyPressed(e -> {
            Conversation.Summary c = list.getSelectionModel().getSelectedItem();
            if (e.getCode() == KeyCode.ENTER && c != null) {
                model.open(c);
            }
        });
        VBox.setVgrow(list, Priority.ALWAYS);
        getChildren().addAll(top, list);
    }
}
