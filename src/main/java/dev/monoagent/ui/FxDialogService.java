package dev.monoagent.ui;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;
import javafx.scene.control.Alert;
import javafx.scene.control.TextArea;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/** Dialogs on a JavaFX window: an error alert with the stack trace folded away, and a save-file chooser. */
public final class FxDialogService implements DialogService {
    private final Window owner;

    public FxDialogService(Window owner) {
        this.owner = owner;
    }

    @Override
    public void showError(String title, Throwable error) {
        Alert a = new Alert(Alert.AlertType.ERROR);
        a.initOwner(owner);
        a.setTitle("mono-agent");
        a.setHeaderText(title);
        a.setContentText(String.valueOf(error.getMessage() != null ? error.getMessage() : error));
        StringWriter sw = new StringWriter();
        error.printStackTrace(new PrintWriter(sw));
        TextArea trace = new TextArea(sw.toString());
        trace.setEditable(false);
        a.getDialogPane().setExpandableContent(trace);
        a.show();
    }

    @Override
    public boolean confirmWeaker(String title, String details, String confirmLabel) {
        javafx.scene.control.ButtonType yes = new javafx.scene.control.ButtonType(confirmLabel,
                javafx.scene.control.ButtonBar.ButtonData.OK_DONE);
        javafx.scene.control.ButtonType no = new javafx.scene.control.ButtonType("Keep them ignored",
                javafx.scene.control.ButtonBar.ButtonData.CANCEL_CLOSE);
        Alert a = new Alert(Alert.AlertType.WARNING, details, no, yes);
        a.initOwner(owner);
        a.setTitle("mono-agent");
        a.setHeaderText(title);
        // the safe choice is the default button: Enter does not weaken the sandbox
        ((javafx.scene.control.Button) a.getDialogPane().lookupButton(yes)).setDefaultButton(false);
        ((javafx.scene.control.Button) a.getDialogPane().lookupButton(no)).setDefaultButton(true);
        return a.showAndWait().filter(b -> b == yes).isPresent();
    }

    @Override
    public Optional<Path> askSaveFile(String title, String initialName) {
        FileChooser fc = new FileChooser();
        fc.setTitle(title);
        fc.setInitialFileName(initialName);
        fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("JSON", "*.json"),
                new FileChooser.ExtensionFilter("CSV", "*.csv"));
        java.io.File f = fc.showSaveDialog(owner);
        return Optional.ofNullable(f).map(java.io.File::toPath);
    }
}
