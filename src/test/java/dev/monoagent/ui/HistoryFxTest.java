package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.Conversation;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Item;
import dev.monoagent.model.Scripts;
import dev.monoagent.sandbox.TestEngine;
import dev.monoagent.ui.model.MessageEntry;
import dev.monoagent.ui.model.PromptModel;
import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.port.ServiceAgent;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javafx.scene.control.ListView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The window's conversation history, driven with the robot (headless on Monocle) over the real agent service and a
 * scripted model on a local fake Responses server: the History tab lists the workspace's two saved conversations
 * newest first; clicking the older one shows its transcript, and the next prompt typed in the box continues it (the
 * model receives its earlier turns, and the file gains the turn); "New conversation" empties the transcript and the
 * next prompt starts a third conversation.
 */
@ExtendWith(ApplicationExtension.class)
class HistoryFxTest {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    @TempDir
    static Path tmp;

    private Path ws;
    private FakeModelServer fake;
    private AgentService service;
    private FxTaskExecutor executor;
    private Workbench wb;
    private Conversation older;
    private Conversation newer;

    @Start
    void start(Stage stage) throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        older = conversation("Which files hold secrets?", "Only .env does.");
        Thread.sleep(5);
        newer = conversation("List the ports", "8080 and 9090.");
        fake = FakeModelServer.start();
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                 "providers": {"openai": {"baseUrl": "%s"}}, "memory": {"mode": "lite"},
                 "tools": {"allowedTools": []}, "sandbox": {"mode": "off"}}
                """.formatted(fake.baseUrl()));
        LoadedConfig cfg = dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null,
                Map.of("OPENAI_API_KEY", "sk-history")));
        service = AgentService.of(cfg, TestEngine.env());
        executor = new FxTaskExecutor();
        // the window follows the service's bus through its sandbox port, as the application's does
        wb = Workbench.open(stage, ws, new dev.monoagent.ui.port.EngineSandbox(service),
                new dev.monoagent.ui.port.ToolsRunner(service), new ServiceAgent(service), executor,
                new WorkbenchFxTest.RecordingDialogs(), false, null);
        stage.setWidth(1280);
        stage.setHeight(800);
        stage.show();
    }

    private Conversation conversation(String prompt, String answer) {
        Conversation c = Conversation.create(ws);
        c.items().addAll(List.of(new Item.UserText(prompt), new Item.AssistantText(answer)));
        c.save("run-" + prompt.length());
        return c;
    }

    @AfterEach
    void tearDown() {
        if (wb != null) {
            wb.close();
        }
        if (service != null) {
            service.close();
        }
        if (executor != null) {
            executor.shutdown();
        }
        if (fake != null) {
            fake.close();
        }
        WorkbenchRobot.closeStages();
    }

    private List<String> transcriptTexts() {
        return wb.model().transcript().entries().stream().filter(e -> e instanceof MessageEntry)
                .map(e -> ((MessageEntry) e).textProperty().get()).toList();
    }

    private void send(FxRobot robot, String text) throws Exception {
        PromptModel prompt = wb.model().prompt();
        robot.clickOn("#prompt");
        robot.write(text);
        robot.type(KeyCode.ENTER);
        WorkbenchRobot.waitUntil(60, () -> prompt.stateProperty().get() == PromptModel.State.IDLE
                && prompt.statusProperty().get().startsWith("Answered"));
    }

    @Test
    void theHistoryOpensAConversationToContinueItAndStartsANewOne(FxRobot robot) throws Exception {
        robot.clickOn("History");
        ListView<Conversation.Summary> list = robot.lookup("#history-list").queryListView();
        WorkbenchRobot.waitUntil(10, () -> list.getItems().size() == 2);
        assertEquals(List.of(newer.id(), older.id()), list.getItems().stream().map(Conversation.Summary::id)
                .toList(), "newest first");

        // open the older one: its transcript, and the prompt box continues it
        robot.clickOn(robot.from(list).lookup(".list-cell").match(n -> n instanceof javafx.scene.control.ListCell<?> c
                && c.getText() != null && c.getText().startsWith("Which files hold secrets?\n")).queryAs(
                javafx.scene.Node.class));
        WorkbenchRobot.waitUntil(10, () -> wb.model().tabProperty().get() == WorkbenchModel.Tab.TRANSCRIPT);
        WorkbenchRobot.waitUntil(10, () -> transcriptTexts().contains("Only .env does."));
        assertTrue(transcriptTexts().contains("Which files hold secrets?"), transcriptTexts().toString());
        assertEquals(older.id(), wb.model().prompt().conversationProperty().get());
        assertTrue(robot.lookup(".message-assistant").queryAll().stream()
                .anyMatch(n -> "Only .env does.".equals(((javafx.scene.control.Label) n).getText())),
                "the old answer is on screen");

        fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.text("Also .env.local.")));
        send(robot, "And which others?");
        String input = fake.request(0).json().path("input").toString();
        assertTrue(input.contains("Which files hold secrets?") && input.contains("Only .env does."),
                "the model got the earlier turns: " + input);
        List<Item> items = Conversation.load(ws, older.id()).items();
        assertEquals(4, items.size(), items.toString());
        assertTrue(transcriptTexts().contains("Also .env.local."), transcriptTexts().toString());

        // the list follows the run: the continued conversation is the newest now
        robot.clickOn("History");
        WorkbenchRobot.waitUntil(10, () -> !list.getItems().isEmpty() && list.getItems().get(0).id()
                .equals(older.id()));

        robot.clickOn("#history-new");
        WorkbenchRobot.waitUntil(10, () -> wb.model().transcript().entries().isEmpty());
        fake.enqueue(Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.text("Fresh answer.")));
        send(robot, "A new question");
        String fresh = wb.model().prompt().conversationProperty().get();
        assertNotEquals(older.id(), fresh);
        assertNotEquals(newer.id(), fresh);
        assertEquals(3, Conversation.list(ws).size());
        assertTrue(!fake.request(1).json().path("input").toString().contains("Which files hold secrets?"),
                "a new conversation carries no earlier turns");
    }
}
