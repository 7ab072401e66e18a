package dev.monoagent.ui.model;

import dev.monoagent.sandbox.Policy;
import dev.monoagent.ui.task.TaskExecutor;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableSet;

/**
 * The repo tree: lists one directory at a time (lazily, in the background), badges protected paths with the same
 * {@link Policy} the engine enforces, hides the engine's mount-point litter, remembers which paths changed during
 * this session, and announces which directories need re-listing after file-system changes.
 */
public final class RepoTreeModel {

    /**
     * A directory whose listing changed.
     *
     * @param dir the directory to re-list
     * @param seq increases with every change, so equal directories still notify
     */
    public record DirChange(Path dir, long seq) {}

    private final Path root;
    private final java.util.function.Supplier<Policy> policy;
    private final TaskExecutor executor;
    private final MountPointFilter litter;
    private final ObservableSet<Path> changed = FXCollections.observableSet();
    private final ReadOnlyObjectWrapper<DirChange> dirChange = new ReadOnlyObjectWrapper<>();
    private long seq;
    private final javafx.beans.property.ReadOnlyLongWrapper policyEpoch = new javafx.beans.property.ReadOnlyLongWrapper();
    private Policy badgedWith;

    public RepoTreeModel(Path root, java.util.function.Supplier<Policy> policy, TaskExecutor executor) {
        this.root = root.toAbsolutePath().normalize();
        this.policy = policy;
        this.executor = executor;
        this.litter = new MountPointFilter(this.root, p -> policy.get().isProtected(p));
        this.badgedWith = policy.get();
    }

    public Path root() {
        return root;
    }

    /** The root's own row. */
    public FileEntry rootEntry() {
        return new FileEntry(root, root.getFileName() == null ? root.toString() : root.getFileName().toString(), true,
                false, -1);
    }

    /** Lists {@code dir} in the background; {@code onLoaded} gets the rows on the UI thread. */
    public void load(Path dir, Consumer<List<FileEntry>> onLoaded) {
        executor.submit("list " + dir, () -> list(dir), onLoaded, e -> onLoaded.accept(List.of()));
    }

    /** Lists {@code dir}: directories first, then by name; litter hidden. Blocking. */
    public List<FileEntry> list(Path dir) throws IOException {
        List<FileEntry> out = new ArrayList<>();
        Policy pol = policy.get();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue;
                }
                if (!a.isSymbolicLink() && (a.isOther() || a.isDirectory() || a.size() == 0) && litter.hidden(p)) {
                    continue;
                }
                boolean isDir = a.isDirectory();
                boolean locked = pol.mode() != dev.monoagent.config.Enums.SandboxMode.OFF && pol.protection(p) != null;
                out.add(new FileEntry(p, p.getFileName().toString(), isDir, locked,
                        isDir ? -1 : a.size()));
            }
        }
        out.sort(Comparator.comparing((FileEntry f) -> !f.directory()).thenComparing(FileEntry::name,
                String.CASE_INSENSITIVE_ORDER));
        return out;
    }

    /**
     * Takes a batch of file-system changes (from the watcher, UI thread): marks the paths changed (unless they are
     * mount-point litter) and asks for their directories to be re-listed.
     */
    public void onChanges(Collection<Path> paths) {
        Set<Path> dirs = new java.util.LinkedHashSet<>();
        for (Path p : paths) {
            Path n = p.toAbsolutePath().normalize();
            if (!n.startsWith(root) || n.equals(root)) {
                continue;
            }
            if (!Files.exists(n, LinkOption.NOFOLLOW_LINKS) || !MountPointFilter.looksLikeMountPoint(n)
                    || !litter.hidden(n)) {
                changed.add(n);
            }
            dirs.add(n.getParent());
        }
        for (Path d : dirs) {
            dirChange.set(new DirChange(d, ++seq));
        }
    }

    /** True when the path or anything under it changed this session. */
    public boolean isChanged(Path p) {
        if (changed.contains(p)) {
            return true;
        }
        for (Path c : changed) {
            if (c.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the engine protects {@code p}: never while the sandbox is off (nothing wraps the commands then). */
    public boolean isProtected(Path p) {
        return protection(p) != null;
    }

    /** Why the engine protects {@code p} (for the badge's tooltip), or null; null for everything while it is off. */
    public String protection(Path p) {
        dev.monoagent.sandbox.Policy pol = policy.get();
        return pol.mode() == dev.monoagent.config.Enums.SandboxMode.OFF ? null : pol.protection(p);
    }

    /**
     * Re-checks which policy badges are drawn with: the window lists files before the engine is open (with the
     * policy compiled from the config) and the engine's own compiled policy can differ; when it does, the listed
     * directories are announced for re-listing so every badge follows the policy in force.
     */
    public void policyMaybeChanged() {
        Policy now = policy.get();
        if (!now.equals(badgedWith)) {
            badgedWith = now;
            policyEpoch.set(policyEpoch.get() + 1);
        }
    }

    /** Increases whenever the policy the badges follow changed. */
    public javafx.beans.property.ReadOnlyLongProperty policyEpochProperty() {
        return policyEpoch.getReadOnlyProperty();
    }

    /** The path relative to the root, for display ({@code src/app.js}); the root itself as its name. */
    public String relative(Path p) {
        Path n = p.toAbsolutePath().normalize();
        return n.equals(root) || !n.startsWith(root) ? n.toString() : root.relativize(n).toString();
    }

    /** Paths changed during this session. */
    public ObservableSet<Path> changed() {
        return FXCollections.unmodifiableObservableSet(changed);
    }

    public ReadOnlyObjectProperty<DirChange> dirChangeProperty() {
        return dirChange.getReadOnlyProperty();
    }
}
