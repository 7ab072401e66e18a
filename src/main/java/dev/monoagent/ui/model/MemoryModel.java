package dev.monoagent.ui.model;

import dev.monoagent.ui.port.MemoryPort;
import dev.monoagent.ui.task.TaskExecutor;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Memory tab's view-model: today's journal, a search with hybrid results (source file and line per row) and a
 * status line. All memory work runs on the executor; nothing is opened until the tab is first shown.
 */
public final class MemoryModel {
    private final MemoryPort port;
    private final TaskExecutor executor;
    private final ObservableList<MemoryPort.Row> today = FXCollections.observableArrayList();
    private final ObservableList<MemoryPort.Row> results = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("Memory: not opened yet.");
    private final ReadOnlyStringWrapper found = new ReadOnlyStringWrapper("");

    public MemoryModel(MemoryPort port, TaskExecutor executor) {
        this.port = port;
        this.executor = executor;
    }

    public ObservableList<MemoryPort.Row> today() {
        return today;
    }

    public ObservableList<MemoryPort.Row> results() {
        return results;
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** How the last search found its rows ({@code 3 results, hybrid}). */
    public ReadOnlyStringProperty foundProperty() {
        return found.getReadOnlyProperty();
    }

    /** Re-reads today's journal and the status line. */
    public void refresh() {
        executor.submit("memory-today", () -> new Object[] {port.today(), port.status()}, r -> {
            @SuppressWarnings("unchecked")
            java.util.List<MemoryPort.Row> rows = (java.util.List<MemoryPort.Row>) r[0];
            today.setAll(rows);
            status.set((String) r[1]);
        }, this::failed);
    }

    public void search(String query) {
        if (query == null || query.isBlank()) {
            results.clear();
            found.set("");
            return;
        }
        found.set("Searching…");
        executor.submit("memory-search", () -> port.search(query.strip()), f -> {
            results.setAll(f.rows());
            found.set(f.rows().size() + " result(s), " + f.how());
        }, this::failed);
    }

    private void failed(Throwable t) {
        status.set("Memory unavailable: " + t.getMessage());
        found.set("");
    }
}
