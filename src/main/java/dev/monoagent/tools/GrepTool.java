package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Grep: regex search (ripgrep syntax) with output modes {@code files_with_matches} (default), {@code content} (with
 * -A/-B/-C context and line numbers) and {@code count}; glob/type filters, case-insensitive and multiline options,
 * {@code head_limit}. Same walking rules as {@link GlobTool}. Results are sorted by path so they are stable. No
 * match is a successful answer ("No matches found."), like grep's exit 1.
 */
final class GrepTool extends BasicTool {
    private static final JsonNode SCHEMA = Args.schema()
            .str("pattern", "Regular expression (ripgrep/Rust syntax).", true)
            .str("path", "File or directory to search (default: the workspace).", false)
            .str("glob", "Only files matching this glob, e.g. '*.java' or 'src/**/*.ts'.", false)
            .str("type", "Only files of this ripgrep type, e.g. java, js, py.", false)
            .enumeration("output_mode", "files_with_matches (default), content or count.",
                    "files_with_matches", "content", "count")
            .integer("-A", "Lines of context after each match (content mode).", false)
            .integer("-B", "Lines of context before each match (content mode).", false)
            .integer("-C", "Lines of context around each match (content mode).", false)
            .bool("-i", "Case-insensitive.")
            .bool("-n", "Show line numbers in content mode (default true).")
            .bool("multiline", "Let . and patterns span lines.")
            .integer("head_limit", "Most lines/files/entries to return.", false)
            .build();

