package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.AgentService;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.sandbox.HostEnv;
import dev.monoagent.sandbox.PolicyBaseline;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
 * Issue 9, item 1 (defence in depth), the window's half: a config weaker than the one last accepted (the agent may
 * have edited it) opens a dialog that lists each widening; its default button keeps it refused, so Enter never
 * weakens the sandbox, and the refusal is logged. Accepting it (a deliberate click) makes it the new baseline.
 */
@ExtendWith(ApplicationExtension.class)
class WeakerPolicyDialogFxTest {
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

    private static LoadedConfig config(Path ws, Enums.NetworkMode net) {
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(Enums.SandboxMode.NATIVE, new MonoConfig.Network(net, List.of()),
                List.of("."), List.of("."), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Enums.Fallback.FAIL_CLOSED, false);
        MonoConfig d = MonoConfig.DEFAULTS;
        MonoConfig mc = new MonoConfig(d.agent(), d.runtime(), d.providers(), d.context(), MonoConfig.Tools.DEFAULTS,
                s, d.memory(), d.processJobs(), d.monitors());
        return new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, mc, Map.of(), List.of(), Map.of());
    }

    /** Runs the window's gate on the FX thread (its dialog waits there) and returns its answer later. */
    private CompletableFuture<Boolean> gate(AgentService service) {
        CompletableFuture<Boolean> out = new CompletableFuture<>();
        Platform.runLater(() -> out.complete(WorkbenchApp.policyAccepted(service, new FxDialogService(stage))));
        return out;
    }

    private static DialogPane dialog(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> robot.lookup(".dialog-pane").tryQuery().isPresent());
        return robot.lookup(".dialog-pane").queryAs(DialogPane.class);
    }

    @Test
    void aWeakerPolicyNeedsADeliberateClickAndEnterKeepsItRefused(FxRobot robot) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        // the accepted baseline: no network
        PolicyBaseline.accept(Sandbox.policyFor(config(ws, Enums.NetworkMode.NONE), HostEnv.detect()),
                PolicyBaseline.check(Sandbox.policyFor(config(ws, Enums.NetworkMode.NONE), HostEnv.detect())),
                "first use", e -> { });
        LoadedConfig weaker = config(ws, Enums.NetworkMode.ALL);
        try (AgentService service = AgentService.withOpener(weaker, HostEnv.detect(), sink -> {
            throw new IllegalStateException("the gate must not need the engine");
        })) {
            CompletableFuture<Boolean> first = gate(service);
            DialogPane pane = dialog(robot);
            assertTrue(pane.getContentText().contains("sandbox.network.mode"), pane.getContentText());
            Button keep = (Button) pane.getButtonTypes().stream().map(pane::lookupButton)
                    .filter(b -> ((Button) b).getText().equals("Keep it refused")).findFirst().orElseThrow();
            assertTrue(keep.isDefaultButton(), "the safe choice is the default button");
            robot.type(KeyCode.ENTER);
            assertFalse(first.get(20, TimeUnit.SECONDS), "Enter kept the weaker policy refused");
            assertTrue(PolicyBaseline.check(service.policy()) instanceof PolicyBaseline.Decision.Weaker,
                    "still weaker than the accepted baseline");
            String log = Files.readString(ws.resolve(".mono-agent/policy-changes.jsonl"));
            assertTrue(log.contains("refused"), log);

            CompletableFuture<Boolean> second = gate(service);
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> robot.lookup("Accept the weaker policy")
                    .queryAll().stream().anyMatch(n -> n.isVisible() && n.getScene() != null
                            && n.getScene().getWindow() != null && n.getScene().getWindow().isShowing()));
            robot.clickOn(robot.lookup("Accept the weaker policy").queryAll().stream().filter(n -> n.isVisible()
                    && n.getScene().getWindow().isShowing()).findFirst().orElseThrow());
            assertTrue(second.get(20, TimeUnit.SECONDS));
            assertEquals(PolicyBaseline.Decision.Same.class, PolicyBaseline.check(service.policy()).getClass(),
                    "accepted: the weaker policy is the new baseline");
        }
    }
}
