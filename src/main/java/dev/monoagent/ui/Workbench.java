package dev.monoagent.ui;

import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.port.SandboxPort;
import dev.monoagent.ui.port.ToolRunner;
import dev.monoagent.ui.task.RepoWatcher;
import dev.monoagent.ui.task.TaskExecutor;
import dev.monoagent.ui.view.SignInControl;
import dev.monoagent.ui.view.WorkbenchView;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import javafx.scene.Scene;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.HBox;
import javafx.stage.Stage;

/**
 * Composition of one workbench window: model, view, file watcher, theme, shortcuts and window state, wired to the
 * given ports and executor. Used by the application, the TestFX tests, the screenshot and the benchmark alike, so
 * what is tested is what ships.
 */
public final class Workbench implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Workbench.class.getName());
    /** The process environment, read through the host layer (the ui never reads it itself). */
    private static final java.util.function.Supplier<java.util.Map<String, String>> HOST_ENV =
            () -> dev.monoagent.host.HostEnv.detect().hostEnv();

    private final WorkbenchModel model;
    private final WorkbenchView view;
    private final Scene scene;
    private final RepoWatcher watcher;
    private final WindowState state;
    private Theme theme;

    private Workbench(WorkbenchModel model, WorkbenchView view, Scene scene, RepoWatcher watcher, WindowState state) {
        this.model = model;
        this.view = view;
        this.scene = scene;
        this.watcher = watcher;
        this.state = state;
    }

    /**
     * Builds the window content for {@code workspace} and shows it on {@code stage}.
     *
     * @param watch  watch the file system (off in tests that use a same-thread executor)
     * @param state  where window state lives, or null to neither restore nor save it
     */
    public static Workbench open(Stage stage, Path workspace, SandboxPort sandbox, ToolRunner tools,
                                 TaskExecutor executor, DialogService dialogs, boolean watch, WindowState state) {
        return open(stage, workspace, sandbox, tools, dev.monoagent.ui.port.AgentPort.NONE, executor, dialogs, watch,
                state);
    }

    /** As above, with the agent loop behind the prompt box. */
    public static Workbench open(Stage stage, Path workspace, SandboxPort sandbox, ToolRunner tools,
                                 dev.monoagent.ui.port.AgentPort agent, TaskExecutor executor, DialogService dialogs,
                                 boolean watch, WindowState state) {
        WorkbenchModel model = new WorkbenchModel(workspace, sandbox, tools, agent, executor);
        RepoWatcher watcher = null;
        if (watch) {
            try {
                watcher = new RepoWatcher(executor, model.tree()::onChanges);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "no file watching: " + e.getMessage());
            }
        }
        RepoWatcher w = watcher;
        Workbench[] self = new Workbench[1];
        WorkbenchView view = new WorkbenchView(model, () -> self[0].export(dialogs), () -> self[0].toggleTheme(),
                dir -> {
                    if (w != null) {
                        w.watch(dir);
                    }
                });
        // the scene starts at the window's real size, so the first layout (and the split) is done for that size
        javafx.geometry.Rectangle2D size = state == null ? new javafx.geometry.Rectangle2D(0, 0, 1280, 800)
                : state.bounds();
        Scene scene = new Scene(view, size.getWidth(), size.getHeight());
        Workbench wb = new Workbench(model, view, scene, watcher, state);
        self[0] = wb;
        wb.theme = state == null ? Theme.LIGHT : state.theme();
        wb.theme.apply(scene);
        wb.installShortcuts();
        addSignIn(view, model);
        stage.setTitle("mono-agent — " + workspace.toAbsolutePath().normalize());
        stage.setScene(scene);
        // a stage may be reused (tests): never keep an earlier workbench's save hook
        stage.setOnHiding(null);
        if (state != null) {
            boolean savedSplit = state.hasSavedSplit();
            state.restore(stage, view.horizontalSplit(), view.verticalSplit());
            if (!savedSplit) {
                view.applyDefaultSplit(stage.getWidth());
            }
            stage.setOnHiding(e -> state.save(stage, view.horizontalSplit(), view.verticalSplit()));
        }
        model.start();
        return wb;
    }

    /**
     * The ChatGPT sign-in state and its Sign in button, placed in the status bar before the theme toggle; the prompt
     * box offers the same action when its model needs it, and re-reads its credential state after a sign-in.
     */
    private static void addSignIn(WorkbenchView view, WorkbenchModel model) {
        try {
            SignInControl signIn = new SignInControl(CodexAuth.fromEnv(HOST_ENV.get()), HOST_ENV.get());
            signIn.setId("sign-in-control");
            signIn.setOnSignedIn(model.prompt()::refreshModel);
            view.promptView().setOnSignIn(signIn::signIn);
            if (view.getBottom() instanceof HBox bar) {
                bar.getChildren().add(Math.max(0, bar.getChildren().size() - 1), signIn);
            }
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "no sign-in control: " + e.getMessage());
        }
    }

    private void installShortcuts() {
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN), view::focusFind);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.DIGIT1, KeyCombination.SHORTCUT_DOWN),
                () -> model.tabProperty().set(WorkbenchModel.Tab.FILE));
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.DIGIT2, KeyCombination.SHORTCUT_DOWN),
                () -> model.tabProperty().set(WorkbenchModel.Tab.TRANSCRIPT));
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.DIGIT3, KeyCombination.SHORTCUT_DOWN),
                view::focusRepl);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.DIGIT4, KeyCombination.SHORTCUT_DOWN),
                view::focusConsole);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.K, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN), model.sandbox()::check);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN), model.sandbox()::setup);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.DIGIT5, KeyCombination.SHORTCUT_DOWN),
                view::focusSandbox);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN),
                view::focusPrompt);
        // F6 / Shift+F6 walk the panels, so each one is reachable without a mouse
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F6), () -> view.cyclePanels(true));
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F6, KeyCombination.SHIFT_DOWN),
                () -> view.cyclePanels(false));
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN), this::toggleTheme);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN), view::focusTree);
    }

    /** Switches light/dark and remembers the choice. */
    public void toggleTheme() {
        theme = theme.other();
        theme.apply(scene);
        if (state != null) {
            state.theme(theme);
        }
    }

    private void export(DialogService dialogs) {
        Optional<Path> target = dialogs.askSaveFile("Export violations", "violations.json");
        target.ifPresent(p -> model.exportViolations(p, done -> { }));
    }

    public WorkbenchModel model() {
        return model;
    }

    public WorkbenchView view() {
        return view;
    }

    public Scene scene() {
        return scene;
    }

    public Theme theme() {
        return theme;
    }

    @Override
    public void close() {
        if (watcher != null) {
            try {
                watcher.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing watcher: " + e.getMessage());
            }
        }
    }
}
