package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.ConfigLoader;
import dev.monoagent.memory.MemoryStore;
import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.port.MemoryPort;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The Memory tab in the real window (headless): today's journal, a search with source file and line, the status. */
@ExtendWith(ApplicationExtension.class)
class MemoryTabFxTest {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    @TempDir
    static Path tmp;

    private Path ws;
    private Workbench wb;
    private FxTaskExecutor executor;

    @Start
    void start(Stage stage) throws Exception {
        ws = Files.createTempDirectory(tmp, "ws");
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"memory\":{\"mode\":\"lite\"}}");
        try (MemoryStore m = MemoryStore.open(dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null, Map.of())))) {
            m.remember("The webhook retries redirect loops forever.");
            m.remember("Billing rounds negative amounts toward zero.");
        }
        FakeSandbox fake = new FakeSandbox(ws);
        executor = new FxTaskExecutor();
        wb = Workbench.open(stage, ws, fake, fake, executor, new WorkbenchFxTest.RecordingDialogs(), false, null);
        stage.setWidth(1280);
        stage.setHeight(800);
        stage.show();
    }

    @AfterEach
    void tearDown() {
        executor.shutdown();
        WorkbenchRobot.closeStages();
    }

    @Test
    void todaysJournalAndSearchWithSourceLines(FxRobot robot) throws Exception {
        assertEquals("Memory: not opened yet.", wb.model().memory().statusProperty().get(), "not opened at start-up");
        robot.clickOn("Memory");
        ListView<MemoryPort.Row> today = robot.lookup("#memory-today").queryAs(ListView.class);
        WorkbenchRobot.waitUntil(20, () -> today.getItems().size() == 2);
        String day = LocalDate.now(ZoneOffset.UTC).toString();
        assertEquals("daily/" + day + ".md:1", today.getItems().get(0).source());
        Label status = robot.lookup("#memory-status").queryAs(Label.class);
        assertTrue(status.getText().startsWith("Memory lite · 2 entries · index ok"), status.getText());

        robot.clickOn("#memory-query").write("negative amounts").type(javafx.scene.input.KeyCode.ENTER);
        ListView<MemoryPort.Row> results = robot.lookup("#memory-results").queryAs(ListView.class);
        WorkbenchRobot.waitUntil(20, () -> results.getItems().size() == 1);
        assertEquals("Billing rounds negative amounts toward zero.", results.getItems().get(0).text());
        assertEquals("daily/" + day + ".md:5", results.getItems().get(0).source());
        Label found = robot.lookup("#memory-found").queryAs(Label.class);
        assertEquals("1 result(s), keyword-only: memory.mode is lite", found.getText());
        assertEquals(WorkbenchModel.Tab.MEMORY, wb.model().tabProperty().get());
    }
}
