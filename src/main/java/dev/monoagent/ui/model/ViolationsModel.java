package dev.monoagent.ui.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The violations inspector: every violation of this workspace — the history from its run logs
 * ({@code .mono-agent/runs/<runId>/events.jsonl}) and this session's live ones, which are marked — deduplicated, since
 * the engine feed and a command's outcome can both report the same refusal; a filter (free text + tier + kind), the selected row's detail, a jump to
 * the transcript card of its tool call, and JSON/CSV export of the filtered rows. Allowed traffic (granted host
 * loopback listeners reached) is kept in a list of its own beside them ({@link #allowed}).
 */
public final class ViolationsModel {
    private final ObservableList<Violation> all = FXCollections.observableArrayList();
    private final ObservableList<Event.NetworkAllowed> allowed = FXCollections.observableArrayList();
    private final FilteredList<Violation> filtered = new FilteredList<>(all, v -> true);
    private final Set<String> seen = new HashSet<>();
    private final Set<String> session = new HashSet<>();
    private final StringProperty filterText = new SimpleStringProperty("");
    private final ObjectProperty<Violation.Tier> tierFilter = new SimpleObjectProperty<>();
    private final ObjectProperty<Violation.Kind> kindFilter = new SimpleObjectProperty<>();
    private final ReadOnlyObjectWrapper<Violation> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper("");
    private final ReadOnlyIntegerWrapper count = new ReadOnlyIntegerWrapper();
    private Consumer<String> jumpHandler = id -> { };

    public ViolationsModel() {
        filterText.addListener((o, a, b) -> refilter());
        tierFilter.addListener((o, a, b) -> refilter());
        kindFilter.addListener((o, a, b) -> refilter());
    }

    /** Adds a violation of this session unless the same refusal was already recorded (then it is marked). */
    public void add(Violation v) {
        String key = key(v);
        session.add(key);
        if (seen.add(key)) {
            all.add(v);
            count.set(all.size());
        }
    }

    /**
     * Adds allowed traffic of this session (a granted host loopback listener reached): listed apart from the
     * violations, never counted among them.
     */
    public void addAllowed(Event.NetworkAllowed a) {
        allowed.add(a);
    }

    /** Allowed traffic, oldest first (the inspector's own list, not violation rows). */
    public ObservableList<Event.NetworkAllowed> allowed() {
        return allowed;
    }

    /** Adds violations from the workspace's earlier runs (not marked as this session's), oldest first. */
    public void addHistory(List<Violation> past) {
        List<Violation> fresh = new java.util.ArrayList<>();
        for (Violation v : past) {
            if (seen.add(key(v))) {
                fresh.add(v);
            }
        }
        all.addAll(0, fresh);
        count.set(all.size());
    }

    /** Whether a row happened in this session (the view marks those rows). */
    public boolean inSession(Violation v) {
        return session.contains(key(v));
    }

    private static String key(Violation v) {
        return v.time() + "|" + v.callId() + "|" + v.kind() + "|" + v.target() + "|" + v.tier();
    }

    public void select(Violation v) {
        selected.set(v);
        detail.set(v == null ? "" : describe(v));
    }

    /** Asks the transcript to show the card of the selected violation's tool call. */
    public void jumpToCall() {
        Violation v = selected.get();
        if (v != null && v.callId() != null) {
            jumpHandler.accept(v.callId());
        }
    }

    /** Who handles {@link #jumpToCall} (the workbench wires the transcript in). */
    public void onJump(Consumer<String> handler) {
        this.jumpHandler = handler;
    }

    /** The filtered rows as a JSON array. */
    public String exportJson() {
        try {
            ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
            for (Violation v : filtered) {
                java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
                r.put("time", String.valueOf(v.time()));
                r.put("tier", v.tier().name().toLowerCase(Locale.ROOT));
                r.put("kind", v.kind().name().toLowerCase(Locale.ROOT));
                r.put("target", v.target());
                r.put("tool", v.tool());
                r.put("callId", v.callId());
                r.put("runId", v.runId());
                r.put("command", v.command());
                r.put("reason", v.reason());
                if (v.aggregated()) {
                    r.put("aggregated", v.more());
                }
                rows.add(r);
            }
            return m.writeValueAsString(rows);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The filtered rows as RFC 4180 CSV with a header line. */
    public String exportCsv() {
        StringBuilder sb = new StringBuilder("time,tier,kind,target,tool,callId,command,reason,runId\r\n");
        for (Violation v : filtered) {
            sb.append(String.join(",", csv(String.valueOf(v.time())), csv(v.tier().name()), csv(v.kind().name()),
                    csv(v.target()), csv(v.tool()), csv(v.callId()), csv(v.command()), csv(v.reason()),
                    csv(v.runId()))).append("\r\n");
        }
        return sb.toString();
    }

    static String csv(String s) {
        if (s == null) {
            return "";
        }
        if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    private void refilter() {
        String q = filterText.get() == null ? "" : filterText.get().toLowerCase(Locale.ROOT).trim();
        Violation.Tier t = tierFilter.get();
        Violation.Kind k = kindFilter.get();
        filtered.setPredicate(v -> (t == null || v.tier() == t) && (k == null || v.kind() == k)
                && (q.isEmpty() || haystack(v).contains(q)));
    }

    private static String haystack(Violation v) {
        return String.join(" ", String.valueOf(v.target()), String.valueOf(v.tool()), String.valueOf(v.command()),
                String.valueOf(v.reason()), String.valueOf(v.callId())).toLowerCase(Locale.ROOT);
    }

    private static String describe(Violation v) {
        // one field a line: what the agent chose (target, command, reason) cannot start a line of its own
        return "Time:     " + v.time() + "\nTier:     " + v.tier() + "\nKind:     " + v.kind()
                + "\nTarget:   " + dev.monoagent.common.Printable.line(v.target()) + "\nTool:     " + v.tool() + "\nCall:     " + v.callId()
                + "\nRun:      " + v.runId() + "\nCommand:  " + dev.monoagent.common.Printable.line(v.command()) + "\nReason:   " + dev.monoagent.common.Printable.line(v.reason())
                + (v.aggregated() ? "\nAggregated: " + v.more() + " records of this call, tier and kind counted in "
                + "this one (not listed one by one)" : "");
    }

    /** The text a row shows for its target: an aggregated record says how many it stands for. */
    public static String targetText(Violation v, java.util.function.Function<String, String> shown) {
        return v.aggregated() ? v.more() + " aggregated" : shown.apply(v.target());
    }

    /** How many records the rows stand for beyond themselves (aggregated ones, counted rather than listed). */
    public long aggregatedCount() {
        long n = 0;
        for (Violation v : all) {
            n += v.more();
        }
        return n;
    }

    /** Filtered rows, for the table. */
    public ObservableList<Violation> rows() {
        return filtered;
    }

    public StringProperty filterTextProperty() {
        return filterText;
    }

    public ObjectProperty<Violation.Tier> tierFilterProperty() {
        return tierFilter;
    }

    public ObjectProperty<Violation.Kind> kindFilterProperty() {
        return kindFilter;
    }

    public ReadOnlyObjectProperty<Violation> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty detailProperty() {
        return detail.getReadOnlyProperty();
    }

    public ReadOnlyIntegerProperty countProperty() {
        return count.getReadOnlyProperty();
    }
}
