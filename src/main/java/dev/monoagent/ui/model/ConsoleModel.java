package dev.monoagent.ui.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.common.Event;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import dev.monoagent.ui.port.PortResult;
import dev.monoagent.ui.port.ToolRunner;
import dev.monoagent.ui.task.TaskExecutor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * A console that runs the reviewer's input as a tool call in the sandbox: the command console (tool {@code Bash})
 * and the NodeRepl console (tool {@code NodeRepl}, the run's persistent REPL). A submission only publishes events
 * ({@code ToolCallStarted}, streamed {@code ToolOutput}, {@code ViolationObserved}, {@code ToolCallFinished}); the
 * console renders its own calls from that same stream, so it and the transcript always agree and stay in order.
 * Works without any model.
 */
public final class ConsoleModel {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger CALLS = new AtomicInteger();

    private final String tool;
    private final String argName;
    private final ToolRunner runner;
    private final TaskExecutor executor;
    private final EventSink events;
    private final String runId;

    private final StringProperty input = new SimpleStringProperty("");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();
    private final ObservableList<ConsoleLine> lines = FXCollections.observableArrayList();
    private final List<String> history = new ArrayList<>();
    private final Set<String> ownCalls = new HashSet<>();
    private final Set<String> streamedCalls = new HashSet<>();
    private int historyPos;
    private TaskExecutor.Cancellable current = TaskExecutor.Cancellable.DONE;
    private boolean lastOutputOpen;

    private ConsoleModel(String tool, String argName, ToolRunner runner, TaskExecutor executor, EventSink events,
                         String runId) {
        this.tool = tool;
        this.argName = argName;
        this.runner = runner;
        this.executor = executor;
        this.events = events;
        this.runId = runId;
    }

    /** The command console: bash lines in the sandbox (tool {@code Bash}). */
    public static ConsoleModel command(ToolRunner runner, TaskExecutor executor, EventSink events, String runId) {
        return new ConsoleModel("Bash", "command", runner, executor, events, runId);
    }

    /** The NodeRepl console: JavaScript in the run's sandboxed REPL (tool {@code NodeRepl}). */
    public static ConsoleModel repl(ToolRunner runner, TaskExecutor executor, EventSink events, String runId) {
        return new ConsoleModel("NodeRepl", "code", runner, executor, events, runId);
    }

    /** Runs the current input (ignored while a previous submission runs or when blank). */
    public void submit() {
        String text = input.get();
        if (busy.get() || text == null || text.isBlank()) {
            return;
        }
        history.add(text);
        historyPos = history.size();
        input.set("");
        String callId = tool.toLowerCase(java.util.Locale.ROOT) + "-console-" + CALLS.incrementAndGet();
        ownCalls.add(callId);
        busy.set(true);
        Instant started = Instant.now();
        String args = argsJson(text);
        boolean self = runner.reportsEvents();
        if (!self) {
            events.accept(new Event.ToolCallStarted(started, runId, callId, tool, args));
        }
        AtomicBoolean streamed = new AtomicBoolean();
        current = executor.submit(tool + "-console",
                () -> runner.call(runId, callId, tool, args, chunk -> {
                    streamed.set(true);
                    events.accept(new Event.ToolOutput(Instant.now(), runId, callId, chunk));
                }),
                r -> {
                    if (self) {
                        return;
                    }
                    if (!streamed.get() && !r.text().isEmpty()) {
                        events.accept(new Event.ToolOutput(Instant.now(), runId, callId, r.text()));
                    }
                    for (Violation v : r.violations()) {
                        events.accept(new Event.ViolationObserved(v.time(), v));
                    }
                    long ms = r.elapsedMillis() > 0 ? r.elapsedMillis()
                            : java.time.Duration.between(started, Instant.now()).toMillis();
                    events.accept(new Event.ToolCallFinished(Instant.now(), runId, callId, tool, r.outcome(),
                            r.ok() ? "" : r.text(), r.data(), ms));
                },
                e -> events.accept(new Event.ToolCallFinished(Instant.now(), runId, callId, tool, ToolOutcome.FAILED,
                        "Error: " + e.getMessage(), null, java.time.Duration.between(started, Instant.now()).toMillis())));
    }

    /** Interrupts the running submission. */
    public void cancel() {
        current.cancel();
    }

    /** Restarts the REPL (NodeRepl console only): the run's REPL is ended, the next evaluation starts fresh. */
    public void restart() {
        if (!"NodeRepl".equals(tool)) {
            return;
        }
        executor.submit("repl-restart", () -> {
            runner.endRun(runId);
            return Boolean.TRUE;
        }, ok -> lines.add(new ConsoleLine(ConsoleLine.Kind.INFO, "Fresh REPL: the previous one was ended with all its state; the next evaluation starts clean.", null)),
                e -> lines.add(new ConsoleLine(ConsoleLine.Kind.ERROR, "Restart failed: " + e.getMessage(), null)));
    }

    /** Renders this console's own calls from the event stream (UI thread). */
    public void onEvent(Event e) {
        switch (e) {
            case Event.ToolCallStarted s when ownCalls.contains(s.callId()) -> {
                lastOutputOpen = false;
                String in = inputOf(s.argsJson());
                String[] parts = in.split("\n", -1);
                for (int i = 0; i < parts.length; i++) {
                    lines.add(new ConsoleLine(ConsoleLine.Kind.INPUT, (i == 0 ? prompt() : "… ") + parts[i],
                            s.callId()));
                }
            }
            case Event.ToolOutput o when ownCalls.contains(o.callId()) -> {
                streamedCalls.add(o.callId());
                appendOutput(o.text(), o.callId());
            }
            // the CLI's own words, no symbol: a glyph the console font lacks is drawn as a box
            case Event.ViolationObserved v when v.violation().callId() != null
                    && ownCalls.contains(v.violation().callId()) -> lines.add(new ConsoleLine(
                    ConsoleLine.Kind.VIOLATION, v.violation().recordLine(), v.violation().callId()));
            case Event.NetworkAllowed a when a.callId() != null && ownCalls.contains(a.callId()) -> lines.add(
                    new ConsoleLine(ConsoleLine.Kind.ALLOWED, a.recordLine(), a.callId()));
            case Event.ToolCallFinished f when ownCalls.contains(f.callId()) -> {
                lastOutputOpen = false;
                if (f.outcome().ok() && !streamedCalls.contains(f.callId()) && f.text() != null
                        && !f.text().isEmpty()) {
                    appendOutput(f.text(), f.callId());
                    lastOutputOpen = false;
                }
                if (!f.statusWord().equals(ToolOutcome.OK.wire())) {
                    lines.add(new ConsoleLine(ConsoleLine.Kind.ERROR, f.statusWord()
                            + (f.outcome().ok() || f.text() == null || f.text().isEmpty() ? "" : ": " + f.text()),
                            f.callId()));
                }
                busy.set(false);
            }
            default -> { }
        }
    }

    private void appendOutput(String text, String callId) {
        List<ConsoleLine> batch = new ArrayList<>();
        String[] parts = text.split("\n", -1);
        for (int i = 0; i < parts.length; i++) {
            boolean last = i == parts.length - 1;
            if (last && parts[i].isEmpty()) {
                lastOutputOpen = false;
                break;
            }
            if (i == 0 && lastOutputOpen && !lines.isEmpty()) {
                ConsoleLine prev = lines.get(lines.size() - 1);
                lines.set(lines.size() - 1, new ConsoleLine(prev.kind(),
                        dev.monoagent.common.Printable.outputLine(prev.text() + parts[0]), callId));
            } else {
                // a line that imitates one of our records (a violation marker) is shown marked as output
                batch.add(new ConsoleLine(ConsoleLine.Kind.OUTPUT, dev.monoagent.common.Printable.outputLine(parts[i]),
                        callId));
            }
            lastOutputOpen = last;
        }
        lines.addAll(batch);
    }

    /** Steps back through history into the input (Up arrow). */
    public void historyPrevious() {
        if (historyPos > 0) {
            historyPos--;
            input.set(history.get(historyPos));
        }
    }

    /** Steps forward through history (Down arrow); past the end clears the input. */
    public void historyNext() {
        if (historyPos < history.size() - 1) {
            historyPos++;
            input.set(history.get(historyPos));
        } else {
            historyPos = history.size();
            input.set("");
        }
    }

    public void clear() {
        lines.clear();
    }

    private String prompt() {
        return "Bash".equals(tool) ? "$ " : "> ";
    }

    private String argsJson(String text) {
        try {
            return JSON.writeValueAsString(Map.of(argName, text));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private String inputOf(String argsJson) {
        try {
            return JSON.readTree(argsJson).path(argName).asText();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return argsJson;
        }
    }

    public String tool() {
        return tool;
    }

    public StringProperty inputProperty() {
        return input;
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    public ObservableList<ConsoleLine> lines() {
        return lines;
    }

    public List<String> history() {
        return List.copyOf(history);
    }
}
