package dev.monoagent.tools;

import dev.monoagent.sandbox.Policy;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Resolves the {@code path} argument of Glob/Grep to a directory or file rg may search, and maps rg's output paths
 * back for display (relative to the workspace when inside it).
 */
record SearchRoot(Path shown, Path real, Path cwd, String arg) {

    /** The root, or the failure to return. */
    sealed interface Resolution {
        record Found(SearchRoot root) implements Resolution {}

        record Refused(ToolResult result) implements Resolution {}
    }

    static Resolution resolve(String pathArg, ToolContext ctx) {
        PathGuard guard = FileAccess.guard(ctx);
        String input = pathArg == null || pathArg.isBlank() ? "." : pathArg;
        return switch (guard.forRead(input)) {
            case PathGuard.Check.Invalid i -> new Resolution.Refused(FileAccess.invalid(i));
            case PathGuard.Check.Denied d -> new Resolution.Refused(
                    FileAccess.denied(ctx, d, Violation.Kind.READ, "Searching"));
            case PathGuard.Check.Allowed a -> {
                if (!Files.exists(a.real())) {
                    yield new Resolution.Refused(new ToolResult.Failed(ToolResult.NOT_FOUND,
                            "Error: Path not found: " + a.shown()));
                }
                Path realWs = guard.workspaceReal();
                if (a.real().startsWith(realWs)) {
                    String rel = realWs.relativize(a.real()).toString();
                    yield new Resolution.Found(new SearchRoot(a.shown(), a.real(), realWs, rel.isEmpty() ? "." : rel));
                }
                yield new Resolution.Found(new SearchRoot(a.shown(), a.real(), realWs, a.real().toString()));
            }
        };
    }

    /** rg prints paths as {@code ./x} when given {@code .}; show them as {@code x}. */
    static String clean(String p) {
        return p.startsWith("./") ? p.substring(2) : p;
    }

    /** Whether a path printed by rg (relative to {@link #cwd}) passes the policy's read rules. */
    boolean readable(String printed, PathGuard guard) {
        Path abs = cwd.resolve(printed).normalize();
        return guard.insideReadable(abs) && FileAccess.readDenied(guard, abs) == null && !mountArtifact(abs, guard);
    }

    /**
     * The empty placeholder files srt mounts over absent protected paths while a sandboxed process (the NodeRepl)
     * runs are visible on the host; they are not the user's files, so searches leave them out.
     */
    static boolean mountArtifact(Path abs, PathGuard guard) {
        if (guard.writeDenial(guard.toPolicySpace(abs)) == null) {
            return false;
        }
        String name = abs.getFileName() == null ? "" : abs.getFileName().toString();
        boolean named = Policy.dangerousName(abs.getFileName() == null ? abs : abs.getFileName()) != null || name.startsWith(".env");
        try {
            return named && Files.isRegularFile(abs) && Files.size(abs) == 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
