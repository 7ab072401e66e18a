package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.model.auth.CodexAuthSettings;
import dev.monoagent.model.auth.FakeAuthServer;
import dev.monoagent.ui.view.SignInControl;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The window's "Sign in" runs the real browser flow against a fake authorization server: callback and paste. */
@ExtendWith(ApplicationExtension.class)
class SignInFxTest {
    @TempDir
    static Path tmp;

    private FakeAuthServer fake;
    private Path dir;
    private final HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @Start
    void start(Stage stage) throws Exception {
        fake = new FakeAuthServer();
        dir = Files.createTempDirectory(tmp, "signin");
        CodexAuth auth = new CodexAuth(new CodexAuthSettings(fake.issuer(), FakeAuthServer.CLIENT_ID, 0,
                dir.resolve("cfg"), dir.resolve("codex")), Clock.systemUTC());
        stage.setScene(new Scene(new SignInControl(auth, Map.of()), 400, 60));
        stage.show();
    }

    @AfterEach
    void tearDown() {
        fake.close();
        WorkbenchRobot.closeStages();
    }

    private void waitForState(FxRobot robot, String text) throws Exception {
        Label state = robot.lookup("#sign-in-state").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> text.equals(state.getText()));
    }

    private URI approve(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#sign-in-url").tryQuery().isPresent());
        String url = robot.lookup("#sign-in-url").queryAs(TextField.class).getText();
        HttpResponse<String> r = browser.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(302, r.statusCode());
        return URI.create(r.headers().firstValue("Location").orElseThrow());
    }

    @Test
    void signInThroughTheBrowserCallback(FxRobot robot) throws Exception {
        waitForState(robot, "ChatGPT: missing");
        robot.clickOn("#sign-in");
        URI redirect = approve(robot);
        URI loop = new URI("http", null, "127.0.0.1", redirect.getPort(), redirect.getPath(), redirect.getQuery(),
                null);
        HttpResponse<String> page = browser.send(HttpRequest.newBuilder(loop).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(302, page.statusCode(), page.body());
        waitForState(robot, "ChatGPT: present");
        assertTrue(robot.lookup("#sign-in-url").tryQuery().isEmpty(), "the dialog closed");
    }

    @Test
    void signInByPastingTheRedirectAddress(FxRobot robot) throws Exception {
        waitForState(robot, "ChatGPT: missing");
        robot.clickOn("#sign-in");
        URI redirect = approve(robot);
        TextField paste = robot.lookup("#sign-in-paste").queryAs(TextField.class);
        robot.interact(() -> paste.setText("http://localhost:1455/auth/callback?code=x&state=forged"));
        robot.clickOn("#sign-in-submit");
        Label message = robot.lookup("#sign-in-message").queryAs(Label.class);
        assertTrue(message.getText().startsWith("State mismatch"), message.getText());
        robot.interact(() -> paste.setText(redirect.toString()));
        robot.clickOn("#sign-in-submit");
        waitForState(robot, "ChatGPT: present");
        assertEquals(1, fake.exchanges.get());
    }

    @Test
    void theWorkbenchStatusBarCarriesTheSignInControl(FxRobot robot) throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        FakeSandbox sandbox = new FakeSandbox(ws);
        dev.monoagent.ui.task.FxTaskExecutor executor = new dev.monoagent.ui.task.FxTaskExecutor();
        Stage[] stage = new Stage[1];
        try {
            robot.interact(() -> {
                stage[0] = new Stage();
                Workbench.open(stage[0], ws, sandbox, sandbox, executor, new WorkbenchFxTest.RecordingDialogs(),
                        false, null);
                stage[0].show();
            });
            assertTrue(robot.lookup("#sign-in-control").tryQuery().isPresent(), "Sign in is in the window");
            Label state = robot.lookup("#sign-in-control #sign-in-state").queryAs(Label.class);
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> state.getText().startsWith("ChatGPT: "));
        } finally {
            robot.interact(() -> stage[0].close());
            executor.shutdown();
        }
    }
}
