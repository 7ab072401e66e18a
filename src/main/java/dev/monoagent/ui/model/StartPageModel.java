package dev.monoagent.ui.model;

import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ModelRefGrammar;
import dev.monoagent.ui.port.CheckReport;
import dev.monoagent.ui.port.WorkspacePort;
import dev.monoagent.ui.task.TaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The start page shown when the window has no workspace: the recent workspaces, the chosen folder and what can be done
 * with it. A folder with a config can be opened; one without gets "Set up for review", which is {@code init} with the
 * {@code code-sandbox} preset and the chosen model, then the sandbox setup with one progress line per step and probe,
 * then opening the workspace when every probe passed. Errors become one line in {@link #error()}, never an exception.
 */
public final class StartPageModel {
    /** What the chosen folder allows. */
    public enum FolderState { NONE, CONFIGURED, NOT_SET_UP, MISSING }

    /** Suggestions for the model box (any {@code <provider>:<model>} may be typed). */
    public static final List<String> MODEL_SUGGESTIONS = List.of("openai-codex:gpt-5.6-terra", "openai:gpt-5.6-terra",
            "anthropic:claude-sonnet-4-5", "ollama:qwen3-coder", "lmstudio:qwen3-coder");

    /** Probe count of the full self-check, for the progress bar before the engine reports. */
    static final int EXPECTED_PROBES = 16;

    private final WorkspacePort port;
    private final TaskExecutor executor;
    private final ObservableList<Path> recents = FXCollections.observableArrayList();
    private final ReadOnlyObjectWrapper<Path> folder = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<FolderState> state = new ReadOnlyObjectWrapper<>(FolderState.NONE);
    private final StringProperty model = new SimpleStringProperty(MODEL_SUGGESTIONS.get(0));
    private final ObservableList<String> progressLines = FXCollections.observableArrayList();
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper();
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ObjectProperty<Path> opened = new SimpleObjectProperty<>();

    public StartPageModel(WorkspacePort port, TaskExecutor executor) {
        this.port = port;
        this.executor = executor;
    }

    /** Reads the recent workspaces (and selects {@code suggested} when given). */
    public void load(Path suggested) {
        recents.setAll(port.recents());
        if (suggested != null) {
            choose(suggested);
        }
    }

    /** The folder the reviewer picked (from the list or "Open folder…"). */
    public void choose(Path dir) {
        if (busy.get()) {
            return;
        }
        Path p = dir.toAbsolutePath().normalize();
        folder.set(p);
        error.set("");
        progressLines.clear();
        progress.set(0);
        state.set(!Files.isDirectory(p) ? FolderState.MISSING
                : port.configured(p) ? FolderState.CONFIGURED : FolderState.NOT_SET_UP);
        if (state.get() == FolderState.CONFIGURED) {
            brokenConfig(p);
        }
    }

    /** Shows why {@code p}'s config does not load; true when it does not. */
    private boolean brokenConfig(Path p) {
        String problem = port.configProblem(p);
        if (problem != null) {
            error.set("Its mono-agent.config.json has errors: " + problem + " Fix them (`mono-agent validate` lists "
                    + "them all), then open it again.");
        }
        return problem != null;
    }

    /** Opens the chosen workspace (configured folders only). */
    public void open() {
        Path p = folder.get();
        if (p == null || state.get() != FolderState.CONFIGURED || busy.get() || brokenConfig(p)) {
            return;
        }
        try {
            port.open(p);
            opened.set(p);
        } catch (Exception e) {
            error.set("Cannot open " + p + ": " + oneLine(e));
        }
    }

    /** {@code init --preset code-sandbox --model <model>}, then the sandbox setup, then open when it passed. */
    public void setUp() {
        Path p = folder.get();
        if (p == null || state.get() != FolderState.NOT_SET_UP || busy.get()) {
            return;
        }
        String ref = model.get() == null ? "" : model.get().strip();
        try {
            ModelRefGrammar.parse(ref, "model", Set.of());
        } catch (ConfigException e) {
            error.set(e.errors().isEmpty() ? "invalid model" : e.errors().get(0).message().replace('\n', ' '));
            return;
        }
        error.set("");
        busy.set(true);
        progressLines.setAll("Writing mono-agent.config.json (preset code-sandbox, model " + ref + ") …");
        progress.set(0);
        int[] done = {0};
        executor.submit("start-page-setup", () -> {
            port.init(p, ref);
            executor.runOnUi(() -> {
                state.set(FolderState.CONFIGURED);
                progressLines.add("Installing and proving the sandbox …");
            });
            return port.setupSandbox(p, line -> executor.runOnUi(() -> progressLines.add(line)),
                    (ProbeResult r) -> executor.runOnUi(() -> {
                        done[0]++;
                        progress.set(Math.min(1.0, done[0] / (double) EXPECTED_PROBES));
                        progressLines.add((r.passed() ? "[ok]   " : "[FAIL] ") + r.id() + ": " + r.detail());
                    }));
        }, (CheckReport r) -> {
            busy.set(false);
            if (r.passed()) {
                progress.set(1);
                progressLines.add("Sandbox ready: " + r.results().size() + " probes passed.");
                open();
            } else {
                String why = r.firstFailure();
                error.set("The sandbox is not ready" + (why == null ? "" : ": " + why)
                        + ". Commands stay blocked (fail-closed); open the workspace to see the sandbox panel.");
            }
        }, e -> {
            busy.set(false);
            state.set(port.configured(p) ? FolderState.CONFIGURED : FolderState.NOT_SET_UP);
            error.set("Set up failed: " + oneLine(e));
        });
    }

    private static String oneLine(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && (t.getMessage() == null || t.getMessage().isBlank())) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
    }

    public ObservableList<Path> recents() {
        return recents;
    }

    public ReadOnlyObjectProperty<Path> folder() {
        return folder.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<FolderState> state() {
        return state.getReadOnlyProperty();
    }

    public StringProperty model() {
        return model;
    }

    public ObservableList<String> progressLines() {
        return progressLines;
    }

    public ReadOnlyDoubleProperty progress() {
        return progress.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busy() {
        return busy.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty error() {
        return error.getReadOnlyProperty();
    }

    /** The workspace the page handed over to (null until then). */
    public ObjectProperty<Path> opened() {
        return opened;
    }
}
