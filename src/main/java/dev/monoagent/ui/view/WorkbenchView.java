package dev.monoagent.ui.view;

import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.model.WorkbenchModel.Tab;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.OverrunStyle;
import javafx.scene.control.Tooltip;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignA;
import org.kordamp.ikonli.materialdesign2.MaterialDesignB;
import org.kordamp.ikonli.materialdesign2.MaterialDesignC;
import org.kordamp.ikonli.materialdesign2.MaterialDesignF;
import org.kordamp.ikonli.materialdesign2.MaterialDesignL;
import org.kordamp.ikonli.materialdesign2.MaterialDesignR;
import org.kordamp.ikonli.materialdesign2.MaterialDesignT;

/**
 * The main window's content: repo tree (left), tabs for file / transcript / NodeRepl / command console (centre) with
 * the prompt box under them, the sandbox panel (right), the violations inspector (bottom) and the status bar with
 * the sandbox badge. Only binds to {@link WorkbenchModel}; holds no state of its own beyond layout.
 */
public final class WorkbenchView extends BorderPane {
    private final WorkbenchModel model;
    private final TabPane tabs = new TabPane();
    private final FileViewerView viewer;
    private final ConsoleView repl;
    private final ConsoleView console;
    private final RepoTreeView tree;
    private final SplitPane horizontal;
    private final SplitPane vertical;
    private final SandboxPanelView sandbox;
    private final VBox treePane;
    private final ViolationsView violations;
    private final HBox statusBar;
    private final PromptView prompt;
    /** Below this window width the sandbox panel collapses to a strip. */
    public static final double COMPACT_BELOW = 1100;
    static final double TREE_MIN = 180;
    static final double CENTRE_MIN = 420;

    public WorkbenchView(WorkbenchModel model, Runnable onExport, Runnable onToggleTheme,
                         Consumer<java.nio.file.Path> onDirLoaded) {
        this.model = model;
        getStyleClass().add("workbench");
        tree = new RepoTreeView(model.tree(), model::openFile, onDirLoaded);
        tree.setId("repo-tree");
        tree.setMinWidth(0);
        viewer = new FileViewerView(model.viewer());
        TranscriptView transcript = new TranscriptView(model.transcript(), model.workspace(),
                v -> model.violations().select(v));
        transcript.setId("transcript");
        repl = new ConsoleView(model.replConsole(), "JavaScript in this run's sandboxed Node REPL — Enter runs, "
                + "Shift+Enter new line, ↑/↓ history");
        console = new ConsoleView(model.commandConsole(), "Bash command in the sandbox — Enter runs, ↑/↓ history");

        tabs.getTabs().addAll(tab(Tab.FILE, "File", Icons.of(MaterialDesignF.FILE_DOCUMENT_OUTLINE, "tab-icon"),
                        viewer),
                tab(Tab.TRANSCRIPT, "Transcript", Icons.of(MaterialDesignR.ROBOT, "tab-icon"), transcript),
                tab(Tab.REPL, "NodeRepl", Icons.of(MaterialDesignL.LANGUAGE_JAVASCRIPT, "tab-icon"), repl),
                tab(Tab.CONSOLE, "Command console", Icons.of(MaterialDesignC.CONSOLE, "tab-icon"), console),
                tab(Tab.MEMORY, "Memory", Icons.of(MaterialDesignB.BOOK_OPEN_VARIANT, "tab-icon"),
                        new MemoryView(model.memory())),
                tab(Tab.HISTORY, "History", Icons.of(org.kordamp.ikonli.materialdesign2.MaterialDesignH.HISTORY,
                        "tab-icon"), new HistoryView(model.history())));
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        selectTab(model.tabProperty().get());
        model.tabProperty().addListener((o, a, t) -> selectTab(t));
        tabs.getSelectionModel().selectedItemProperty().addListener((o, a, t) -> {
            if (t != null) {
                model.tabProperty().set((Tab) t.getUserData());
            }
        });

        PromptView promptBox = new PromptView(model.prompt(), model::sendPrompt);
        this.prompt = promptBox;
        VBox centre = new VBox(tabs, promptBox);
        VBox.setVgrow(tabs, Priority.ALWAYS);

        sandbox = new SandboxPanelView(model.sandbox());
        sandbox.setId("sandbox-panel");
        ViolationsView violations = new ViolationsView(model.violations(), model.workspace(), onExport);
        violations.setId("violations");
        this.violations = violations;
        centre.setMinWidth(CENTRE_MIN);
        vertical = new SplitPane(centre, violations);
        vertical.setOrientation(Orientation.VERTICAL);
        vertical.setDividerPositions(0.72);
        treePane = new VBox(tree, RepoTreeView.legend(model.sandbox().badgeProperty()));
        treePane.getStyleClass().add("tree-pane");
        VBox.setVgrow(tree, Priority.ALWAYS);
        treePane.setMinWidth(TREE_MIN);
        horizontal = new SplitPane(treePane, vertical, sandbox);
        SplitPane.setResizableWithParent(treePane, false);
        SplitPane.setResizableWithParent(sandbox, false);
        applyDefaultSplit(1280);
        setCenter(horizontal);
        statusBar = statusBar(onToggleTheme);
        setBottom(statusBar);
        // narrow windows: the sandbox panel becomes a strip across the top instead of being squeezed
        widthProperty().addListener((o, a, w) -> {
            if (w.doubleValue() > 0) {
                setCompact(w.doubleValue() < COMPACT_BELOW);
            }
        });
    }

