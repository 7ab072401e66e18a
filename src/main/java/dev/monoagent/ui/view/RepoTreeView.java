package dev.monoagent.ui.view;

import dev.monoagent.ui.model.FileEntry;
import dev.monoagent.ui.model.RepoTreeModel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javafx.collections.SetChangeListener;
import javafx.scene.control.Label;
import javafx.scene.control.TreeCell;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;
import org.kordamp.ikonli.materialdesign2.MaterialDesignF;
import org.kordamp.ikonli.materialdesign2.MaterialDesignL;
import org.kordamp.ikonli.materialdesign2.MaterialDesignP;

/**
 * The repo tree: a {@link TreeView} whose items load their children on first expansion (through the model, in the
 * background) and re-list when the model reports a directory change. Protected paths (whatever the policy in force
 * protects, including the engine's built-in names) get a lock badge, paths changed this session a pencil; names are
 * never shortened (the tree scrolls sideways) and every row's tooltip gives its path and why it is protected.
 */
public final class RepoTreeView extends TreeView<FileEntry> {
    private final RepoTreeModel model;
    private final Map<Path, LazyItem> loaded = new HashMap<>();
    private final Consumer<Path> onDirLoaded;

    public RepoTreeView(RepoTreeModel model, Consumer<FileEntry> onOpen, Consumer<Path> onDirLoaded) {
        this.model = model;
        this.onDirLoaded = onDirLoaded;
        getStyleClass().add("repo-tree");
        LazyItem root = new LazyItem(model.rootEntry());
        setRoot(root);
        setShowRoot(true);
        root.setExpanded(true);
        setCellFactory(tv -> new EntryCell());
        setOnMouseClicked(e -> {
            if (e.getClickCount() == 2) {
                open(onOpen);
            }
        });
        setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ENTER) {
                open(onOpen);
            }
        });
        model.dirChangeProperty().addListener((o, a, c) -> {
            LazyItem item = c == null ? null : loaded.get(c.dir());
            if (item != null) {
                item.reload();
            }
        });
        model.changed().addListener((SetChangeListener<Path>) ch -> refresh());
        model.policyEpochProperty().addListener((o, a, b) -> List.copyOf(loaded.values()).forEach(LazyItem::reload));
    }

    /**
     * What the tree's marks mean, shown under it. While the sandbox is off or commands may run on the host, it says
     * that nothing is protected instead (the tree then draws no locks).
     */
    public static Node legend(javafx.beans.value.ObservableValue<dev.monoagent.ui.model.Badge> badge) {
        Label lock = new Label("protected (the agent cannot write)", Icons.of(MaterialDesignL.LOCK, "badge-icon"));
        lock.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(() -> {
            dev.monoagent.ui.model.Badge b = badge.getValue();
            return b != null && (b.level() == dev.monoagent.ui.model.Badge.Level.OFF
                    || b.level() == dev.monoagent.ui.model.Badge.Level.UNSAFE)
                    ? "NOTHING is protected: commands may run on the host" : "protected (the agent cannot write)";
        }, badge));
        lock.getStyleClass().addAll("legend-item", "legend-protected");
        Label changed = new Label("changed this session", Icons.of(MaterialDesignP.PENCIL, "changed-icon"));
        changed.getStyleClass().add("legend-item");
        lock.setWrapText(true);
        changed.setWrapText(true);
        FlowPane legend = new FlowPane(10, 2, lock, changed);
        legend.getStyleClass().add("tree-legend");
        legend.setId("tree-legend");
        return legend;
    }

    private void open(Consumer<FileEntry> onOpen) {
        TreeItem<FileEntry> sel = getSelectionModel().getSelectedItem();
        if (sel != null && !sel.getValue().directory()) {
            onOpen.accept(sel.getValue());
        }
    }

    /** An item whose children are listed on first expansion. */
    private final class LazyItem extends TreeItem<FileEntry> {
        private boolean requested;

        LazyItem(FileEntry e) {
            super(e);
            if (e.directory()) {
                // a placeholder child makes the expander arrow show before listing
                getChildren().add(new TreeItem<>(new FileEntry(e.path().resolve("…"), "loading…", false, false, -1)));
                expandedProperty().addListener((o, a, now) -> {
                    if (now && !requested) {
                        requested = true;
                        reload();
                    }
                });
            }
        }

        @Override
        public boolean isLeaf() {
            return !getValue().directory();
        }

        void reload() {
            Path dir = getValue().path();
            loaded.put(dir, this);
            model.load(dir, this::fill);
        }

        private void fill(List<FileEntry> rows) {
            Map<Path, TreeItem<FileEntry>> old = new HashMap<>();
            for (TreeItem<FileEntry> c : getChildren()) {
                old.put(c.getValue().path(), c);
            }
            List<TreeItem<FileEntry>> items = new java.util.ArrayList<>(rows.size());
            for (FileEntry f : rows) {
                TreeItem<FileEntry> prev = old.get(f.path());
                if (prev instanceof LazyItem li && prev.getValue().directory() == f.directory()) {
                    li.setValue(f);
                    items.add(li);
                } else {
                    items.add(new LazyItem(f));
                }
            }
            // replacing children of an expanded item costs O(n) tree events (≈ 300 ms for 10k rows); while
            // collapsed it is one cheap change
            boolean open = isExpanded();
            setExpanded(false);
            getChildren().setAll(items);
            setExpanded(open);
            onDirLoaded.accept(getValue().path());
        }
    }

    private final class EntryCell extends TreeCell<FileEntry> {
        private final Tooltip tip = new Tooltip();

        @Override
        protected void updateItem(FileEntry f, boolean empty) {
            super.updateItem(f, empty);
            getStyleClass().removeAll("protected", "changed");
            if (empty || f == null) {
                setText(null);
                setGraphic(null);
                setTooltip(null);
                return;
            }
            setText(null);
            Label name = new Label(f.name());
            name.setMinWidth(Region.USE_PREF_SIZE);
            HBox box = new HBox(4);
            box.setAlignment(Pos.CENTER_LEFT);
            box.getChildren().add(Icons.of(f.directory()
                    ? (getTreeItem().isExpanded() ? MaterialDesignF.FOLDER_OPEN : MaterialDesignF.FOLDER)
                    : MaterialDesignF.FILE_OUTLINE, f.directory() ? "folder-icon" : "file-icon"));
            box.getChildren().add(name);
            String why = f.protectedPath() ? model.protection(f.path()) : null;
            if (f.protectedPath()) {
                getStyleClass().add("protected");
                Label badge = new Label(null, Icons.of(MaterialDesignL.LOCK, "badge-icon"));
                badge.getStyleClass().add("protected-badge");
                badge.setMinWidth(Region.USE_PREF_SIZE);
                box.getChildren().add(badge);
            }
            if (model.isChanged(f.path())) {
                getStyleClass().add("changed");
                box.getChildren().add(Icons.of(MaterialDesignP.PENCIL, "changed-icon"));
            }
            setGraphic(box);
            tip.setText(model.relative(f.path()) + (why == null ? "" : "\n" + why));
            setTooltip(tip);
        }
    }
}
