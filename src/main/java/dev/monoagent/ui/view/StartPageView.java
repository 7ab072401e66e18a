package dev.monoagent.ui.view;

import dev.monoagent.ui.model.StartPageModel;
import dev.monoagent.ui.model.StartPageModel.FolderState;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ProgressBar;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * The start page: recent workspaces on the left; on the right the chosen folder with "Open" (it has a config) or the
 * model box and "Set up for review" (it has none), then the setup's progress. Small enough for a laptop screen; it
 * scrolls nothing but the two lists.
 */
public final class StartPageView extends BorderPane {
    public StartPageView(StartPageModel model, Supplier<Optional<Path>> chooseFolder) {
        setPadding(new Insets(16));
        getStyleClass().add("start-page");

        Label title = new Label("mono-agent");
        title.setStyle("-fx-font-size: 20px; -fx-font-weight: bold;");
        Label subtitle = new Label("Pick a repository to review. Every command the agent runs is sandboxed.");
        subtitle.setWrapText(true);

        ListView<Path> recent = new ListView<>(model.recents());
        recent.setId("recentList");
        recent.setPlaceholder(new Label("No recent workspaces yet."));
        recent.setCellFactory(lv -> new ListCell<>() {
            @Override
            protected void updateItem(Path p, boolean empty) {
                super.updateItem(p, empty);
                setText(empty || p == null ? null
                        : (p.getFileName() == null ? p.toString() : p.getFileName() + "  —  " + p));
            }
        });
        recent.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
            if (now != null) {
                model.choose(now);
            }
        });
        recent.setOnMouseClicked(e -> {
            if (e.getClickCount() == 2) {
                model.open();
            }
        });
        Button openFolder = new Button("Open folder…");
        openFolder.setId("openFolder");
        openFolder.setOnAction(e -> chooseFolder.get().ifPresent(model::choose));
        openFolder.disableProperty().bind(model.busy());
        Label recentTitle = new Label("Recent workspaces");
        recentTitle.setId("recentTitle");
        VBox left = new VBox(8, recentTitle, recent, openFolder);
        VBox.setVgrow(recent, Priority.ALWAYS);
        left.setPrefWidth(340);
        // the right side's long lines (a deep path, the setup's progress) wrap or scroll there: they never squeeze
        // this column, whose header and entries would be elided to a few letters
        left.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);

        Label folder = new Label();
        folder.setId("folderLabel");
        folder.setWrapText(true);
        folder.textProperty().bind(Bindings.createStringBinding(() -> {
            Path p = model.folder().get();
            if (p == null) {
                return "No folder chosen.";
            }
            return switch (model.state().get()) {
                case CONFIGURED -> p + "\nSet up: it has a mono-agent.config.json.";
                case NOT_SET_UP -> p + "\nNot set up for review yet (no mono-agent.config.json).";
                case MISSING -> p + "\nThis folder does not exist.";
                case NONE -> p.toString();
            };
        }, model.folder(), model.state()));

        Button open = new Button("Open");
        open.setId("openButton");
        open.setDefaultButton(true);
        open.setOnAction(e -> model.open());
        open.visibleProperty().bind(model.state().isEqualTo(FolderState.CONFIGURED));
        open.managedProperty().bind(open.visibleProperty());
        open.disableProperty().bind(model.busy());

        ComboBox<String> modelBox = new ComboBox<>();
        modelBox.setId("modelBox");
        modelBox.setEditable(true);
        modelBox.getItems().setAll(StartPageModel.MODEL_SUGGESTIONS);
        modelBox.valueProperty().bindBidirectional(model.model());
        modelBox.setPrefWidth(300);
        Button setUp = new Button("Set up for review");
        setUp.setId("setUpButton");
        setUp.setOnAction(e -> {
            model.model().set(modelBox.getEditor().getText());
            model.setUp();
        });
        setUp.disableProperty().bind(model.busy());
        Label modelLabel = new Label("Model");
        HBox setUpRow = new HBox(8, modelLabel, modelBox, setUp);
        setUpRow.setId("setUpRow");
        setUpRow.setAlignment(Pos.CENTER_LEFT);
        setUpRow.visibleProperty().bind(model.state().isEqualTo(FolderState.NOT_SET_UP).or(model.busy()));
        setUpRow.managedProperty().bind(setUpRow.visibleProperty());
        Label presetNote = new Label("Writes the playbook's configuration (preset code-sandbox: network localhost, "
                + "fail-closed, .env and git control files protected), then installs and proves the sandbox.");
        presetNote.setWrapText(true);
        presetNote.visibleProperty().bind(setUpRow.visibleProperty());
        presetNote.managedProperty().bind(presetNote.visibleProperty());

        ProgressBar bar = new ProgressBar();
        bar.setId("progressBar");
        bar.progressProperty().bind(model.progress());
        bar.setMaxWidth(Double.MAX_VALUE);
        bar.visibleProperty().bind(Bindings.isNotEmpty(model.progressLines()));
        bar.managedProperty().bind(bar.visibleProperty());
        ListView<String> progress = new ListView<>(model.progressLines());
        progress.setId("progressList");
        progress.visibleProperty().bind(bar.visibleProperty());
        progress.managedProperty().bind(bar.visibleProperty());
        model.progressLines().addListener((javafx.collections.ListChangeListener<String>) c ->
                progress.scrollTo(Math.max(0, model.progressLines().size() - 1)));
        Label error = new Label();
        error.setId("errorLabel");
        error.setWrapText(true);
        error.setStyle("-fx-text-fill: #b00020;");
        error.textProperty().bind(model.error());

        VBox right = new VBox(10, folder, open, setUpRow, presetNote, bar, progress, error);
        VBox.setVgrow(progress, Priority.ALWAYS);
        HBox.setHgrow(right, Priority.ALWAYS);
        setTop(new VBox(4, title, subtitle));
        BorderPane.setMargin(getTop(), new Insets(0, 0, 12, 0));
        HBox body = new HBox(16, left, right);
        setCenter(body);
    }
}
