package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.AgentService;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.Enums;
import dev.monoagent.host.HostEnv;
import dev.monoagent.ui.model.SandboxPanelModel;
import dev.monoagent.ui.port.EngineSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.DialogPane;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The window's half of the trust boundary: settings that arrived with the repository are listed in a dialog on open;
 * its default button keeps them ignored (Enter never widens the sandbox) and the sandbox panel then says what was
 * ignored; a deliberate click accepts them, records them outside the workspace and puts them in effect before the
 * engine opens.
 */
@ExtendWith(ApplicationExtension.class)
class TrustDialogFxTest {
    @TempDir
    Path tmp;

    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        stage.setScene(new Scene(new StackPane(), 300, 100));
        stage.show();
    }

    @AfterEach
    void tearDown() {
        WorkbenchRobot.closeStages();
    }

    /** Runs the window's question on the FX thread (its dialog waits there). */
    private CompletableFuture<Void> ask(AgentService service) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        Platform.runLater(() -> {
            WorkbenchApp.askAboutWorkspaceSettings(service, new FxDialogService(stage));
            out.complete(null);
        });
        return out;
    }

    private static DialogPane dialog(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> robot.lookup(".dialog-pane").tryQuery().isPresent());
        return robot.lookup(".dialog-pane").queryAs(DialogPane.class);
    }

    private static AgentService service(Path ws) throws Exception {
        return AgentService.withOpener(ConfigLoader.load(new ConfigLoader.Options(ws, null, null, System.getenv())),
                HostEnv.detect(), sink -> {
                    throw new IllegalStateException("the question comes before the engine");
                });
    }

    @Test
    void enterKeepsTheRepositorysSettingsIgnoredAndAClickAcceptsThem(FxRobot robot) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"sandbox\":{\"network\":{\"mode\":\"all\"}}}");
        try (AgentService service = service(ws)) {
            assertEquals(Enums.NetworkMode.NONE, service.config().config().sandbox().network().mode());
            ask(service);
            DialogPane pane = dialog(robot);
            assertTrue(pane.getContentText().contains("sandbox.network = all"), pane.getContentText());
            Button keep = (Button) pane.getButtonTypes().stream().map(pane::lookupButton)
                    .filter(b -> ((Button) b).getText().equals("Keep them ignored")).findFirst().orElseThrow();
            assertTrue(keep.isDefaultButton(), "the safe choice is the default button");
            robot.type(KeyCode.ENTER);
            WaitForAsyncUtils.waitForFxEvents();
            assertEquals(Enums.NetworkMode.NONE, service.config().config().sandbox().network().mode(),
                    "Enter kept the repository's network setting ignored");
            SandboxPanelModel panel = new SandboxPanelModel(new EngineSandbox(service), null, e -> { });
            assertTrue(panel.noticeProperty().get().contains("sandbox.network=all")
                    && panel.noticeProperty().get().contains("mono-agent trust"), panel.noticeProperty().get());
        }
        try (AgentService service = service(ws)) {
            CompletableFuture<Void> second = ask(service);
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> robot.lookup("Accept these settings")
                    .queryAll().stream().anyMatch(n -> n.isVisible() && n.getScene() != null
                            && n.getScene().getWindow() != null && n.getScene().getWindow().isShowing()));
            robot.clickOn(robot.lookup("Accept these settings").queryAll().stream().filter(n -> n.isVisible()
                    && n.getScene().getWindow().isShowing()).findFirst().orElseThrow());
            second.get(20, TimeUnit.SECONDS);
            assertEquals(Enums.NetworkMode.ALL, service.config().config().sandbox().network().mode(),
                    "accepted before the engine opened: in effect");
            assertTrue(service.config().trust().settled());
            SandboxPanelModel panel = new SandboxPanelModel(new EngineSandbox(service), null, e -> { });
            assertTrue(panel.noticeProperty().get().contains("network all"), panel.noticeProperty().get());
        }
        try (var files = Files.walk(ws)) {
            assertTrue(files.noneMatch(f -> f.toString().contains("trust")), "nothing recorded in the workspace");
        }
    }
}
