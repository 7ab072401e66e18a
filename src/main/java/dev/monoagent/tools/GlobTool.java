package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Glob: files whose path matches a gitignore-style glob ({@code *.java} at any depth, {@code src/**}/{@code *.ts}
 * anchored at the search path), newest first. Honors {@code .gitignore}, shows hidden files, skips {@code .git} and
 * {@code .mono-agent}, never follows symlinks while walking, and filters by the read policy.
 */
final class GlobTool extends BasicTool {
    static final int DEFAULT_LIMIT = 1000;

    private static final JsonNode SCHEMA = Args.schema()
            .str("pattern", "Glob, gitignore-style: '*.java' matches at any depth; 'src/**/*.ts' is anchored at path.",
                    true)
            .str("path", "Directory to search (default: the workspace).", false)
            .integer("head_limit", "Most paths to return (default 1000).", false)
            .build();

    GlobTool() {
        super(ToolNames.GLOB,
                "Find files by glob pattern (gitignore-style; .gitignore'd files and .git are skipped). Returns paths "
                + "relative to the workspace, most recently modified first.",
                SCHEMA);
    }

    @Override
    ToolResult run(JsonNode args, ToolContext ctx) {
        String pattern = Args.requireNonBlank(args, "pattern");
        long limit = orDefault(Args.optLong(args, "head_limit", 1, 1_000_000), DEFAULT_LIMIT);
        return switch (SearchRoot.resolve(Args.optString(args, "path"), ctx)) {
            case SearchRoot.Resolution.Refused r -> r.result();
            case SearchRoot.Resolution.Found f -> glob(f.root(), pattern, limit, ctx);
        };
    }

    private static long orDefault(Long v, long d) {
        return v == null ? d : v;
    }

    private static ToolResult glob(SearchRoot root, String pattern, long limit, ToolContext ctx) {
        Ripgrep.Output out;
        try {
            List<String> argv = Ripgrep.baseArgs(ctx);
            argv.add("--files");
            argv.add("--glob=" + pattern);
            Ripgrep.addExcludes(argv);
            argv.add("--");
            argv.add(root.arg());
            out = Ripgrep.run(ctx, argv, root.cwd());
        } catch (IOException e) {
            return new ToolResult.Failed(ToolResult.FAILED, "Error: " + e.getMessage());
        }
        if (out.timedOut()) {
            return new ToolResult.Failed(ToolResult.TIMEOUT, "Error: Glob timed out after "
                    + Ripgrep.TIMEOUT_MS / 1000 + " s; narrow the path or pattern.");
        }
        if (out.exitCode() == 2 && out.stdout().length == 0) {
            return new ToolResult.Failed(ToolResult.INVALID_ARGUMENTS, "Error: " + out.stderr().strip());
        }
        PathGuard guard = FileAccess.guard(ctx);
        List<String> paths = new ArrayList<>();
        for (String line : new String(out.stdout(), StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty() && root.readable(line, guard)) {
                paths.add(SearchRoot.clean(line));
            }
        }
        Map<String, Long> mtime = new HashMap<>();
        for (String p : paths) {
            // by descriptor, no symlink followed on the way: a directory swapped for a link since rg listed it must
            // not make us stat (and order by) a file outside the roots
            try (FdFile f = FdFile.open(root.cwd().resolve(p).normalize(), false)) {
                var a = f.attributes();
                mtime.put(p, a == null ? 0L : a.lastModifiedTime().toMillis());
            } catch (IOException e) {
                mtime.put(p, 0L);
            }
        }
        paths.sort(Comparator.<String>comparingLong(mtime::get).reversed().thenComparing(Comparator.naturalOrder()));
        var data = ToolOrchestrator.JSON.createObjectNode().put("count", paths.size());
        if (paths.isEmpty()) {
            return new ToolResult.Ok("No files matched " + pattern + " under " + root.shown() + ".", data);
        }
        StringBuilder sb = new StringBuilder();
        int shown = (int) Math.min(limit, paths.size());
        for (int i = 0; i < shown; i++) {
            sb.append(paths.get(i)).append('\n');
        }
        if (shown < paths.size() || out.truncated()) {
            sb.append("(").append(shown).append(" of ").append(out.truncated() ? "more than " : "")
                    .append(paths.size()).append(" files shown; narrow the pattern or raise head_limit)\n");
        }
        return new ToolResult.Ok(sb.toString(), data);
    }

}
