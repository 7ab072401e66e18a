package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.AgentService;
import dev.monoagent.common.Violation;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.model.FakeModelServer;
import dev.monoagent.model.Reply;
import dev.monoagent.model.Scripts;
import dev.monoagent.host.HostEnv;
import dev.monoagent.ui.model.MessageEntry;
import dev.monoagent.ui.model.PromptModel;
import dev.monoagent.ui.model.ToolCard;
import dev.monoagent.ui.model.TranscriptEntry;
import dev.monoagent.ui.port.EngineSandbox;
import dev.monoagent.ui.port.ServiceAgent;
import dev.monoagent.ui.port.ToolsRunner;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javafx.collections.ListChangeListener;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The prompt box drives the agent loop, headless on Monocle: a scripted model on a local fake Responses server
 * (configured through {@code providers.openai.baseUrl}, as README's offline try-out does) over the REAL srt sandbox.
 * The reviewer types a prompt and presses Enter; the answer streams into the transcript and the tool cards appear as
 * the calls happen (Bash {@code ls}, NodeRepl {@code const n = 40} then {@code n + 2} = 42, a refused write to
 * {@code .env} with its violation on the card and in the inspector). Stop aborts a slow model stream.
 */
@ExtendWith(ApplicationExtension.class)
class PromptBoxFxTest {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    static final String KEY = "sk-test-prompt-box";
    private static Path root;
    private static HostEnv env;
    private static FakeModelServer fake;
    private static int count;

    private Path ws;
    private AgentService service;
    private FxTaskExecutor executor;
    private Workbench wb;

    @BeforeAll
    static void engine() throws Exception {
        // proving the engine is not the window's work and can exceed TestFX's setup timeout on a loaded machine
        root = Files.createTempDirectory("mono-ui-prompt-").toRealPath();
        env = RealEngine.env(root);
        fake = FakeModelServer.start();
    }

    @AfterAll
    static void stopServer() {
        fake.close();
    }

    @Start
    void start(Stage stage) throws Exception {
        ws = Files.createDirectories(root.resolve("ws-" + ++count));
        Files.writeString(ws.resolve("README.md"), "# demo\nA repo for a security reviewer.\n");
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "openai:gpt-test", "retry": {"primaryAttempts": 1}},
                 "providers": {"openai": {"baseUrl": "%s"}},
                 "memory": {"mode": "lite"},
                 "sandbox": {"mode": "native", "network": {"mode": "localhost"}, "fallback": "fail-closed"}}
                """.formatted(fake.baseUrl()));
        LoadedConfig cfg = dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, Map.of("OPENAI_API_KEY", KEY)));
        service = AgentService.of(cfg, env);
        executor = new FxTaskExecutor();
        wb = Workbench.open(stage, ws, new EngineSandbox(service), new ToolsRunner(service), new ServiceAgent(service),
                executor, new WorkbenchFxTest.RecordingDialogs(), false, null);
        stage.setWidth(1280);
        stage.setHeight(800);
        stage.show();
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
        WorkbenchRobot.closeStages();
    }

    /** Every text the transcript's assistant messages showed, in order (to see the answer grow). */
    private List<String> recordAssistantTexts() {
        List<String> seen = new CopyOnWriteArrayList<>();
        wb.model().transcript().entries().addListener((ListChangeListener<TranscriptEntry>) c -> {
            while (c.next()) {
                for (TranscriptEntry e : c.getAddedSubList()) {
                    if (e instanceof MessageEntry m && m.role() == MessageEntry.Role.ASSISTANT) {
                        m.textProperty().addListener((o, a, b) -> seen.add(b));
                    }
                }
            }
        });
        return seen;
    }

    private static void typePrompt(FxRobot robot, String text) {
        robot.clickOn("#prompt");
        robot.write(text);
        robot.type(KeyCode.ENTER);
    }

    @Test
    void aPromptTypedInTheBoxStreamsTheAnswerAndShowsTheToolCards(FxRobot robot) throws Exception {
        String answer = "n + 2 is 42; the listing shows README.md and the write to .env was refused.";
        fake.enqueue(
                Reply.sse(Scripts.responses().reasoning("Plan: list the files first.\n", "Then evaluate n.")
                        .text("Let me look ", "at the repo.")
                        .toolCall("call_ls", "Bash", "{\"command\":", "\"ls\"}").completed(10, 5).build()),
                Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.calls(
                        new Scripts.Call("call_n40", "NodeRepl", "{\"code\":\"const n = 40\"}"))),
                Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.calls(
                        new Scripts.Call("call_n42", "NodeRepl", "{\"code\":\"n + 2\"}"))),
                Scripts.turn(Scripts.Wire.RESPONSES, Scripts.Turn.calls(
                        new Scripts.Call("call_env", "Write", "{\"file_path\":\".env\",\"content\":\"PWNED=1\\n\"}"))),
                // the answer arrives in small pieces with pauses: the transcript must show it growing
                Reply.sse(Scripts.responses().text(answer.split("(?<= )")).completed(10, 5).build())
                        .inChunksOf(300).pausing(200)); // long enough to outlast a busy UI thread's frame
        List<String> seen = recordAssistantTexts();
        WorkbenchRobot.waitUntil(20, () -> robot.lookup("#prompt-credential").queryAs(Label.class).getText()
                .startsWith("credentials present"));
        assertEquals("Model: openai:gpt-test", robot.lookup("#prompt-model").queryAs(Label.class).getText());

        typePrompt(robot, "Inspect the repo, run ls, evaluate n in NodeRepl and write .env");
        PromptModel prompt = wb.model().prompt();
        Button send = robot.lookup("#prompt-send").queryAs(Button.class);
        Button stop = robot.lookup("#prompt-stop").queryAs(Button.class);
        WorkbenchRobot.waitUntil(10, () -> prompt.stateProperty().get() != PromptModel.State.IDLE
                || prompt.statusProperty().get().startsWith("Answered"));
        if (prompt.stateProperty().get() != PromptModel.State.IDLE) {
            robot.interact(() -> prompt.textProperty().set("a second prompt"));
            assertTrue(send.isDisabled(), "Send is off while the run is active");
            assertFalse(stop.isDisabled(), "Stop is on while the run is active");
        }
        WorkbenchRobot.waitUntil(180, () -> prompt.stateProperty().get() == PromptModel.State.IDLE);
        String status = prompt.statusProperty().get();
        assertTrue(status.startsWith("Answered in ") && status.endsWith("(5 model turns)."), status);
        assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")), ".env is untouched");

        // the streamed answer: the last assistant message holds it whole, and it was shown growing
        List<MessageEntry> said = wb.model().transcript().entries().stream()
                .filter(e -> e instanceof MessageEntry m && m.role() == MessageEntry.Role.ASSISTANT)
                .map(MessageEntry.class::cast).toList();
        assertEquals("Let me look at the repo.", said.get(0).textProperty().get());
        assertEquals(answer, said.get(said.size() - 1).textProperty().get());
        assertTrue(seen.stream().anyMatch(s -> !s.isEmpty() && answer.startsWith(s) && s.length() < answer.length()),
                "the answer was shown before it was complete: " + seen);
        assertTrue(robot.lookup(".message-assistant").queryAll().stream()
                .anyMatch(n -> answer.equals(((Label) n).getText())), "the answer is on screen");
        assertTrue(robot.lookup(".message-user").queryAll().stream().anyMatch(n -> ((Label) n).getText()
                .equals("Inspect the repo, run ls, evaluate n in NodeRepl and write .env")), "the prompt is on screen");

        // the first turn's reasoning summary: its own muted line, collapsed to its first line until opened
        TranscriptEntry reasoning = wb.model().transcript().entries().stream().filter(e -> e instanceof MessageEntry m
                && m.role() == MessageEntry.Role.REASONING).findFirst().orElseThrow();
        robot.interact(() -> robot.lookup("#transcript").queryAs(javafx.scene.control.ListView.class)
                .scrollTo(reasoning));
        WaitForAsyncUtils.waitForFxEvents();
        javafx.scene.Node summary = robot.lookup(".message-reasoning").query();
        assertTrue(robot.from(summary).lookup(".reasoning-title").queryAs(Label.class).getText()
                .equals("Reasoning summary"));
        assertEquals("Plan: list the files first.", robot.from(summary).lookup(".reasoning-text")
                .queryAs(Label.class).getText());
        robot.clickOn(robot.from(summary).lookup(".reasoning-toggle").queryAs(javafx.scene.control.ToggleButton.class));
        WorkbenchRobot.waitUntil(5, () -> robot.lookup(".reasoning-text").queryAll().stream()
                .anyMatch(n -> "Plan: list the files first.\nThen evaluate n.".equals(((Label) n).getText())));

        // the cards, in the order the calls happened
        List<String> cards = wb.model().transcript().entries().stream().filter(e -> e instanceof ToolCard)
                .map(e -> ((ToolCard) e).callId()).toList();
        assertEquals(List.of("call_ls", "call_n40", "call_n42", "call_env"), cards);
        ToolCard ls = wb.model().transcript().card("call_ls");
        assertEquals("ok", ls.statusProperty().get());
        assertTrue(ls.outputLines().contains("README.md"), ls.outputLines().toString());
        ToolCard n42 = wb.model().transcript().card("call_n42");
        assertEquals("ok", n42.statusProperty().get());
        assertTrue(String.join("\n", n42.outputLines()).contains("42"), n42.outputLines().toString());
        ToolCard write = wb.model().transcript().card("call_env");
        assertEquals("denied_by_policy", write.statusProperty().get());
        assertFalse(write.violations().isEmpty(), "the refusal is on the write's card");
        TableView<Violation> table = robot.lookup("#violations-table").queryAs(TableView.class);
        assertTrue(table.getItems().stream().anyMatch(v -> "call_env".equals(v.callId())), table.getItems() + "");
        robot.interact(() -> wb.model().transcript().reveal("call_env"));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup(".violation-marker").queryAll().stream()
                .anyMatch(n -> ((Button) n).getText().contains(".env")), "the card shows the violation marker");
        robot.interact(() -> prompt.textProperty().set("next"));
        assertFalse(send.isDisabled(), "Send is back once the run ended");
        assertTrue(stop.isDisabled());
    }

    @Test
    void stopAbortsASlowModelStream(FxRobot robot) throws Exception {
        // a few words, then the stream stays open (keep-alive only) until the client goes away
        fake.enqueue(Reply.sse(Scripts.responses().text("Reading ", "slowly").build()).thenHang());
        typePrompt(robot, "Take your time");
        PromptModel prompt = wb.model().prompt();
        WorkbenchRobot.waitUntil(60, () -> wb.model().transcript().entries().stream().anyMatch(e ->
                e instanceof MessageEntry m && m.textProperty().get().equals("Reading slowly")));
        assertEquals(PromptModel.State.RUNNING, prompt.stateProperty().get());
        java.util.concurrent.atomic.AtomicLong pressed = new java.util.concurrent.atomic.AtomicLong();
        robot.lookup("#prompt-stop").queryAs(Button.class).addEventHandler(javafx.event.ActionEvent.ACTION,
                e -> pressed.set(System.nanoTime()));
        robot.clickOn("#prompt-stop");
        assertTrue(fake.awaitClientGone(10_000), "Stop aborted the HTTP stream");
        long abortedMs = (System.nanoTime() - pressed.get()) / 1_000_000;
        assertTrue(abortedMs <= 1000, "the stream was aborted " + abortedMs + " ms after Stop (goal <= 1 s)");
        WorkbenchRobot.waitUntil(10, () -> prompt.stateProperty().get() == PromptModel.State.IDLE);
        long endedMs = (System.nanoTime() - pressed.get()) / 1_000_000;
        assertTrue(prompt.statusProperty().get().startsWith("Stopped after "), prompt.statusProperty().get());
        System.out.println("PromptBoxFxTest: Stop → stream aborted " + abortedMs + " ms, run ended in the window "
                + endedMs + " ms");
    }
}
