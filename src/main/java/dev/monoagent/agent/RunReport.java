package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.memory.SecretShapes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A run as a self-contained document a reviewer attaches to a finding: prompt, answer, the policy in force, the engine
 * fingerprint, the self-check, every tool call (outcome, duration, arguments, output) and every violation with its
 * tier and call id, in Markdown or HTML. One walk over the run ({@link #body}) drives both formats through a small
 * {@link Doc} so they never disagree.
 *
 * <p>Everything from the log is attacker-controlled (a repository's files reach tool output, a model's text reaches
 * the answer): the HTML escapes every character that could open markup, carries a Content-Security-Policy that
 * forbids scripts and any external load, and has no script of its own; the Markdown puts run content in code blocks
 * whose fence is longer than any backtick run inside, and backslash-escapes it elsewhere.
 */
public final class RunReport {
    /** Tool output shown per call; the rest stays in the run log (whose path the report names). */
    static final int OUTPUT_LIMIT = 20_000;

    /** Agent-loop event types rendered in their own sections (matched by name: read from the raw line). */
    private static final Set<String> RENDERED_TYPES = Set.of("AssistantMessage", "ModelCallFinished", "RunFailed");

    /** Events rendered in their own sections; any other type (a newer writer's too) is listed generically. */
    private static final Set<Class<?>> RENDERED = Set.of(Event.RunHeader.class, Event.RunStarted.class,
            Event.RunFinished.class, Event.UserMessage.class, Event.AssistantDelta.class, Event.ReasoningDelta.class,
            Event.ToolCallStarted.class, Event.ToolOutput.class, Event.ToolCallFinished.class,
            Event.ViolationObserved.class, Event.NetworkAllowed.class,
            Event.SelfCheckStarted.class, Event.ProbeFinished.class, Event.SelfCheckFinished.class);

    /**
     * srt's per-session proxy user and password ({@code srt.<base64>:<hex>}), which the sandbox's environment carries
     * in several forms (proxy URLs, {@code proxyauth=} of the ssh proxy command): loopback-only and gone with the
     * session, but a credential all the same.
     */
    private static final java.util.regex.Pattern SRT_PROXY_AUTH =
            java.util.regex.Pattern.compile("srt\\.[A-Za-z0-9+/=_-]{8,}:[0-9A-Fa-f]{16,}");

    private RunReport() {}

    /** The report formats. */
    public enum Format {
        MD("md"), HTML("html");

        private final String ext;

        Format(String ext) {
            this.ext = ext;
        }

        public String extension() {
            return ext;
        }

        /** The format for {@code md}/{@code markdown}/{@code html}, or null. */
        public static Format of(String name) {
            String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
            return switch (n) {
                case "md", "markdown" -> MD;
                case "html", "htm" -> HTML;
                default -> null;
            };
        }
    }

    /** The report text. */
    public static String render(RunRecords.Run run, Format format) {
        Doc d = format == Format.HTML ? new Html() : new Markdown();
        body(run, d);
        return d.end();
    }

    /** Writes the report to {@code out} (replacing it whole: never a half-written report) and returns the path. */
    public static Path write(RunRecords.Run run, Format format, Path out) throws IOException {
        Path target = out.toAbsolutePath();
        Path dir = target.getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path tmp = Files.createTempFile(dir, ".report-", ".tmp");
        try {
            Files.writeString(tmp, render(run, format), StandardCharsets.UTF_8);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    /** The file name a report gets by default: {@code run-<id>-report.<ext>} (the id made file-safe). */
    public static String fileName(RunRecords.Run run, Format format) {
        return "run-" + run.runId().replaceAll("[^A-Za-z0-9._-]", "_") + "-report." + format.extension();
    }

    private static void body(RunRecords.Run run, Doc d) {
        d.title("mono-agent run report: " + run.runId());
        Event.RunHeader h = run.header();
        List<String[]> f = new ArrayList<>();
        f.add(kv("Run", run.runId()));
        f.add(kv("Workspace", workspace(run)));
        f.add(kv("Started", str(run.started())));
        f.add(kv("Finished", run.finished() == null ? "not recorded (the run did not finish in this log)"
                : run.finished().toString()));
        f.add(kv("Duration", ms(run.durationMs())));
        f.add(kv("Status", run.status()));
        f.add(kv("Failure kind", run.failureKind() == null ? "none" : run.failureKind()));
        f.add(kv("Model", run.model() == null ? "none recorded (no model request in this run)"
                : run.model() + (run.provider() == null ? "" : " (" + run.provider() + ")")));
        List<JsonNode> requests = run.modelCalls();
        if (!requests.isEmpty()) {
            long[] t = run.tokens();
            f.add(kv("Model requests", requests.size() + " (tokens: " + t[0] + " in, " + t[1] + " cached, " + t[2]
                    + " out, " + t[3] + " reasoning)"));
        }
        f.add(kv("Tool calls", String.valueOf(run.toolCalls().size())));
        long aggregated = run.violations().stream().mapToLong(Violation::more).sum();
        f.add(kv("Violations", run.violations().size() + (aggregated > 0 ? " records (" + aggregated
                + " more aggregated into them)" : "")));
        f.add(kv("Run log", run.file().toString()));
        f.add(kv("Recorded here", run.trustNote() == null ? "yes (the whole log is sealed on this machine)"
                : run.trustNote()));
        d.fields(f);

        d.heading("Prompt");
        List<String> prompts = run.prompts();
        if (prompts.isEmpty()) {
            d.para("No user message in this run (its tool calls were made directly, e.g. by mono-agent tools call "
                    + "or a console of the window).");
        }
        prompts.forEach(d::code);
        d.heading("Answer");
        String answer = run.answer();
        if (answer == null) {
            d.para(run.failureKind() == null ? "No answer recorded."
                    : "No answer: the run failed (" + run.failureKind() + ").");
        } else {
            d.code(answer);
        }
        // the model's reasoning summaries, one block per stretch of them (their pieces joined)
        List<String> summaries = new ArrayList<>();
        StringBuilder cur = null;
        for (RunRecords.Line l : run.lines()) {
            if (l.event() instanceof Event.ReasoningDelta r) {
                cur = cur == null ? new StringBuilder() : cur;
                cur.append(r.text());
            } else if (cur != null) {
                summaries.add(cur.toString());
                cur = null;
            }
        }
        if (cur != null) {
            summaries.add(cur.toString());
        }
        if (!summaries.isEmpty()) {
            d.heading("Reasoning summary");
            summaries.forEach(d::code);
        }
        for (RunRecords.Line l : run.lines()) {
            if ("RunFailed".equals(l.type())) {
                d.para("Failure " + l.raw().path("kind").asText("-") + ": " + l.raw().path("message").asText("-"));
            }
        }
        if (!requests.isEmpty()) {
            d.heading("Model requests (" + requests.size() + ")");
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode m : requests) {
                rows.add(List.of(m.path("turn").asText("-"), m.path("provider").asText("-"),
                        m.path("model").asText("-"), m.path("outcome").asText("-"),
                        m.path("inputTokens").asText("-") + " / " + m.path("cachedInputTokens").asText("-"),
                        m.path("outputTokens").asText("-") + " / " + m.path("reasoningTokens").asText("-"),
                        m.path("retries").asText("-"), m.path("firstEventMs").asText("-") + " ms",
                        m.path("durationMs").asText("-") + " ms"));
            }
            d.table(List.of("Turn", "Provider", "Model", "Outcome", "Tokens in / cached", "Tokens out / reasoning",
                    "Retries", "First event", "Duration"), rows);
        }

        d.heading("Policy in force");
        if (h == null) {
            d.para("The log has no run header: the policy in force is not recorded.");
        } else {
            List<String[]> p = new ArrayList<>();
            h.policy().forEach((k, v) -> p.add(kv(k, value(v))));
            d.fields(p);
        }
        d.heading("Sandbox engine and self-check");
        if (h == null) {
            d.para("The log has no run header: engine and self-check are not recorded.");
        } else {
            d.fields(engine(h));
            List<Event.RunHeader> later = run.headers().subList(1, run.headers().size());
            if (!later.isEmpty()) {
                d.para("The run was continued by " + later.size() + " later process(es); each recorded what was in "
                        + "force when it joined:");
                List<List<String>> rows = new ArrayList<>();
                for (Event.RunHeader x : later) {
                    rows.add(List.of(x.time().toString(), x.policy().equals(h.policy()) ? "same" : "CHANGED",
                            engineWord(x), check(x)));
                }
                d.table(List.of("Joined", "Policy", "Engine", "Self-check"), rows);
            }
        }
        List<Event.SelfCheckFinished> checks = run.selfChecks();
        if (!checks.isEmpty()) {
            d.para("Self-checks run while this run was open (the engine was proven after the run began):");
            List<List<String>> rows = new ArrayList<>();
            for (Event.SelfCheckFinished c : checks) {
                List<String> failed = c.results().stream().filter(p -> !p.passed())
                        .map(p -> p.id() + ": " + p.detail()).toList();
                rows.add(List.of(c.time().toString(), c.passed() ? "passed" : "FAILED",
                        String.valueOf(c.results().size()), failed.isEmpty() ? "none" : String.join("; ", failed)));
            }
            d.table(List.of("Finished", "Result", "Probes", "Failed probes"), rows);
        } else if (h != null && (h.lastCheck() == null || h.lastCheck().at() == null)) {
            d.para("No self-check is recorded in this log.");
        }

        List<RunRecords.ToolCall> calls = run.toolCalls();
        d.heading("Tool calls (" + calls.size() + ")");
        if (calls.isEmpty()) {
            d.para("No tool calls.");
        } else {
            List<List<String>> rows = new ArrayList<>();
            int i = 1;
            for (RunRecords.ToolCall c : calls) {
                rows.add(List.of(String.valueOf(i++), c.callId(), c.tool(), c.status(), ms(c.durationMs()),
                        String.valueOf(c.violations().size())));
            }
            d.table(List.of("#", "Call id", "Tool", "Outcome", "Duration", "Violations"), rows);
            for (RunRecords.ToolCall c : calls) {
                d.subheading(c.callId() + " · " + c.tool());
                d.fields(List.of(kv("Started", str(c.started())), kv("Outcome", c.status()),
                        kv("Duration", ms(c.durationMs())), kv("Violations", c.violations().isEmpty() ? "none"
                                : c.violations().stream().map(RunReport::violationWord).toList().toString())));
                d.para("Arguments:");
                d.code(c.argsJson() == null ? "(not recorded)" : c.argsJson());
                d.para("Result:");
                d.code(clipOutput(c.output()));
            }
        }

        List<Violation> vs = run.violations();
        long more = vs.stream().mapToLong(Violation::more).sum();
        d.heading("Violations (" + vs.size() + (more > 0 ? ", " + more + " more aggregated" : "") + ")");
        if (vs.isEmpty()) {
            d.para("None recorded.");
        } else {
            List<List<String>> rows = new ArrayList<>();
            for (Violation v : vs) {
                rows.add(List.of(str(v.time()), lower(v.tier()), lower(v.kind()), str(v.callId()), str(v.tool()),
                        str(v.target()), str(v.reason()), str(v.command())));
            }
            d.table(List.of("Time", "Tier", "Kind", "Call id", "Tool", "Target", "Reason", "Command"), rows);
        }

        List<Event.NetworkAllowed> allowed = run.allowedTraffic();
        if (!allowed.isEmpty()) {
            // granted by localhost mode, so not violations: listed so that a reached Docker API or debugger is seen
            d.heading("Allowed traffic (" + allowed.size() + ")");
            List<List<String>> rows = new ArrayList<>();
            for (Event.NetworkAllowed a : allowed) {
                rows.add(List.of(str(a.time()), str(a.callId()), str(a.tool()), a.host() + ":" + a.port(),
                        str(a.listener()), str(a.command())));
            }
            d.table(List.of("Time", "Call id", "Tool", "Host port", "Listener", "Command"), rows);
        }

        List<RunRecords.Line> other = run.lines().stream()
                .filter(l -> !RENDERED_TYPES.contains(l.type()))
                .filter(l -> l.event() == null || !RENDERED.contains(l.event().getClass())).toList();
        if (!other.isEmpty()) {
            d.heading("Other events (" + other.size() + ")");
            List<List<String>> rows = new ArrayList<>();
            for (RunRecords.Line l : other) {
                rows.add(List.of(String.valueOf(l.number()), str(l.time()), l.type()
                        + (l.event() == null ? " (unknown to this build)" : ""), details(l)));
            }
            d.table(List.of("Line", "Time", "Type", "Details"), rows);
        }
        if (!run.problems().isEmpty()) {
            d.heading("Log problems (" + run.problems().size() + ")");
            d.para("These lines of the run log could not be read; the rest of the report is built from the others.");
            List<List<String>> rows = new ArrayList<>();
            run.problems().forEach(p -> rows.add(List.of(String.valueOf(p.line()), p.message())));
            d.table(List.of("Line", "Problem"), rows);
        }
        d.para("Generated " + Instant.now() + " from " + run.file() + ". Secret-shaped text in run content is shown as "
                + "[redacted: kind]; the run log keeps it as recorded.");
    }

    private static String workspace(RunRecords.Run run) {
        for (Event e : run.events()) {
            if (e instanceof Event.RunStarted s) {
                return s.workspace();
            }
        }
        Event.RunHeader h = run.header();
        return h == null ? "not recorded" : value(h.policy().get("workspace"));
    }

    private static List<String[]> engine(Event.RunHeader h) {
        Event.EngineFingerprint e = h.engine();
        return List.of(kv("Engine version", e == null ? "not recorded" : str(e.version())),
                kv("Engine digest", e == null ? "not recorded" : str(e.digest())),
                kv("Engine source", e == null ? "not recorded" : str(e.source())),
                kv("Last self-check", check(h)));
    }

    private static String engineWord(Event.RunHeader h) {
        Event.EngineFingerprint e = h.engine();
        return e == null ? "not recorded" : str(e.source()) + " " + str(e.version()) + " " + str(e.digest());
    }

    private static String check(Event.RunHeader h) {
        Event.LastCheck c = h.lastCheck();
        if (c == null || c.at() == null) {
            return "not yet run when the run began";
        }
        return (c.passed() ? "passed" : "FAILED") + " at " + c.at();
    }

    /** A generic event's fields, without what the row already shows. */
    private static String details(RunRecords.Line l) {
        String s = l.fields();
        return s.length() <= 600 ? s : s.substring(0, 600) + "… (" + s.length() + " chars)";
    }

    private static String clipOutput(String s) {
        if (s == null) {
            return "(no result recorded)";
        }
        if (s.length() <= OUTPUT_LIMIT) {
            return s;
        }
        return s.substring(0, OUTPUT_LIMIT) + "\n… " + (s.length() - OUTPUT_LIMIT)
                + " more characters in the run log";
    }

    private static String violationWord(Violation v) {
        return lower(v.tier()) + " " + lower(v.kind()) + " " + (v.aggregated() ? v.more() + " aggregated"
                : str(v.target()));
    }

    private static String value(Object v) {
        if (v instanceof Collection<?> c) {
            return c.isEmpty() ? "(none)" : String.join(", ", c.stream().map(String::valueOf).toList());
        }
        if (v instanceof Map<?, ?> m) {
            return m.toString();
        }
        return str(v);
    }

    private static String lower(Enum<?> e) {
        return e == null ? "-" : e.name().toLowerCase(Locale.ROOT);
    }

    private static String ms(Long ms) {
        return ms == null ? "-" : ms + " ms";
    }

    private static String str(Object o) {
        return o == null ? "-" : o.toString();
    }

    /**
     * Run content as a report shows it: secret-shaped text masked ({@link SecretShapes#redact}: a report is meant to
     * be attached to a finding and shared, the run log keeps the original), and without terminal or markup control
     * characters: C0 (but newline and tab), DEL and C1 become U+FFFD, so a report printed to a terminal cannot
     * recolour it, move the cursor or retitle the window.
     */
    static String visible(String raw) {
        String s = SecretShapes.redact(SRT_PROXY_AUTH.matcher(raw)
                .replaceAll("[redacted: sandbox proxy credentials]"));
        StringBuilder o = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f;
            if (control && o == null) {
                o = new StringBuilder(s.length()).append(s, 0, i);
            }
            if (o != null) {
                o.append(control ? '\uFFFD' : c);
            }
        }
        return o == null ? s : o.toString();
    }

    private static String[] kv(String k, String v) {
        return new String[] {k, v};
    }

    /** The few shapes a report is made of; each format escapes everything it is given. */
    private interface Doc {
        void title(String text);

        void heading(String text);

        void subheading(String text);

        void para(String text);

        void fields(List<String[]> keyValues);

        void table(List<String> headers, List<List<String>> rows);

        void code(String text);

        String end();
    }

    /** CommonMark: run content in code blocks/spans or backslash-escaped, so it never becomes markup or HTML. */
    private static final class Markdown implements Doc {
        /** CommonMark/GFM punctuation that can open emphasis, code, links, HTML, entities or table cells. */
        private static final String MARKUP = "\\`*_[]<>|~&";
        /** ... and what opens a heading, list or quote at the start of a line. */
        private static final String LINE_START = "#-+>=";
        private final StringBuilder b = new StringBuilder();

        @Override
        public void title(String text) {
            b.append("# ").append(inline(text)).append("\n\n");
        }

        @Override
        public void heading(String text) {
            b.append("## ").append(inline(text)).append("\n\n");
        }

        @Override
        public void subheading(String text) {
            b.append("### ").append(inline(text)).append("\n\n");
        }

        @Override
        public void para(String text) {
            b.append(inline(text)).append("\n\n");
        }

        @Override
        public void fields(List<String[]> kvs) {
            for (String[] kv : kvs) {
                b.append("- **").append(inline(kv[0])).append("**: ").append(inline(kv[1])).append('\n');
            }
            b.append('\n');
        }

        @Override
        public void table(List<String> headers, List<List<String>> rows) {
            b.append("| ").append(String.join(" | ", headers.stream().map(Markdown::inline).toList())).append(" |\n");
            b.append("|").append("---|".repeat(headers.size())).append('\n');
            for (List<String> r : rows) {
                b.append("| ").append(String.join(" | ", r.stream().map(Markdown::inline).toList())).append(" |\n");
            }
            b.append('\n');
        }

        @Override
        public void code(String raw) {
            String text = visible(raw);
            String fence = "`".repeat(Math.max(3, longestRun(text, '`') + 1));
            b.append(fence).append("text\n").append(text);
            if (!text.endsWith("\n")) {
                b.append('\n');
            }
            b.append(fence).append("\n\n");
        }

        @Override
        public String end() {
            return b.toString();
        }

        /** One line of text with every CommonMark punctuation escaped (so no emphasis, link, HTML or table cell). */
        static String inline(String raw) {
            String s = visible(raw);
            StringBuilder o = new StringBuilder(s.length() + 16);
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '\n' || c == '\r') {
                    o.append(' ');
                } else if (MARKUP.indexOf(c) >= 0 || i == 0 && LINE_START.indexOf(c) >= 0) {
                    o.append('\\').append(c);
                } else {
                    o.append(c);
                }
            }
            return o.toString();
        }

        private static int longestRun(String s, char c) {
            int best = 0;
            int run = 0;
            for (int i = 0; i < s.length(); i++) {
                run = s.charAt(i) == c ? run + 1 : 0;
                best = Math.max(best, run);
            }
            return best;
        }
    }

    /**
     * One HTML file with inline CSS, no script and no external resource; a CSP forbids both anyway, so a missed
     * escape still could not run code or call out.
     */
    private static final class Html implements Doc {
        private static final String CSS = """
                body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:70em;\
                padding:0 1em;color:#1d1f21;background:#fff}
                h1{font-size:1.5em;border-bottom:2px solid #c62828;padding-bottom:.3em}
                h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}
                h3{font-size:1em;margin-top:1.4em;font-family:ui-monospace,Menlo,Consolas,monospace}
                table{border-collapse:collapse;margin:.6em 0;width:100%}
                th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;\
                overflow-wrap:break-word}
                th{background:#f3f3f3}
                dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}
                dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
                pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.6em;overflow:auto;white-space:pre-wrap;\
                overflow-wrap:anywhere;max-height:40em}
                """;
        private final StringBuilder b = new StringBuilder();

        Html() {
            b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                    .append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ")
                    .append("style-src 'unsafe-inline'; img-src 'none'; form-action 'none'\">\n")
                    .append("<meta name=\"referrer\" content=\"no-referrer\">\n")
                    .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        }

        @Override
        public void title(String text) {
            b.append("<title>").append(esc(text)).append("</title>\n<style>\n").append(CSS)
                    .append("</style>\n</head>\n<body>\n<h1>").append(esc(text)).append("</h1>\n");
        }

        @Override
        public void heading(String text) {
            b.append("<h2>").append(esc(text)).append("</h2>\n");
        }

        @Override
        public void subheading(String text) {
            b.append("<h3>").append(esc(text)).append("</h3>\n");
        }

        @Override
        public void para(String text) {
            b.append("<p>").append(esc(text)).append("</p>\n");
        }

        @Override
        public void fields(List<String[]> kvs) {
            b.append("<dl>\n");
            for (String[] kv : kvs) {
                b.append("<dt>").append(esc(kv[0])).append("</dt><dd>").append(esc(kv[1])).append("</dd>\n");
            }
            b.append("</dl>\n");
        }

        @Override
        public void table(List<String> headers, List<List<String>> rows) {
            b.append("<table>\n<thead><tr>");
            headers.forEach(h -> b.append("<th>").append(esc(h)).append("</th>"));
            b.append("</tr></thead>\n<tbody>\n");
            for (List<String> r : rows) {
                b.append("<tr>");
                r.forEach(c -> b.append("<td>").append(breakable(c)).append("</td>"));
                b.append("</tr>\n");
            }
            b.append("</tbody>\n</table>\n");
        }

        @Override
        public void code(String text) {
            b.append("<pre>").append(esc(text)).append("</pre>\n");
        }

        @Override
        public String end() {
            return b.append("</body>\n</html>\n").toString();
        }

        /**
         * A table cell's text, escaped, with a break opportunity after each {@code /}. The cells keep
         * {@code overflow-wrap:break-word}, which (unlike {@code anywhere} or {@code word-break:break-all}) leaves a
         * column's narrowest width at its longest word: a squeezed table would otherwise break "observed" into
         * "obser|ved". A long path then wraps at its separators instead of widening its column past the page.
         */
        static String breakable(String raw) {
            return esc(raw).replace("/", "/<wbr>");
        }

        /** Escapes the five markup characters (after {@link #visible} dropped the control characters). */
        static String esc(String raw) {
            String s = visible(raw);
            StringBuilder o = new StringBuilder(s.length() + 16);
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '&' -> o.append("&amp;");
                    case '<' -> o.append("&lt;");
                    case '>' -> o.append("&gt;");
                    case '"' -> o.append("&quot;");
                    case '\'' -> o.append("&#39;");
                    default -> o.append(c);
                }
            }
            return o.toString();
        }
    }
}
