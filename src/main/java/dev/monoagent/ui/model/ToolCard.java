package dev.monoagent.ui.model;

import dev.monoagent.common.Violation;
import java.time.Instant;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * A tool call in the transcript: name, arguments, status ({@code running}, {@code ok} or a failure code), duration,
 * its output as a list of lines (the view shows it in a virtualised list, so a million lines stay cheap), and the
 * violations attributed to the call.
 */
public final class ToolCard extends TranscriptEntry {
    /** Status while the call has not finished. */
    public static final String RUNNING = "running";

    private final String runId;
    private final String callId;
    private final String tool;
    private final String args;
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(RUNNING);
    private final ReadOnlyStringWrapper resultText = new ReadOnlyStringWrapper("");
    private final ReadOnlyLongWrapper durationMs = new ReadOnlyLongWrapper(-1);
    private final LineBuffer lines = new LineBuffer();
    private final ObservableList<Violation> violations = FXCollections.observableArrayList();
    private final BooleanProperty expanded = new SimpleBooleanProperty(true);

    public ToolCard(Instant time, String runId, String callId, String tool, String args) {
        super(time);
        this.runId = runId;
        this.callId = callId;
        this.tool = tool;
        this.args = args;
    }

    /** Appends streamed output; a trailing partial line is continued by the next chunk. */
    public void appendOutput(String text) {
        lines.append(text);
    }

    void finish(String outcome, String text, long millis) {
        status.set(outcome);
        resultText.set(text == null ? "" : text);
        durationMs.set(millis);
    }

    void addViolation(Violation v) {
        if (!violations.contains(v)) {
            violations.add(v);
        }
    }

    public String runId() {
        return runId;
    }

    public String callId() {
        return callId;
    }

    public String tool() {
        return tool;
    }

    public String args() {
        return args;
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** The result text the model would see (for a failure: the error line). */
    public ReadOnlyStringProperty resultTextProperty() {
        return resultText.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty durationMsProperty() {
        return durationMs.getReadOnlyProperty();
    }

    public ObservableList<String> outputLines() {
        return lines;
    }

    public ObservableList<Violation> violations() {
        return violations;
    }

    public BooleanProperty expandedProperty() {
        return expanded;
    }
}
