package dev.monoagent.cli;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import java.io.PrintWriter;

/**
 * The CLI's two consumers of the event bus. {@link #jsonl}: one {@link EventJson#line} per event on stdout (what
 * {@code --json} prints; the run log holds the same lines). {@link #human}: the reviewer's view on stderr — violations
 * as they happen, in the one wording every command uses. Command output itself is printed by the command.
 */
abstract sealed class EventPrinter implements EventSink {

    /** Every event as a JSON line. */
    static EventPrinter jsonl(PrintWriter out) {
        return new Jsonl(out);
    }

    /** Violations (and failed tool calls) as human lines. */
    static EventPrinter human(PrintWriter err) {
        return new Human(err);
    }

    /** The one human wording of a violation ({@link Violation#recordLine}). */
    static String violationLine(Violation v) {
        return v.recordLine();
    }

    private static final class Jsonl extends EventPrinter {
        private final PrintWriter out;

        Jsonl(PrintWriter out) {
            this.out = out;
        }

        @Override
        public synchronized void accept(Event e) {
            out.println(EventJson.line(e));
            out.flush();
        }
    }

    private static final class Human extends EventPrinter {
        private final PrintWriter err;

        Human(PrintWriter err) {
            this.err = err;
        }

        @Override
        public synchronized void accept(Event e) {
            if (e instanceof Event.ViolationObserved v) {
                err.println(violationLine(v.violation()));
                err.flush();
            } else if (e instanceof Event.NetworkAllowed a) {
                err.println(a.recordLine());
                err.flush();
            }
        }
    }
}
