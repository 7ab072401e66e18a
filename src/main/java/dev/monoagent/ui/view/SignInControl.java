package dev.monoagent.ui.view;

import dev.monoagent.model.auth.AuthStatus;
import dev.monoagent.model.auth.BrowserLogin;
import dev.monoagent.model.auth.BrowserOpener;
import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.model.auth.CodexTokens;
import dev.monoagent.model.auth.CredentialState;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.kordamp.ikonli.materialdesign2.MaterialDesignA;

/**
 * The window's ChatGPT sign-in: the credential state ({@code present|expired|missing}) in the status bar and a
 * "Sign in" button that runs the same browser flow as {@code mono-agent auth login openai-codex} (loopback callback,
 * or paste the redirect address into the dialog). Blocking work runs on a daemon thread, never on the FX thread.
 */
public final class SignInControl extends HBox {
    private static final Duration WAIT = Duration.ofMinutes(10);

    private final CodexAuth auth;
    private final Map<String, String> env;
    private final Label state = new Label();
    private final Button signIn = new Button("Sign in", Icons.of(MaterialDesignA.ACCOUNT_KEY, "status-icon"));
    private Stage dialog;
    private Runnable onSignedIn = () -> { };

    /**
     * @param auth the sign-in service (the same one the CLI uses)
     * @param env  environment for choosing the browser ({@code BROWSER}, {@code DISPLAY})
     */
    public SignInControl(CodexAuth auth, Map<String, String> env) {
        super(6);
        this.auth = auth;
        this.env = Map.copyOf(env);
        state.setId("sign-in-state");
        signIn.setId("sign-in");
        signIn.getStyleClass().add("flat");
        signIn.setOnAction(e -> start());
        getChildren().addAll(state, signIn);
        refresh();
    }

    /** Runs (on the FX thread) after a sign-in completed. */
    public void setOnSignedIn(Runnable r) {
        onSignedIn = r;
    }

    /** Opens the sign-in dialog (the button's action; the prompt box offers it too). */
    public void signIn() {
        start();
    }

    /** Re-reads the store (off the FX thread) and shows the state. */
    public void refresh() {
        background(() -> {
            String text;
            String tip;
            try {
                AuthStatus s = auth.status();
                text = "ChatGPT: " + s.state().word();
                tip = String.join("\n", s.details());
                boolean present = s.state() == CredentialState.PRESENT;
                Platform.runLater(() -> signIn.setText(present ? "Sign in again" : "Sign in"));
            } catch (RuntimeException e) {
                text = "ChatGPT: unreadable";
                tip = e.getMessage();
            }
            String t = text;
            String tt = tip;
            Platform.runLater(() -> {
                state.setText(t);
                state.setTooltip(new Tooltip(tt));
            });
        });
    }

    private void start() {
        if (dialog != null && dialog.isShowing()) {
            dialog.toFront();
            return;
        }
        BrowserLogin login = auth.startBrowserLogin();
        TextField url = new TextField(login.authorizeUrl().toString());
        url.setId("sign-in-url");
        url.setEditable(false);
        TextField paste = new TextField();
        paste.setId("sign-in-paste");
        paste.setPromptText(login.redirectUri() + "?code=…&state=…");
        Label message = new Label(login.callbackListening() ? "Waiting for the browser…"
                : "The local callback is not available (" + login.callbackProblem() + "); paste the address.");
        message.setId("sign-in-message");
        message.setWrapText(true);
        Button submit = new Button("Submit");
        submit.setId("sign-in-submit");
        Button cancel = new Button("Cancel");
        cancel.setId("sign-in-cancel");
        Consumer<String> show = m -> Platform.runLater(() -> message.setText(m));
        submit.setOnAction(e -> {
            try {
                login.paste(paste.getText());
                message.setText("Exchanging the code…");
            } catch (IllegalArgumentException ex) {
                message.setText(ex.getMessage());
            }
        });
        paste.setOnAction(submit.getOnAction());
        HBox pasteRow = new HBox(6, paste, submit);
        HBox.setHgrow(paste, Priority.ALWAYS);
        VBox box = new VBox(8, new Label("Approve the sign-in with your ChatGPT account in the browser. On another "
                + "machine, open this address there:"), url, new Label("If the browser ends on a page that does not "
                + "load, paste its address here:"), pasteRow, message, cancel);
        box.setStyle("-fx-padding: 12;");
        box.setPrefWidth(560);
        dialog = new Stage();
        dialog.setTitle("Sign in to ChatGPT (openai-codex)");
        if (getScene() != null && getScene().getWindow() != null) {
            dialog.initOwner(getScene().getWindow());
        }
        dialog.setScene(new Scene(box));
        Stage d = dialog;
        cancel.setOnAction(e -> {
            login.close();
            d.close();
        });
        d.setOnHidden(e -> login.close());
        d.show();
        background(() -> {
            String note = BrowserOpener.open(env, login.authorizeUrl());
            if (note != null && login.callbackListening()) {
                show.accept(note + " Waiting for the browser…");
            }
        });
        background(() -> {
            try {
                CodexTokens t = login.await(WAIT);
                Platform.runLater(() -> {
                    d.close();
                    refresh();
                    onSignedIn.run();
                });
                show.accept("Signed in as " + (t.email() != null ? t.email() : t.accountId()) + ".");
            } catch (java.util.concurrent.CancellationException e) {
                // cancelled by the user
            } catch (Exception e) {
                show.accept("Sign-in failed: " + e.getMessage());
            }
        });
    }

    private static void background(Runnable r) {
        dev.monoagent.common.TaskExecutor.shared().submit("sign-in", () -> {
            r.run();
            return null;
        });
    }
}
