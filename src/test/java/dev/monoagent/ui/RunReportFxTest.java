package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.Violation;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The window's "Export report" button: one click writes the current run's HTML report (the same
 * {@link dev.monoagent.agent.RunReport} as {@code mono-agent runs report}) under {@code .mono-agent/reports/}; with no
 * log yet it says so instead of writing an empty report; an agent run that starts becomes the current run.
 */
@ExtendWith(ApplicationExtension.class)
class RunReportFxTest {
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
        Files.writeString(ws.resolve("README.md"), "# demo\n");
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
    }

    @Test
    void oneClickWritesTheCurrentRunsReport(FxRobot robot) throws Exception {
        String session = wb.model().runId();
        Path reports = ws.resolve(".mono-agent/reports");

        // nothing ran yet: a clear message, no file
        robot.clickOn("#export-report");
        WorkbenchRobot.waitUntil(10, () -> wb.model().messageProperty().get().startsWith("No report yet"));
        assertTrue(wb.model().messageProperty().get().contains(session), wb.model().messageProperty().get());
        assertFalse(Files.exists(reports), "no report without a run log");

        // the session's console calls are in its log: one click, one self-contained report
        writeLog(session, "c-1", "<script>alert(document.cookie)</script>");
        robot.clickOn("#export-report");
        Path file = reports.resolve("run-" + session + "-report.html");
        WorkbenchRobot.waitUntil(10, () -> Files.isRegularFile(file));
        String html = Files.readString(file);
        assertTrue(html.contains("<td>c-1</td>") && html.contains("<td>observed</td><td>write</td>"), html);
        assertTrue(html.contains("&lt;script&gt;alert(document.cookie)&lt;/script&gt;"), "escaped output");
        assertFalse(Pattern.compile("(?i)<script").matcher(html).find(), "live script in the report");
        WorkbenchRobot.waitUntil(10, () -> wb.model().messageProperty().get().contains(file.toString()));

        // an agent run that starts is the current run from then on
        writeLog("agent-7", "c-9", "done");
        robot.interact(() -> wb.model().events().accept(new Event.RunStarted(Instant.now(), "agent-7",
                ws.toString())));
        WorkbenchRobot.waitUntil(10, () -> "agent-7".equals(wb.model().currentRunProperty().get()));
        robot.clickOn("#export-report");
        Path agent = reports.resolve("run-agent-7-report.html");
        WorkbenchRobot.waitUntil(10, () -> Files.isRegularFile(agent));
        assertTrue(Files.readString(agent).contains("<td>c-9</td>"));
    }

    /** A run log as the service writes it ({@code EventJson} lines after a header). */
    private void writeLog(String runId, String callId, String output) throws Exception {
        Instant t = Instant.now();
        Path log = Files.createDirectories(ws.resolve(".mono-agent/runs").resolve(runId)).resolve("events.jsonl");
        List<Event> events = List.of(
                new Event.RunHeader(t, runId, Map.of("workspace", ws.toString(), "mode", "native"),
                        new Event.EngineFingerprint("0.0.78", "abc123", "managed"), new Event.LastCheck(true, t)),
                new Event.ToolCallStarted(t, runId, callId, "Bash", "{\"command\":\"cat evil.txt\"}"),
                new Event.ViolationObserved(t, new Violation(t, Violation.Tier.OBSERVED, Violation.Kind.WRITE, runId,
                        callId, "Bash", "cat evil.txt", ws.resolve(".env").toString(), "write denied")),
                new Event.ToolCallFinished(t.plusMillis(40), runId, callId, "Bash", ToolOutcome.OK, output,
                        JsonNodeFactory.instance.objectNode().put("exitCode", 0), 40),
                new Event.RunFinished(t.plusMillis(50), runId, RunStatus.COMPLETED));
        StringBuilder b = new StringBuilder();
        events.forEach(e -> b.append(EventJson.line(e)).append('\n'));
        Files.writeString(log, b);
        dev.monoagent.common.TestSeals.seal(ws, log);
    }
}
