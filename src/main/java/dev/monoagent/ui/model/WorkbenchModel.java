package dev.monoagent.ui.model;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.ui.port.SandboxPort;
import dev.monoagent.ui.port.ToolRunner;
import dev.monoagent.ui.task.EventPump;
import dev.monoagent.ui.task.TaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.function.Consumer;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The workbench's root view-model: owns the panel models, the session's run id and the one event pump through which
 * every event (console calls, engine feed, checks) reaches the panels in order on the UI thread. Also answers the
 * control endpoint's sandbox block from the last snapshot (thread-safe copy).
 */
public final class WorkbenchModel {
    /** Centre tabs. */
    public enum Tab { FILE, TRANSCRIPT, HISTORY, REPL, CONSOLE, MEMORY }

    private final Path workspace;
    private final String runId;
    private final TaskExecutor executor;
    private final EventPump pump;
    private final SandboxPort sandboxPort;
    private final RepoTreeModel tree;
    private final FileViewerModel viewer;
    private final TranscriptModel transcript;
    private final PromptModel prompt;
    private final ViolationsModel violations = new ViolationsModel();
    private final SandboxPanelModel sandbox;
    private final ConsoleModel commandConsole;
    private final ConsoleModel replConsole;
    private final MemoryModel memory;
    private final HistoryModel history;
    private final ObjectProperty<Tab> tab = new SimpleObjectProperty<>(Tab.TRANSCRIPT);
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    /** The run "Export report" exports: the session's, or the last run that started (an agent run). */
    private final ReadOnlyStringWrapper currentRun = new ReadOnlyStringWrapper();

    /** A window without an agent loop behind its prompt box. */
    public WorkbenchModel(Path workspace, SandboxPort sandboxPort, ToolRunner tools, TaskExecutor executor) {
        this(workspace, sandboxPort, tools, dev.monoagent.ui.port.AgentPort.NONE, executor);
    }

    public WorkbenchModel(Path workspace, SandboxPort sandboxPort, ToolRunner tools,
                          dev.monoagent.ui.port.AgentPort agent, TaskExecutor executor) {
        this.transcript = new TranscriptModel(executor::runLater, executor::runOnUiAfter, System::nanoTime,
                threadCpu());
        this.prompt = new PromptModel(agent, executor);
        this.workspace = workspace.toAbsolutePath().normalize();
        this.executor = executor;
        this.sandboxPort = sandboxPort;
        this.runId = "session-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC)
                .format(Instant.now());
        currentRun.set(runId);
        this.pump = new EventPump(executor, this::dispatch);
        this.tree = new RepoTreeModel(this.workspace, sandboxPort::policy, executor);
        this.viewer = new FileViewerModel(executor);
        this.sandbox = new SandboxPanelModel(sandboxPort, executor, pump);
        this.commandConsole = ConsoleModel.command(tools, executor, pump, runId);
        this.replConsole = ConsoleModel.repl(tools, executor, pump, runId);
        violations.onJump(callId -> {
            if (transcript.reveal(callId)) {
                tab.set(Tab.TRANSCRIPT);
            }
        });
        // the engine's compiled policy replaces the provisional one once it is open: badges follow it
        sandbox.snapshotProperty().addListener((o, a, b) -> tree.policyMaybeChanged());
        // The journal memory is opened when its tab is first shown, never on the start-up path.
        this.memory = new MemoryModel(dev.monoagent.ui.port.MemoryPort.forWorkspace(this.workspace), executor);
        this.history = new HistoryModel(agent, executor, transcript, prompt, () -> tab.set(Tab.TRANSCRIPT));
        tab.addListener((o, a, t) -> {
            if (t == Tab.MEMORY) {
                memory.refresh();
            } else if (t == Tab.HISTORY) {
                history.refresh();
            }
        });
    }