    /** Splits for a window {@code width} px wide: tree readable, sandbox panel fits its content, transcript widest. */
    public void applyDefaultSplit(double width) {
        double treeW = clamp(width * 0.17, 210, 280);
        double sandboxW = clamp(width * 0.24, 310, 380);
        if (horizontal.getItems().size() == 3) {
            horizontal.setDividerPositions(treeW / width, (width - sandboxW) / width);
        } else {
            horizontal.setDividerPositions(treeW / width);
        }
    }

    private static double clamp(double v, double lo, double hi) {
        return Math.max(lo, Math.min(v, hi));
    }

    private void setCompact(boolean on) {
        if (on == sandbox.isCompact()) {
            return;
        }
        double[] pos = horizontal.getDividerPositions();
        if (on) {
            horizontal.getItems().remove(sandbox);
            sandbox.setCompact(true);
            setTop(sandbox);
            horizontal.setDividerPositions(pos[0]);
        } else {
            setTop(null);
            sandbox.setCompact(false);
            horizontal.getItems().add(sandbox);
            double w = Math.max(getWidth(), 1);
            horizontal.setDividerPositions(pos[0], (w - clamp(w * 0.24, 310, 380)) / w);
        }
    }

    /** True while the sandbox panel is the compact strip. */
    public boolean isCompact() {
        return sandbox.isCompact();
    }

    private javafx.scene.control.Tab tab(Tab id, String text, javafx.scene.Node icon, javafx.scene.Node content) {
        javafx.scene.control.Tab t = new javafx.scene.control.Tab(text, content);
        t.setGraphic(icon);
        t.setUserData(id);
        t.setId("tab-" + id.name().toLowerCase(Locale.ROOT));
        return t;
    }

    private void selectTab(Tab t) {
        for (javafx.scene.control.Tab x : tabs.getTabs()) {
            if (x.getUserData() == t) {
                tabs.getSelectionModel().select(x);
            }
        }
    }

