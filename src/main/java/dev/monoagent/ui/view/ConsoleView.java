package dev.monoagent.ui.view;

import dev.monoagent.ui.model.ConsoleLine;
import dev.monoagent.ui.model.ConsoleModel;
import java.util.Locale;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignC;
import org.kordamp.ikonli.materialdesign2.MaterialDesignP;
import org.kordamp.ikonli.materialdesign2.MaterialDesignR;
import org.kordamp.ikonli.materialdesign2.MaterialDesignS;

/**
 * A console (command or NodeRepl): a virtualised output list and an input box. Enter runs, Shift+Enter adds a line
 * (multi-line JS), Up/Down on the first/last line walk the history, Ctrl+C / the stop button interrupts.
 */
public final class ConsoleView extends BorderPane {
    private final TextArea input = new TextArea();
    private final ListView<ConsoleLine> output;

    public ConsoleView(ConsoleModel model, String hint) {
        getStyleClass().add("console");
        output = new ListView<>(model.lines());
        output.getStyleClass().add("console-output");
        output.setFixedCellSize(18);
        output.setCellFactory(lv -> new ListCell<>() {
            @Override
            protected void updateItem(ConsoleLine l, boolean empty) {
                super.updateItem(l, empty);
                getStyleClass().removeIf(s -> s.startsWith("line-"));
                if (empty || l == null) {
                    setText(null);
                } else {
                    setText(l.text());
                    getStyleClass().add("line-" + l.kind().name().toLowerCase(Locale.ROOT));
                }
            }
        });
        TailFollower.follow(output, model.lines());

        input.setPromptText(hint);
        input.setPrefRowCount(2);
        input.setWrapText(false);
        input.getStyleClass().add("console-input");
        input.textProperty().bindBidirectional(model.inputProperty());
        input.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == KeyCode.ENTER && !e.isShiftDown()) {
                e.consume();
                model.submit();
            } else if (e.getCode() == KeyCode.ENTER) {
                e.consume();
                input.insertText(input.getCaretPosition(), "\n");
            } else if (e.getCode() == KeyCode.UP && !input.getText().substring(0, input.getCaretPosition())
                    .contains("\n")) {
                e.consume();
                model.historyPrevious();
                input.end();
            } else if (e.getCode() == KeyCode.DOWN && !input.getText().substring(input.getCaretPosition())
                    .contains("\n")) {
                e.consume();
                model.historyNext();
                input.end();
            } else if (e.getCode() == KeyCode.C && e.isControlDown() && input.getSelection().getLength() == 0) {
                e.consume();
                model.cancel();
            }
        });
        Button run = new Button("Run", Icons.of(MaterialDesignP.PLAY, "run-icon"));
        run.setDefaultButton(false);
        run.setOnAction(e -> model.submit());
        run.disableProperty().bind(model.busyProperty());
        Button stop = new Button("Stop", Icons.of(MaterialDesignS.STOP, "stop-icon"));
        stop.setOnAction(e -> model.cancel());
        stop.disableProperty().bind(model.busyProperty().not());
        Button clear = new Button("Clear", Icons.of(MaterialDesignC.CANCEL, "clear-icon"));
        clear.setOnAction(e -> model.clear());
        HBox buttons = new HBox(6, run, stop, clear);
        if ("NodeRepl".equals(model.tool())) {
            Button restart = new Button("Fresh REPL", Icons.of(MaterialDesignR.RESTART, "restart-icon"));
            // earlier code (the agent's) can change anything in the shared REPL, so a result the human must trust
            // comes from a fresh one
            restart.setTooltip(new javafx.scene.control.Tooltip("End this run's REPL and everything earlier code "
                    + "left in it; the next evaluation starts in a new, clean REPL process"));
            restart.setOnAction(e -> model.restart());
            buttons.getChildren().add(restart);
        }
        Label busy = new Label();
        busy.textProperty().bind(javafx.beans.binding.Bindings.when(model.busyProperty())
                .then("running in the sandbox…").otherwise(""));
        busy.getStyleClass().add("console-busy");
        buttons.getChildren().add(busy);
        buttons.getStyleClass().add("toolbar-row");
        HBox.setHgrow(input, Priority.ALWAYS);
        VBox bottom = new VBox(4, input, buttons);
        bottom.getStyleClass().add("console-bottom");
        setCenter(output);
        setBottom(bottom);
        input.setId(model.tool().toLowerCase(Locale.ROOT) + "-input");
        output.setId(model.tool().toLowerCase(Locale.ROOT) + "-output");
    }

    public void focusInput() {
        input.requestFocus();
    }
}