    /** The current thread's CPU time (wall time where the JVM cannot measure it). */
    private static java.util.function.LongSupplier threadCpu() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        return mx.isCurrentThreadCpuTimeSupported() ? mx::getCurrentThreadCpuTime : System::nanoTime;
    }

    /** Starts the session: subscribes to the engine feed and reads the sandbox state. */
    public void start() {
        sandboxPort.subscribe(pump);
        executor.submit("violations-history", () -> dev.monoagent.agent.AgentService.violationHistory(workspace),
                violations::addHistory, e -> message.set("Violation history unreadable: " + e.getMessage()));
        pump.accept(new Event.RunStarted(Instant.now(), runId, workspace.toString()));
        sandbox.refresh();
        prompt.refreshModel();
        prompt.warmUp();
    }

    private void dispatch(Event e) {
        if (e instanceof Event.RunStarted r && r.runId() != null) {
            currentRun.set(r.runId());
        }
        transcript.onEvent(e);
        prompt.onEvent(e);
        commandConsole.onEvent(e);
        replConsole.onEvent(e);
        sandbox.onEvent(e);
        if (e instanceof Event.ToolCallFinished f && f.outcome() == dev.monoagent.common.ToolOutcome.SANDBOX_PREPARE_FAILED) {
            // the engine refused to run something: show why right away
            sandbox.refresh();
        }
        if (e instanceof Event.ViolationObserved v) {
            violations.add(v.violation());
        } else if (e instanceof Event.NetworkAllowed a) {
            violations.addAllowed(a);
        }
    }

    /** Writes the filtered violations to {@code target}: CSV when it ends in {@code .csv}, else JSON. */
    public void exportViolations(Path target, Consumer<Path> done) {
        String body = target.toString().toLowerCase(java.util.Locale.ROOT).endsWith(".csv")
                ? violations.exportCsv() : violations.exportJson();
        executor.submit("export", () -> Files.writeString(target, body), p -> {
            message.set("Exported " + violations.rows().size() + " violations to " + target);
            done.accept(p);
        }, e -> message.set("Export failed: " + e.getMessage()));
    }

    /**
     * Writes the current run's report (HTML, the same {@link dev.monoagent.agent.RunReport} as {@code mono-agent runs
     * report}) to {@code <workspace>/.mono-agent/reports/} and says where in the status bar.
     */
    public void exportReport(Consumer<Path> done) {
        String id = currentRun.get();
        Path dir = workspace.resolve(".mono-agent").resolve("reports");
        executor.submit("run-report", () -> {
            dev.monoagent.agent.RunRecords.Run run = dev.monoagent.agent.RunRecords.read(workspace, id);
            dev.monoagent.agent.RunReport.Format html = dev.monoagent.agent.RunReport.Format.HTML;
            return dev.monoagent.agent.RunReport.write(run, html, dir.resolve(dev.monoagent.agent.RunReport
                    .fileName(run, html)));
        }, p -> {
            message.set("Report of run " + id + " written to " + p);
            done.accept(p);
        }, e -> message.set(e instanceof dev.monoagent.agent.RunRecords.NotFound
                ? "No report yet: run " + id + " has no log (nothing ran in it)."
                : "Report export failed: " + e.getMessage()));
    }

    public ReadOnlyStringProperty currentRunProperty() {
        return currentRun.getReadOnlyProperty();
    }

    /** Opens a file from the tree in the viewer tab. */
    public void openFile(FileEntry f) {
        if (f.directory()) {
            return;
        }
        viewer.open(f.path(), f.protectedPath());
        tab.set(Tab.FILE);
    }

    /** The sink for events from outside (an agent loop, the engine). */
    public EventSink events() {
        return pump;
    }

    public Path workspace() {
        return workspace;
    }

    public String runId() {
        return runId;
    }

    public RepoTreeModel tree() {
        return tree;
    }

    public FileViewerModel viewer() {
        return viewer;
    }

    public TranscriptModel transcript() {
        return transcript;
    }

    /** The prompt box. */
    public PromptModel prompt() {
        return prompt;
    }

    /** Sends the prompt box's text to the agent and shows the transcript; false when nothing was sent. */
    public boolean sendPrompt() {
        if (prompt.send()) {
            tab.set(Tab.TRANSCRIPT);
            return true;
        }
        return false;
    }

    public ViolationsModel violations() {
        return violations;
    }

    public SandboxPanelModel sandbox() {
        return sandbox;
    }

    public ConsoleModel commandConsole() {
        return commandConsole;
    }

    public ConsoleModel replConsole() {
        return replConsole;
    }

    /** The conversation history (History tab). */
    public HistoryModel history() {
        return history;
    }

    public MemoryModel memory() {
        return memory;
    }

    public ObjectProperty<Tab> tabProperty() {
        return tab;
    }

    /** A transient message for the status bar. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public TaskExecutor executor() {
        return executor;
    }
}
