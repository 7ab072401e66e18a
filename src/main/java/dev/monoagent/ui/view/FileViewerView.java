package dev.monoagent.ui.view;

import dev.monoagent.ui.model.FileViewerModel;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import org.fxmisc.flowless.VirtualizedScrollPane;
import org.fxmisc.richtext.CodeArea;
import org.fxmisc.richtext.LineNumberFactory;
import org.kordamp.ikonli.materialdesign2.MaterialDesignM;

/**
 * The read-only file viewer: a RichTextFX {@link CodeArea} with line numbers and highlighting, and a find bar
 * (Ctrl+F focuses it, Enter finds the next match).
 */
public final class FileViewerView extends BorderPane {
    private final CodeArea area = new CodeArea();
    private final TextField find = new TextField();

    public FileViewerView(FileViewerModel model) {
        getStyleClass().add("file-viewer");
        area.setEditable(false);
        area.setParagraphGraphicFactory(LineNumberFactory.get(area));
        area.getStyleClass().add("code");
        model.textProperty().addListener((o, a, text) -> {
            area.replaceText(text);
            area.setStyleSpans(0, SyntaxHighlighter.spans(text, model.languageProperty().get()));
            area.moveTo(0);
            area.requestFollowCaret();
        });
        model.matchProperty().addListener((o, a, m) -> {
            if (m != null) {
                area.selectRange(m.start(), m.end());
                area.requestFollowCaret();
            }
        });
        find.setPromptText("Find (Ctrl+F, Enter = next)");
        find.getStyleClass().add("find-field");
        find.textProperty().bindBidirectional(model.queryProperty());
        find.setOnAction(e -> model.findNext(area.getSelection().getLength() > 0 ? area.getSelection().getEnd()
                : area.getCaretPosition()));
        find.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ESCAPE) {
                area.requestFocus();
            }
        });
        Button next = new Button(null, Icons.of(MaterialDesignM.MAGNIFY, "find-icon"));
        next.setOnAction(e -> find.getOnAction().handle(null));
        Label info = new Label();
        info.textProperty().bind(model.infoProperty());
        info.getStyleClass().add("viewer-info");
        HBox.setHgrow(info, Priority.ALWAYS);
        info.setMaxWidth(Double.MAX_VALUE);
        HBox bar = new HBox(6, info, find, next);
        bar.getStyleClass().add("toolbar-row");
        setTop(bar);
        setCenter(new VirtualizedScrollPane<>(area));
    }

    /** Focuses the find field (Ctrl+F). */
    public void focusFind() {
        find.requestFocus();
        find.selectAll();
    }

    public CodeArea area() {
        return area;
    }
}
