package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.Violation;
import dev.monoagent.tools.ToolResult;
import java.util.List;

/**
 * One tool call's result as the control endpoint carries it to {@code mono-agent tools call}: the outcome, the
 * model-facing text, structured data, and every event of the call as a run-log JSON line (the CLI prints them with
 * the same printers as a call made in its own process).
 *
 * @param outcome {@code ok} or the failure code
 * @param text    the model-facing text
 * @param data    structured data of an ok result, or null
 * @param events  the call's events ({@link EventJson#line}), in order
 */
public record ToolCallReply(ToolOutcome outcome, String text, JsonNode data, List<String> events) {
    public ToolCallReply {
        events = events == null ? List.of() : List.copyOf(events);
    }

    /** The reply for a finished call and the events attributed to it. */
    public static ToolCallReply of(ToolResult r, List<Event> events) {
        return new ToolCallReply(r.outcome(), r.text(), r instanceof ToolResult.Ok ok ? ok.data() : null,
                events.stream().map(EventJson::line).toList());
    }

    /** A reply for a call that never reached a tool. */
    public static ToolCallReply of(ToolOutcome outcome, String text, List<Event> events) {
        return new ToolCallReply(outcome, text, null, events.stream().map(EventJson::line).toList());
    }

    /** The events, parsed. */
    public List<Event> parsedEvents() {
        return events.stream().map(EventJson::read).toList();
    }

    /** The violations among the events. */
    public List<Violation> violations() {
        return parsedEvents().stream().filter(e -> e instanceof Event.ViolationObserved)
                .map(e -> ((Event.ViolationObserved) e).violation()).toList();
    }
}
