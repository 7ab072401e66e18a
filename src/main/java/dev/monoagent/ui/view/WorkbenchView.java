package dev.monoagent.ui.view;

import dev.monoagent.ui.model.Badge;
import dev.monoagent.ui.model.WorkbenchModel;
import dev.monoagent.ui.model.WorkbenchModel.Tab;
import java.util.Locale;
import java.util.function.Consumer;
import javafx.geometry.Orientation;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignA;
import org.kordamp.ikonli.materialdesign2.MaterialDesignC;
import org.kordamp.ikonli.materialdesign2.MaterialDesignF;
import org.kordamp.ikonli.materialdesign2.MaterialDesignL;
import org.kordamp.ikonli.materialdesign2.MaterialDesignR;
import org.kordamp.ikonli.materialdesign2.MaterialDesignS;
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
    private final Label badge = new Label();

    public WorkbenchView(WorkbenchModel model, Runnable onExport, Runnable onToggleTheme,
                         Consumer<java.nio.file.Path> onDirLoaded) {
        this.model = model;
        getStyleClass().add("workbench");
        tree = new RepoTreeView(model.tree(), model::openFile, onDirLoaded);
        tree.setId("repo-tree");
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
                tab(Tab.CONSOLE, "Command console", Icons.of(MaterialDesignC.CONSOLE, "tab-icon"), console));
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        selectTab(model.tabProperty().get());
        model.tabProperty().addListener((o, a, t) -> selectTab(t));
        tabs.getSelectionModel().selectedItemProperty().addListener((o, a, t) -> {
            if (t != null) {
                model.tabProperty().set((Tab) t.getUserData());
            }
        });

        TextArea prompt = new TextArea();
        prompt.setId("prompt");
        prompt.setPromptText(WorkbenchModel.NO_AGENT_TEXT);
        prompt.setDisable(true);
        prompt.setPrefRowCount(2);
        prompt.setWrapText(true);
        Button send = new Button("Send");
        send.setDisable(true);
        HBox.setHgrow(prompt, Priority.ALWAYS);
        HBox promptBox = new HBox(6, prompt, send);
        promptBox.getStyleClass().add("prompt-box");
        VBox centre = new VBox(tabs, promptBox);
        VBox.setVgrow(tabs, Priority.ALWAYS);

        SandboxPanelView sandbox = new SandboxPanelView(model.sandbox());
        sandbox.setId("sandbox-panel");
        horizontal = new SplitPane(tree, centre, sandbox);
        horizontal.setDividerPositions(0.2, 0.74);
        SplitPane.setResizableWithParent(tree, false);
        SplitPane.setResizableWithParent(sandbox, false);
        ViolationsView violations = new ViolationsView(model.violations(), model.workspace(), onExport);
        violations.setId("violations");
        vertical = new SplitPane(horizontal, violations);
        vertical.setOrientation(Orientation.VERTICAL);
        vertical.setDividerPositions(0.72);
        setCenter(vertical);
        setBottom(statusBar(onToggleTheme));
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
        badge.setId("sandbox-badge");
        badge.getStyleClass().add("badge");
        applyBadge(model.sandbox().badgeProperty().get());
        model.sandbox().badgeProperty().addListener((o, a, b) -> applyBadge(b));
        Label ws = new Label(model.workspace().toString(), Icons.of(MaterialDesignF.FOLDER, "status-icon"));
        Label msg = new Label();
        msg.textProperty().bind(model.messageProperty());
        Label count = new Label();
        count.textProperty().bind(model.violations().countProperty().asString("%d violations"));
        count.setGraphic(Icons.of(MaterialDesignA.ALERT_OCTAGON, "status-icon"));
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        Button theme = new Button(null, Icons.of(MaterialDesignT.THEME_LIGHT_DARK, "status-icon"));
        theme.setOnAction(e -> onToggleTheme.run());
        theme.getStyleClass().add("flat");
        HBox bar = new HBox(12, ws, msg, spacer, count, badge, theme);
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    private void applyBadge(Badge b) {
        badge.setText(b.text());
        badge.getStyleClass().removeIf(c -> c.startsWith("badge-"));
        badge.getStyleClass().add("badge-" + b.level().name().toLowerCase(Locale.ROOT));
        badge.setGraphic(Icons.of(switch (b.level()) {
            case ENFORCING -> MaterialDesignS.SHIELD_CHECK;
            case OFF -> MaterialDesignS.SHIELD_OFF;
            default -> MaterialDesignS.SHIELD_ALERT;
        }, "badge-icon"));
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

    public void focusTree() {
        tree.requestFocus();
    }

    public SplitPane horizontalSplit() {
        return horizontal;
    }

    public SplitPane verticalSplit() {
        return vertical;
    }
}
