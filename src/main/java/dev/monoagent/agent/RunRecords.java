package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.Seal;
import dev.monoagent.common.ToolOutcome;
import dev.monoagent.common.Violation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reading side of the run logs ({@link RunLogs} writes them): every run of a workspace as a summary, one run as
 * its parsed lines with the tool calls paired and the violations attributed. Both frontends read runs only through
 * here ({@code mono-agent runs}, the window's report export). A run log is attacker-influenced data (tool output,
 * model text) and may be torn by a crash, so nothing here trusts it: an unreadable line becomes a {@link Problem},
 * an event type this build does not know becomes a generic {@link Line} with its raw JSON, and neither stops the
 * rest of the log from counting.
 *
 * <p>Only what this machine recorded counts: a line is read only when it lies in a range {@link RunLogs} sealed with
 * the user's key ({@link Seal}). A run log with no valid seal (it came with the repository, or was written by hand) or
 * with a seal that does not match (a byte changed after it was written) is {@linkplain Run#recorded() not recorded
 * here}: none of its lines are read, it is listed apart and never as a run of this machine. Lines after the last seal
 * (a run still being written, or a crash) are left out and counted in {@link Run#ignoredLines()}.
 */
public final class RunRecords {
    private static final System.Logger LOG = System.getLogger(RunRecords.class.getName());

    private RunRecords() {}

    /** No run log for the id (the message names the id and where it was looked for). */
    public static final class NotFound extends Exception {
        private static final long serialVersionUID = 1L;

        NotFound(String message) {
            super(message);
        }
    }

    /**
     * One line of a run log.
     *
     * @param number 1-based line number in the file
     * @param type   the line's {@code type} field
     * @param time   the line's {@code time}, or null when it has none that parses
     * @param event  the parsed event, or null for a type this build does not know
     * @param raw    the line as JSON (always present)
     */
    public record Line(int number, String type, Instant time, Event event, JsonNode raw) {
        /** The line's own fields as compact JSON, without {@code type}, {@code time} and {@code runId}. */
        public String fields() {
            if (!(raw instanceof com.fasterxml.jackson.databind.node.ObjectNode o)) {
                return String.valueOf(raw);
            }
            com.fasterxml.jackson.databind.node.ObjectNode c = o.deepCopy();
            c.remove(List.of("type", "time", "runId"));
            return c.toString();
        }
    }

    /** A line that could not be read (torn by a crash, edited by hand): reported, never fatal. */
    public record Problem(int line, String message) {}

    /**
     * A tool call with its outcome.
     *
     * @param outcome    null while no {@code ToolCallFinished} was logged (the run crashed or is still running)
     * @param durationMs null likewise
     */
    public record ToolCall(String callId, String tool, String argsJson, Instant started, ToolOutcome outcome,
                           String status, String output, Long durationMs, List<Violation> violations) {}

    /** The status of a run log this machine did not record. */
    public static final String NOT_RECORDED = "not-recorded";

    /**
     * One row of {@code runs list}.
     *
     * @param status       {@code completed|failed|cancelled|stopped|incomplete}, or {@link #NOT_RECORDED}
     * @param seal         how far the log is sealed ({@link Seal.State#word})
     * @param ignoredLines lines left out because they are not sealed
     */
    public record Summary(String runId, Instant started, String status, String failureKind, String model,
                          int toolCalls, int violations, Long durationMs, int problems, String seal,
                          int ignoredLines) {
        /** False for a log this machine did not record: its counts mean nothing. */
        public boolean recorded() {
            return !NOT_RECORDED.equals(status);
        }
    }

    /**
     * One run log, read.
     *
     * @param seal         how far the log is sealed: {@code SEALED} or {@code PARTIAL} are recorded here (only the
     *                     sealed lines are in {@code lines}); {@code UNSEALED} or {@code TAMPERED} are not, and
     *                     {@code lines} is empty
     * @param ignoredLines non-blank lines left out because they are not sealed
     */
    public record Run(String runId, Path file, List<Line> lines, List<Problem> problems, Seal.State seal,
                      int ignoredLines) {
        public Run {
            lines = List.copyOf(lines);
            problems = List.copyOf(problems);
        }

        /** True when this machine recorded (sealed) the run's log. */
        public boolean recorded() {
            return seal == Seal.State.SEALED || seal == Seal.State.PARTIAL;
        }

        /** Why lines were left out, or null when the whole log is sealed. */
        public String trustNote() {
            if (!recorded()) {
                return "not recorded here (ignored): the log was not written by mono-agent on this machine ("
                        + seal.word() + ")";
            }
            return ignoredLines == 0 ? null : ignoredLines + " line(s) not sealed on this machine are ignored (the "
                    + "run is still being written, it was cut short, or they were added to its log)";
        }

        /** The parsed events, in log order. */
        public List<Event> events() {
            return lines.stream().filter(l -> l.event() != null).map(Line::event).toList();
        }

        /** Lines whose type this build does not know (a newer writer): listed generically. */
        public List<Line> unknown() {
            return lines.stream().filter(l -> l.event() == null).toList();
        }

        /**
         * The headers: one per process that wrote to the run (a {@code tools call --run-id r1} run gets one per
         * invocation), the first being what was in force when the run began.
         */
        public List<Event.RunHeader> headers() {
            return of(Event.RunHeader.class);
        }

        public Event.RunHeader header() {
            List<Event.RunHeader> h = headers();
            return h.isEmpty() ? null : h.get(0);
        }

        public Instant started() {
            for (Line l : lines) {
                if (l.time() != null) {
                    return l.time();
                }
            }
            return null;
        }

        /** When the run last finished, or null. */
        public Instant finished() {
            List<Event.RunFinished> f = of(Event.RunFinished.class);
            return f.isEmpty() ? null : f.get(f.size() - 1).time();
        }

        /**
         * {@code completed|failed|cancelled|stopped} from the last {@code RunFinished}, else {@code incomplete};
         * {@link #NOT_RECORDED} for a log this machine did not record.
         */
        public String status() {
            if (!recorded()) {
                return NOT_RECORDED;
            }
            List<Event.RunFinished> f = of(Event.RunFinished.class);
            return f.isEmpty() ? "incomplete" : f.get(f.size() - 1).status().wire();
        }

        /** Start to finish (to the last logged event when it never finished), or null for an empty log. */
        public Long durationMs() {
            Instant a = started();
            Instant b = finished();
            if (b == null) {
                for (Line l : lines) {
                    b = l.time() != null ? l.time() : b;
                }
            }
            return a == null || b == null ? null : Duration.between(a, b).toMillis();
        }

        /**
         * The run's failure kind ({@code provider_unavailable}, {@code max_turns}, …) from the agent loop's
         * {@code RunFailed} ({@code kind}) or any event carrying a {@code failureKind}; null when none.
         */
        public String failureKind() {
            String found = null;
            for (Line l : lines) {
                if ("RunFailed".equals(l.type()) && l.raw().path("kind").isTextual()) {
                    found = l.raw().path("kind").asText();
                } else if (l.raw().path("failureKind").isTextual()) {
                    found = l.raw().path("failureKind").asText();
                }
            }
            return found;
        }

        /** The model the run used, or null when no model request was logged. */
        public String model() {
            return firstText("model");
        }

        public String provider() {
            return firstText("provider");
        }

        /** What the user asked: every {@code UserMessage}, in order. */
        public List<String> prompts() {
            return of(Event.UserMessage.class).stream().map(Event.UserMessage::text).toList();
        }

        /**
         * The model's answer: the agent loop's final {@code AssistantMessage} ({@code finalAnswer}); when the log has
         * no complete messages (an older writer), the streamed {@code AssistantDelta} text joined; null when the run
         * produced no answer.
         */
        public String answer() {
            boolean messages = false;
            String last = null;
            for (Line l : lines) {
                if ("AssistantMessage".equals(l.type())) {
                    messages = true;
                    if (l.raw().path("finalAnswer").asBoolean(false) && l.raw().path("text").isTextual()) {
                        last = l.raw().path("text").asText();
                    }
                }
            }
            if (messages) {
                return last;
            }
            StringBuilder b = new StringBuilder();
            of(Event.AssistantDelta.class).forEach(d -> b.append(d.text()));
            return b.isEmpty() ? null : b.toString();
        }

        /** The model requests' metadata lines ({@code ModelCallFinished}: turn, model, tokens, retries, timings). */
        public List<JsonNode> modelCalls() {
            return lines.stream().filter(l -> "ModelCallFinished".equals(l.type())).map(Line::raw).toList();
        }

        /** Tokens over the run's model requests: input, cached input, output, reasoning. */
        public long[] tokens() {
            long[] t = new long[4];
            for (JsonNode m : modelCalls()) {
                t[0] += m.path("inputTokens").asLong(0);
                t[1] += m.path("cachedInputTokens").asLong(0);
                t[2] += m.path("outputTokens").asLong(0);
                t[3] += m.path("reasoningTokens").asLong(0);
            }
            return t;
        }

        /**
         * Self-checks that finished while the run's log was open (the engine publishes them to every open run, so a
         * run that began before the engine was proven records its proof here rather than in its header).
         */
        public List<Event.SelfCheckFinished> selfChecks() {
            return of(Event.SelfCheckFinished.class);
        }

        public List<Violation> violations() {
            return of(Event.ViolationObserved.class).stream().map(Event.ViolationObserved::violation).toList();
        }

        /** Connections to granted host loopback listeners (allowed traffic, not violations). */
        public List<Event.NetworkAllowed> allowedTraffic() {
            return of(Event.NetworkAllowed.class);
        }

        /** Every tool call in start order, with its outcome, duration and the violations attributed to it. */
        public List<ToolCall> toolCalls() {
            Map<String, Event.ToolCallStarted> started = new LinkedHashMap<>();
            Map<String, Event.ToolCallFinished> finished = new LinkedHashMap<>();
            for (Event e : events()) {
                if (e instanceof Event.ToolCallStarted s) {
                    started.putIfAbsent(s.callId(), s);
                } else if (e instanceof Event.ToolCallFinished f) {
                    finished.put(f.callId(), f);
                }
            }
            // a finish without a logged start (a torn line) still counts as a call
            finished.keySet().forEach(id -> started.putIfAbsent(id, null));
            List<Violation> vs = violations();
            List<ToolCall> out = new ArrayList<>();
            for (var en : started.entrySet()) {
                String id = en.getKey();
                Event.ToolCallStarted s = en.getValue();
                Event.ToolCallFinished f = finished.get(id);
                out.add(new ToolCall(id, s != null ? s.tool() : f.tool(), s != null ? s.argsJson() : null,
                        s != null ? s.time() : null, f != null ? f.outcome() : null,
                        f != null ? f.statusWord() : "unfinished", f != null ? f.text() : null,
                        f != null ? f.durationMs() : null,
                        vs.stream().filter(v -> id.equals(v.callId())).toList()));
            }
            return out;
        }

        public Summary summary() {
            return new Summary(runId, started(), status(), failureKind(), model(), toolCalls().size(),
                    violations().size(), durationMs(), problems.size(), seal.word(), ignoredLines);
        }

        private <T extends Event> List<T> of(Class<T> type) {
            return events().stream().filter(type::isInstance).map(type::cast).toList();
        }

        private String firstText(String field) {
            for (Line l : lines) {
                if (!(l.event() instanceof Event.RunHeader) && l.raw().path(field).isTextual()) {
                    return l.raw().path(field).asText();
                }
            }
            return null;
        }

    }

    /**
     * The user's seal from the process environment (the window), or null when its key cannot be had (then no log
     * counts as recorded here).
     */
    static Seal userSeal(java.util.Map<String, String> env) {
        try {
            return Seal.at(UserDirs.configDir(env));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "no seal key: " + e.getMessage());
            return null;
        }
    }

    /** As {@link #list(Path, java.util.Map)} with the process environment. */
    public static List<Summary> list(Path workspace) {
        return list(workspace, System.getenv());
    }

    /**
     * Every run of the workspace, newest first (by start time; a run without times sorts last), those not recorded
     * here included with the status {@link #NOT_RECORDED}; {@code env} locates the user's seal key.
     */
    public static List<Summary> list(Path workspace, java.util.Map<String, String> env) {
        Seal seal = userSeal(env);
        List<Summary> out = new ArrayList<>();
        for (Path f : RunLogs.all(workspace)) {
            try {
                out.add(parse(f.getParent().getFileName().toString(), f, workspace, seal).summary());
            } catch (UncheckedIOException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot read run log " + f + ": " + e.getMessage());
            }
        }
        out.sort(Comparator.comparing(Summary::started, Comparator.nullsFirst(Comparator.naturalOrder()))
                .reversed());
        return out;
    }

    /** As {@link #read(Path, String, java.util.Map)} with the process environment. */
    public static Run read(Path workspace, String runId) throws NotFound {
        return read(workspace, runId, System.getenv());
    }

    /**
     * The run log of {@code runId}, recorded on this machine (its sealed lines).
     *
     * @throws NotFound when the workspace has no log for the id, or this machine did not record it (says so)
     */
    public static Run read(Path workspace, String runId, java.util.Map<String, String> env) throws NotFound {
        if (runId == null || runId.isBlank() || runId.equals(".") || runId.equals("..")) {
            throw new NotFound("No run '" + runId + "' in " + runsDir(workspace) + ".");
        }
        Path f = RunLogs.file(workspace, runId);
        if (!Files.isRegularFile(f)) {
            throw new NotFound("No run '" + runId + "' in " + runsDir(workspace)
                    + " (mono-agent runs list shows the runs there).");
        }
        try {
            Run run = parse(runId, f, workspace, userSeal(env));
            if (!run.recorded()) {
                throw new NotFound("Run '" + runId + "' was not recorded on this machine: " + f + " is "
                        + run.seal().word() + ", so it came with the workspace or was changed after mono-agent wrote "
                        + "it; it is ignored.");
            }
            return run;
        } catch (UncheckedIOException e) {
            throw new NotFound("Cannot read the log of run '" + runId + "' (" + f + "): " + e.getCause().getMessage());
        }
    }

    /** Where a workspace's run logs live. */
    public static Path runsDir(Path workspace) {
        return workspace.resolve(".mono-agent").resolve("runs");
    }

    /**
     * Reads one log; every sealed line becomes a {@link Line} or a {@link Problem}, every other non-blank line is
     * counted as ignored ({@code seal} null: none is sealed).
     */
    static Run parse(String runId, Path file, Path workspace, Seal seal) {
        List<Line> lines = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        byte[] bytes = readBytes(file);
        Seal.Check check;
        try {
            check = seal == null ? new Seal.Check(bytes.length == 0 ? Seal.State.SEALED : Seal.State.UNSEALED,
                    List.of(), bytes.length) : seal.check(file, Seal.label(workspace, file), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean recorded = check.state() == Seal.State.SEALED || check.state() == Seal.State.PARTIAL;
        int ignored = 0;
        List<String> text = new ArrayList<>();
        List<long[]> spans = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                text.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
                spans.add(new long[] {from, Math.min(bytes.length, i + 1)});
                from = i + 1;
            }
        }
        for (int i = 0; i < text.size(); i++) {
            String s = text.get(i);
            if (s.isBlank()) {
                continue;
            }
            if (!recorded || !check.covers(spans.get(i)[0], spans.get(i)[1])) {
                ignored++;
                continue;
            }
            int n = i + 1;
            JsonNode raw;
            try {
                raw = EventJson.mapper().readTree(s);
            } catch (IOException | RuntimeException e) {
                problems.add(new Problem(n, "not JSON (a torn or edited line): " + clip(s)));
                continue;
            }
            if (raw == null || !raw.isObject() || !raw.path("type").isTextual()) {
                problems.add(new Problem(n, "not an event (no type): " + clip(s)));
                continue;
            }
            String type = raw.path("type").asText();
            Instant time = instant(raw.path("time"));
            Event event = null;
            try {
                event = EventJson.read(s);
            } catch (IllegalArgumentException | ClassCastException e) {
                if (EventJson.knows(type)) {
                    problems.add(new Problem(n, type + " with unreadable fields: " + clip(s)));
                    continue;
                }
                // a type this build does not know: kept generically
            }
            if (event != null && Event.runIdOf(event) != null && !(event instanceof Event.RunHeader)) {
                runId = Event.runIdOf(event);
            }
            lines.add(new Line(n, type, time, event, raw));
        }
        return new Run(runId, file, recorded ? lines : List.of(), recorded ? problems : List.of(), check.state(),
                ignored);
    }

    private static byte[] readBytes(Path f) {
        try {
            return Files.readAllBytes(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Instant instant(JsonNode n) {
        if (!n.isTextual()) {
            return null;
        }
        try {
            return Instant.parse(n.asText());
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private static String clip(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "…";
    }
}