    private HBox statusBar(Runnable onToggleTheme) {
        BadgeLabel badge = new BadgeLabel(model.sandbox().badgeProperty());
        badge.setId("sandbox-badge");
        // the reason beside BLOCKED may shorten (full text in its tooltip); the badge itself never does
        Label why = new Label();
        why.setId("sandbox-badge-reason");
        why.getStyleClass().add("badge-reason");
        why.setMinWidth(0);
        why.setMaxWidth(520);
        why.setTooltip(new Tooltip());
        why.textProperty().bind(Bindings.createStringBinding(() -> {
            String d = model.sandbox().badgeProperty().get().detail();
            return d == null ? "" : d;
        }, model.sandbox().badgeProperty()));
        why.getTooltip().textProperty().bind(why.textProperty());
        why.managedProperty().bind(why.textProperty().isNotEmpty());
        Label ws = new Label(model.workspace().toString(), Icons.of(MaterialDesignF.FOLDER, "status-icon"));
        ws.setMinWidth(60);
        ws.setTooltip(new Tooltip(model.workspace().toString()));
        ws.setTextOverrun(OverrunStyle.LEADING_ELLIPSIS);
        Label msg = new Label();
        msg.setMinWidth(0);
        msg.textProperty().bind(model.messageProperty());
        Label count = new Label();
        count.setId("violation-count");
        count.setMinWidth(Region.USE_PREF_SIZE);
        count.textProperty().bind(model.violations().countProperty().asString("%d violations"));
        count.setGraphic(Icons.of(MaterialDesignA.ALERT_OCTAGON, "status-icon"));
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        Button report = new Button("Export report", Icons.of(MaterialDesignF.FILE_DOCUMENT_OUTLINE, "status-icon"));
        report.setId("export-report");
        report.getStyleClass().add("flat");
        report.setMinWidth(Region.USE_PREF_SIZE);
        report.setTooltip(new Tooltip("Write the current run's report (prompt, policy, engine, self-check, tool "
                + "calls, violations) as HTML under .mono-agent/reports/"));
        report.setOnAction(e -> model.exportReport(p -> { }));
        Button theme = new Button(null, Icons.of(MaterialDesignT.THEME_LIGHT_DARK, "status-icon"));
        theme.setOnAction(e -> onToggleTheme.run());
        theme.getStyleClass().add("flat");
        theme.setTooltip(new Tooltip("Light / dark (Ctrl+Shift+D)"));
        theme.setMinWidth(Region.USE_PREF_SIZE);
        HBox bar = new HBox(12, ws, msg, spacer, report, count, why, badge, theme);
        bar.getStyleClass().add("status-bar");
        bar.setMinHeight(Region.USE_PREF_SIZE);
        return bar;
    }

    /** Focus helpers for keyboard shortcuts. */
    public void focusFind() {
        model.tabProperty().set(Tab.FILE);
        viewer.focusFind();
    }

    public void focusRepl() {
        model.tabProperty().set(Tab.REPL);
        repl.focusInput();
    }

    public void focusConsole() {
        model.tabProperty().set(Tab.CONSOLE);
        console.focusInput();
    }

    /** Focuses the prompt box. */
    public void focusPrompt() {
        prompt.focusPrompt();
    }

    public PromptView promptView() {
        return prompt;
    }

    public void focusTree() {
        tree.requestFocus();
    }

    /** Focuses the sandbox panel's Check button (also in the compact strip). */
    public void focusSandbox() {
        sandbox.focusCheck();
    }

    /**
     * Moves focus to the next (or previous) panel: tree, centre tabs, prompt, sandbox panel, violations, status bar
     * (F6 / Shift+F6). A panel with nothing focusable (the prompt without an agent loop) is skipped.
     */
    public void cyclePanels(boolean forward) {
        List<Node> panels = List.of(treePane, tabs, prompt, sandbox, violations, statusBar);
        Node owner = getScene() == null ? null : getScene().getFocusOwner();
        int at = -1;
        for (int i = 0; i < panels.size() && owner != null; i++) {
            for (Node n = owner; n != null; n = n.getParent()) {
                if (n == panels.get(i)) {
                    at = i;
                }
            }
        }
        for (int step = 1; step <= panels.size(); step++) {
            int i = Math.floorMod(at + (forward ? step : -step), panels.size());
            Node target = firstFocusable(panels.get(i));
            if (target != null) {
                target.requestFocus();
                return;
            }
        }
    }

    /** The first enabled, visible, focus-traversable node in {@code n} (itself included), depth first. */
    private static Node firstFocusable(Node n) {
        if (!n.isVisible() || n.isDisabled()) {
            return null;
        }
        if (n.isFocusTraversable()) {
            return n;
        }
        if (n instanceof Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                Node f = firstFocusable(c);
                if (f != null) {
                    return f;
                }
            }
        }
        return null;
    }

    public SplitPane horizontalSplit() {
        return horizontal;
    }

    public SplitPane verticalSplit() {
        return vertical;
    }
}