    GrepTool() {
        super(ToolNames.GREP,
                "Search file contents with a regular expression (ripgrep). output_mode: files_with_matches (default), "
                + "content (matching lines with optional -A/-B/-C context) or count. Honors .gitignore; skips .git.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String pattern = Args.requireString(args, "pattern");
        String mode = Args.optString(args, "output_mode");
        mode = mode == null ? "files_with_matches" : mode;
        if (!List.of("files_with_matches", "content", "count").contains(mode)) {
            throw new Args.Invalid("output_mode must be files_with_matches, content or count.");
        }
        Long a = Args.optLong(args, "-A", 0, 1000);
        Long b = Args.optLong(args, "-B", 0, 1000);
        Long c = Args.optLong(args, "-C", 0, 1000);
        Long limit = Args.optLong(args, "head_limit", 1, 10_000_000);
        boolean lineNumbers = !args.has("-n") || Args.optBool(args, "-n");
        if (!mode.equals("content") && (a != null || b != null || c != null)) {
            throw new Args.Invalid("-A/-B/-C apply to output_mode content only.");
        }
        List<String> argv;
        try {
            argv = Ripgrep.baseArgs(ctx);
        } catch (Ripgrep.Missing e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: " + e.getMessage());
        }
        if (Args.optBool(args, "-i")) {
            argv.add("--ignore-case");
        }
        if (Args.optBool(args, "multiline")) {
            argv.add("--multiline");
            argv.add("--multiline-dotall");
        }
        String glob = Args.optString(args, "glob");
        if (glob != null && !glob.isBlank()) {
            argv.add("--glob=" + glob);
        }
        String type = Args.optString(args, "type");
        if (type != null && !type.isBlank()) {
            argv.add("--type=" + type);
        }
        Ripgrep.addExcludes(argv);
        switch (mode) {
            case "files_with_matches" -> argv.add("--files-with-matches");
            case "count" -> {
                argv.add("--count");
                argv.add("--with-filename");
                argv.add("--null");
            }
            default -> {
                argv.add("--with-filename");
                argv.add("--no-heading");
                argv.add("--line-number");
                argv.add("--null");
                if (c != null) {
                    argv.add("--context=" + c);
                }
                if (a != null) {
                    argv.add("--after-context=" + a);
                }
                if (b != null) {
                    argv.add("--before-context=" + b);
                }
            }
        }
        argv.add("--regexp=" + pattern);
        final String m = mode;
        final boolean withContext = (a != null && a > 0) || (b != null && b > 0) || (c != null && c > 0);
        return switch (SearchRoot.resolve(Args.optString(args, "path"), ctx)) {
            case SearchRoot.Resolution.Refused r -> r.result();
            case SearchRoot.Resolution.Found f -> search(f.root(), argv, m, limit, lineNumbers, withContext, ctx);
        };
    }

    private static ToolResult search(SearchRoot root, List<String> argv, String mode, Long limit,
                                     boolean lineNumbers, boolean withContext, ToolContext ctx) {
        argv.add("--");
        argv.add(root.arg());
        Ripgrep.Output out;
        try {
            out = Ripgrep.run(ctx, argv, root.cwd());
        } catch (IOException e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: " + e.getMessage());
        }
        if (out.timedOut()) {
            return new ToolResult.Failed(ToolResult.TIMEOUT, "Error: Grep timed out after "
                    + Ripgrep.TIMEOUT_MS / 1000 + " s; narrow the path, glob or pattern.");
        }
        if (out.exitCode() == 2 && out.stdout().length == 0) {
            String err = out.stderr().strip();
            return new ToolResult.Failed(err.contains("regex") ? ToolResult.INVALID_ARGUMENTS : ToolResult.FAILED,
                    "Error: " + (err.isEmpty() ? "ripgrep failed." : err));
        }
        PathGuard guard = FileAccess.guard(ctx);
        String text = new String(out.stdout(), StandardCharsets.UTF_8);
        return switch (mode) {
            case "files_with_matches" -> files(root, guard, text, limit, out.truncated());
            case "count" -> counts(root, guard, text, limit);
            default -> content(root, guard, text, limit, lineNumbers, withContext, out.truncated());
        };
    }

    private static ToolResult files(SearchRoot root, PathGuard guard, String text, Long limit, boolean truncated) {
        List<String> paths = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty() && root.readable(line, guard)) {
                paths.add(SearchRoot.clean(line));
            }
        }
        paths.sort(null);
        var data = ToolOrchestrator.JSON.createObjectNode().put("files", paths.size());
        if (paths.isEmpty()) {
            return new ToolResult.Ok("No matches found.", data);
        }
        int shown = limit == null ? paths.size() : (int) Math.min(limit, paths.size());
        StringBuilder sb = new StringBuilder("Found ").append(paths.size()).append(paths.size() == 1 ? " file" : " files")
                .append(truncated ? " (output cut at " + Ripgrep.MAX_OUTPUT + " bytes)" : "").append('\n');
        for (int i = 0; i < shown; i++) {
            sb.append(paths.get(i)).append('\n');
        }
        if (shown < paths.size()) {
            sb.append("(").append(paths.size() - shown).append(" more not shown; head_limit=").append(limit)
                    .append(")\n");
        }
        return new ToolResult.Ok(sb.toString(), data);
    }

    private static ToolResult counts(SearchRoot root, PathGuard guard, String text, Long limit) {
        Map<String, Long> byFile = new TreeMap<>();
        for (String line : text.split("\n")) {
            int z = line.indexOf('\0');
            if (z > 0 && root.readable(line.substring(0, z), guard)) {
                byFile.put(SearchRoot.clean(line.substring(0, z)), Long.parseLong(line.substring(z + 1).strip()));
            }
        }
        long total = byFile.values().stream().mapToLong(Long::longValue).sum();
        var data = ToolOrchestrator.JSON.createObjectNode().put("files", byFile.size()).put("matches", total);
        if (byFile.isEmpty()) {
            return new ToolResult.Ok("No matches found.", data);
        }
        StringBuilder sb = new StringBuilder();
        int i = 0;
        for (var e : byFile.entrySet()) {
            if (limit != null && i++ >= limit) {
                sb.append("(").append(byFile.size() - limit).append(" more files not shown)\n");
                break;
            }
            sb.append(e.getKey()).append(':').append(e.getValue()).append('\n');
        }
        sb.append("Found ").append(total).append(total == 1 ? " match" : " matches").append(" in ")
                .append(byFile.size()).append(byFile.size() == 1 ? " file.\n" : " files.\n");
        return new ToolResult.Ok(sb.toString(), data);
    }

    private static ToolResult content(SearchRoot root, PathGuard guard, String text, Long limit, boolean lineNumbers,
                                      boolean withContext, boolean truncated) {
        Map<String, List<String>> byFile = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int z = line.indexOf('\0');
            if (z <= 0) {
                continue; // rg's "--" group separators; rebuilt below from line numbers
            }
            String path = line.substring(0, z);
            byFile.computeIfAbsent(path, k -> new ArrayList<>()).add(line.substring(z + 1));
        }
        List<String> files = new ArrayList<>(byFile.keySet());
        files.sort(null);
        List<String> lines = new ArrayList<>();
        int matches = 0;
        for (String f : files) {
            if (!root.readable(f, guard)) {
                continue;
            }
            String shownPath = SearchRoot.clean(f);
            long prev = -1;
            if (withContext && !lines.isEmpty()) {
                lines.add("--");
            }
            for (String rest : byFile.get(f)) {
                int sep = firstNonDigit(rest);
                if (sep <= 0 || sep >= rest.length()) {
                    continue;
                }
                long no = Long.parseLong(rest.substring(0, sep));
                char kind = rest.charAt(sep);
                if (withContext && prev >= 0 && no > prev + 1) {
                    lines.add("--");
                }
                prev = no;
                if (kind == ':') {
                    matches++;
                }
                String body = rest.substring(sep + 1);
                lines.add(lineNumbers ? shownPath + kind + no + kind + body : shownPath + kind + body);
            }
        }
        var data = ToolOrchestrator.JSON.createObjectNode().put("matches", matches).put("files", files.size());
        if (lines.isEmpty()) {
            return new ToolResult.Ok("No matches found.", data);
        }
        StringBuilder sb = new StringBuilder();
        int shown = limit == null ? lines.size() : (int) Math.min(limit, lines.size());
        for (int i = 0; i < shown; i++) {
            sb.append(lines.get(i)).append('\n');
        }
        if (shown < lines.size()) {
            sb.append("(").append(lines.size() - shown).append(" more lines not shown; head_limit=").append(limit)
                    .append(")\n");
        }
        if (truncated) {
            sb.append("(ripgrep output cut at ").append(Ripgrep.MAX_OUTPUT).append(" bytes; narrow the search)\n");
        }
        return new ToolResult.Ok(sb.toString(), data);
    }

    private static int firstNonDigit(String s) {
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i;
    }
}
