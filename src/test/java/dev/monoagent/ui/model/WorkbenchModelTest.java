package dev.monoagent.ui.model;

import java.util.List;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.ui.FakeSandbox;
import dev.monoagent.ui.task.DirectTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The panels working together through the one event stream, as the reviewer uses them without any model. */
class WorkbenchModelTest {
    @TempDir
    Path ws;

    private FakeSandbox fake;
    private WorkbenchModel m;

    @BeforeEach
    void setUp() {
        fake = new FakeSandbox(ws);
        m = new WorkbenchModel(ws, fake, fake, new DirectTaskExecutor());
        m.start();
    }

    private void runCommand(String cmd) {
        m.commandConsole().inputProperty().set(cmd);
        m.commandConsole().submit();
    }

    @Test
    void inspectorLoadsTheWorkspacesRunLogHistoryAndMarksThisSessionsRows() throws Exception {
        // an earlier session's run log on disk
        Violation old = new Violation(java.time.Instant.parse("2026-11-01T10:00:00Z"), Violation.Tier.DETECTED,
                Violation.Kind.WRITE, "old-run", "old-call", "Bash", "echo x > .env.local", ws + "/.env.local",
                "protected file changed");
        Path log = java.nio.file.Files.createDirectories(ws.resolve(".mono-agent/runs/old-run")).resolve("events.jsonl");
        java.nio.file.Files.writeString(log, dev.monoagent.common.EventJson.line(
                new dev.monoagent.common.Event.ViolationObserved(old.time(), old)) + "\n{torn line\n");
        dev.monoagent.common.TestSeals.seal(ws, log);
        WorkbenchModel fresh = new WorkbenchModel(ws, fake, fake, new DirectTaskExecutor());
        fresh.start();
        assertEquals(List.of(old), List.copyOf(fresh.violations().rows()));
        assertFalse(fresh.violations().inSession(old), "history rows are not this session's");
        fresh.commandConsole().inputProperty().set("echo x >> .env");
        fresh.commandConsole().submit();
        assertEquals(2, fresh.violations().rows().size());
        Violation live = fresh.violations().rows().get(1);
        assertTrue(fresh.violations().inSession(live), "this session's rows are marked");
        assertEquals(old, fresh.violations().rows().get(0), "history first, oldest first");
    }

    @Test
    void deniedWriteBecomesViolationRowLinkedToItsTranscriptCard() {
        runCommand("echo x >> .env");
        assertEquals(1, m.violations().rows().size());
        Violation v = m.violations().rows().get(0);
        assertEquals(".env", v.target());
        assertEquals(Violation.Kind.WRITE, v.kind());
        ToolCard card = m.transcript().card(v.callId());
        assertNotNull(card);
        assertEquals("exit 1", card.statusProperty().get());
        assertEquals(v, card.violations().get(0));
        assertTrue(card.outputLines().contains("bash: .env: Read-only file system"));

        m.tabProperty().set(WorkbenchModel.Tab.CONSOLE);
        m.violations().select(v);
        m.violations().jumpToCall();
        assertEquals(WorkbenchModel.Tab.TRANSCRIPT, m.tabProperty().get());
        assertEquals(card, m.transcript().revealedProperty().get());
        assertTrue(m.commandConsole().lines().stream()
                .anyMatch(l -> l.kind() == ConsoleLine.Kind.VIOLATION && l.text().contains(".env")));
    }

    @Test
    void replStatePersistsAcrossEvaluations() {
        m.replConsole().inputProperty().set("const n = 40");
        m.replConsole().submit();
        m.replConsole().inputProperty().set("n + 2");
        m.replConsole().submit();
        var lines = m.replConsole().lines();
        assertEquals("42", lines.get(lines.size() - 1).text());
        assertEquals("> n + 2", lines.get(lines.size() - 2).text());
    }

    @Test
    void replRestartDropsState() {
        m.replConsole().inputProperty().set("const n = 40");
        m.replConsole().submit();
        m.replConsole().restart();
        m.replConsole().inputProperty().set("n + 2");
        m.replConsole().submit();
        var last = m.replConsole().lines().get(m.replConsole().lines().size() - 1);
        assertEquals(ConsoleLine.Kind.ERROR, last.kind());
        assertTrue(last.text().contains("n is not defined"));
    }

    @Test
    void unavailableEngineFailsClosedInConsoleAndBadge() {
        m.sandbox().check();
        assertEquals(Badge.Level.ENFORCING, m.sandbox().badgeProperty().get().level());
        fake.setAvailable(false);
        assertEquals(Badge.Level.BLOCKED, m.sandbox().badgeProperty().get().level());
        runCommand("echo hi");
        var last = m.commandConsole().lines().get(m.commandConsole().lines().size() - 1);
        assertEquals(ConsoleLine.Kind.ERROR, last.kind());
        assertEquals("sandbox_prepare_failed: " + ExecOutcome.FAIL_CLOSED_TEXT, last.text());
        assertEquals("blocked", m.sandbox().snapshotProperty().get().effective().wire());
    }

    @Test
    void consoleCallAppearsAsCardAndStaysQuietWhenOk() {
        runCommand("echo hello");
        ToolCard c = (ToolCard) m.transcript().entries().stream().filter(e -> e instanceof ToolCard).findFirst()
                .orElseThrow();
        assertEquals("Bash", c.tool());
        assertEquals("{\"command\":\"echo hello\"}", c.args());
        assertEquals("ok", c.statusProperty().get());
        assertEquals("hello", c.outputLines().get(0));
        assertFalse(m.commandConsole().busyProperty().get());
        assertEquals("$ echo hello", m.commandConsole().lines().get(0).text());
        assertEquals("hello", m.commandConsole().lines().get(1).text());
    }

    @Test
    void exportWritesCsvOrJsonByExtension() throws Exception {
        runCommand("echo x > .env.local");
        Path csv = ws.resolve("v.csv");
        Path json = ws.resolve("v.json");
        m.exportViolations(csv, p -> { });
        m.exportViolations(json, p -> { });
        assertTrue(Files.readString(csv).startsWith("time,tier,kind,target,tool,callId,command,reason,runId"));
        assertTrue(Files.readString(csv).contains(".env.local"));
        assertTrue(Files.readString(json).contains("\"target\" : \".env.local\""));
    }

    @Test
    void openingAFileSwitchesToTheViewer() throws Exception {
        Files.writeString(ws.resolve("a.js"), "const a = 1;\n");
        m.openFile(new FileEntry(ws.resolve("a.js"), "a.js", false, false, 13));
        assertEquals(WorkbenchModel.Tab.FILE, m.tabProperty().get());
        assertEquals("const a = 1;\n", m.viewer().textProperty().get());
        assertEquals("js", m.viewer().languageProperty().get());
    }
}
