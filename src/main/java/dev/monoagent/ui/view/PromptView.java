package dev.monoagent.ui.view;

import dev.monoagent.ui.model.PromptModel;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignA;
import org.kordamp.ikonli.materialdesign2.MaterialDesignR;
import org.kordamp.ikonli.materialdesign2.MaterialDesignS;

/**
 * The prompt box under the centre tabs: the prompt (Enter sends, Shift+Enter adds a line, Escape stops), Send and
 * Stop, and below them the model with its credential state (and Sign in when the ChatGPT sign-in is missing or
 * expired), the "Continue conversation" switch and the run's status in words. Lines wrap rather than elide, so
 * nothing is cut on a 1366×768 screen. Only binds to {@link PromptModel}.
 */
public final class PromptView extends VBox {
    /** Shown in the empty prompt when an agent loop is behind the box. */
    public static final String HINT = "Ask the agent about this workspace — Enter sends, Shift+Enter adds a line, "
            + "Escape stops the run";

    private final TextArea prompt = new TextArea();

    private Runnable onSignIn = () -> { };

    /** @param send sends the prompt (the window also shows the transcript) */
    public PromptView(PromptModel model, Runnable send) {
        super(4);
        getStyleClass().add("prompt-box");
        prompt.setId("prompt");
        prompt.setPrefRowCount(2);
        prompt.setWrapText(true);
        prompt.textProperty().bindBidirectional(model.textProperty());
        prompt.setDisable(!model.available());
        prompt.setPromptText(model.available() ? HINT : model.statusProperty().get());
        prompt.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == KeyCode.ENTER && !e.isShiftDown()) {
                e.consume();
                send.run();
            } else if (e.getCode() == KeyCode.ENTER) {
                e.consume();
                prompt.insertText(prompt.getCaretPosition(), "\n");
            } else if (e.getCode() == KeyCode.ESCAPE && model.runningBinding().get()) {
                e.consume();
                model.stop();
            }
        });
        Button sendButton = new Button("Send", Icons.of(MaterialDesignS.SEND, "run-icon"));
        sendButton.setId("prompt-send");
        sendButton.setOnAction(e -> send.run());
        sendButton.disableProperty().bind(model.canSendBinding().not());
        sendButton.setMaxWidth(Double.MAX_VALUE);
        Button stop = new Button("Stop", Icons.of(MaterialDesignS.STOP, "stop-icon"));
        stop.setId("prompt-stop");
        stop.setOnAction(e -> model.stop());
        stop.disableProperty().bind(model.runningBinding().not());
        stop.setMaxWidth(Double.MAX_VALUE);
        stop.setTooltip(new Tooltip("Stop the run: aborts the model's stream and kills a running tool (Escape)"));
        VBox buttons = new VBox(4, sendButton, stop);
        buttons.setMinWidth(Region.USE_PREF_SIZE);
        HBox.setHgrow(prompt, Priority.ALWAYS);
        HBox top = new HBox(6, prompt, buttons);

        Label modelLabel = label("prompt-model", "prompt-model");
        modelLabel.setGraphic(Icons.of(MaterialDesignR.ROBOT, "status-icon"));
        modelLabel.textProperty().bind(model.modelProperty());
        Label credential = label("prompt-credential", "prompt-credential");
        credential.textProperty().bind(model.credentialProperty());
        credential.managedProperty().bind(credential.textProperty().isNotEmpty());
        credential.visibleProperty().bind(credential.managedProperty());
        Button signIn = new Button("Sign in", Icons.of(MaterialDesignA.ACCOUNT_KEY, "status-icon"));
        signIn.setId("prompt-sign-in");
        signIn.getStyleClass().add("flat");
        signIn.setMinWidth(Region.USE_PREF_SIZE);
        signIn.setOnAction(e -> this.onSignIn.run());
        signIn.managedProperty().bind(model.signInNeededProperty());
        signIn.visibleProperty().bind(model.signInNeededProperty());
        CheckBox cont = new CheckBox("Continue conversation");
        cont.setId("prompt-continue");
        cont.setMinWidth(Region.USE_PREF_SIZE);
        cont.selectedProperty().bindBidirectional(model.continueConversationProperty());
        Tooltip contTip = new Tooltip();
        contTip.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(() ->
                model.conversationProperty().get() == null
                        ? "On: the next prompts continue the conversation this window starts. Off: a new one."
                        : "On: the next prompt continues " + model.conversationProperty().get()
                        + ". Off: it starts a new conversation.", model.conversationProperty()));
        cont.setTooltip(contTip);
        cont.setDisable(!model.available());
        FlowPane info = new FlowPane(12, 2, modelLabel, credential, signIn, cont);
        info.setId("prompt-info");

        Label status = new Label();
        status.setId("prompt-status");
        status.getStyleClass().add("prompt-status");
        status.setWrapText(true);
        status.setMaxWidth(Double.MAX_VALUE);
        status.textProperty().bind(model.statusProperty());
        status.managedProperty().bind(status.textProperty().isNotEmpty());
        status.visibleProperty().bind(status.managedProperty());
        getChildren().addAll(top, info, status);
        setId("prompt-box");
        setMinHeight(Region.USE_PREF_SIZE);
    }

    private static Label label(String id, String style) {
        Label l = new Label();
        l.setId(id);
        l.getStyleClass().add(style);
        l.setMinWidth(Region.USE_PREF_SIZE);
        return l;
    }

    /** The window's Sign in action (the status bar's ChatGPT sign-in), offered when the model needs it. */
    public void setOnSignIn(Runnable action) {
        onSignIn = action;
    }

    public void focusPrompt() {
        prompt.requestFocus();
    }
}
