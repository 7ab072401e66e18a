package dev.monoagent.tools;

import dev.monoagent.common.ChildProcesses;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.config.Enums.SandboxMode;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the host's ripgrep for Glob and Grep. This is the one host process the tools start directly: rg only reads,
 * is pinned to paths the {@link PathGuard} already allowed, never follows symlinks while walking, ignores user
 * config ({@code --no-config}), and its output is bounded. Unless the sandbox is off it walks inside
 * {@link SearchView}'s namespace, so a directory a sandboxed process swaps for a symlink mid-walk cannot lead it out
 * of the readable roots. Everything else runs through the sandbox.
 */
final class Ripgrep {
    private Ripgrep() {}

    /** Bytes of rg output read before rg is stopped. */
    static final int MAX_OUTPUT = 8 * 1024 * 1024;
    static final long TIMEOUT_MS = 60_000;

    /** What rg printed. */
    record Output(int exitCode, byte[] stdout, String stderr, boolean truncated, boolean timedOut) {}

    /** Thrown when no rg binary is installed. */
    static final class Missing extends IOException {
        private static final long serialVersionUID = 1L;

        Missing(String m) {
            super(m);
        }
    }

    /** The trusted host rg ({@link dev.monoagent.sandbox.ToolBinaries}); never a PATH lookup of our own. */
    static String binary(ToolContext ctx) throws Missing {
        Path rg = ctx.binaries().rg();
        if (rg == null) {
            throw new Missing("ripgrep (rg) is not installed (or only in an untrusted PATH entry); Glob and Grep need it.");
        }
        return rg.toString();
    }

    /** The flags every call shares: no user config, .gitignore honoured even outside git, hidden files but no .git. */
    static List<String> baseArgs(ToolContext ctx) throws Missing {
        List<String> a = new ArrayList<>();
        a.add(binary(ctx));
        a.add("--no-config");
        a.add("--no-require-git");
        a.add("--hidden");
        a.add("--color=never");
        a.add("--no-messages");
        return a;
    }

    /** Excludes appended after the caller's globs (later globs win in rg). */
    static void addExcludes(List<String> a) {
        a.add("--glob=!.git");
        a.add("--glob=!.mono-agent");
    }

    /**
     * Runs {@code argv} (rg first) from {@code cwd}: in {@link SearchView}'s namespace, or directly in mode off, where
     * the agent's own commands run on the host anyway. No bubblewrap with the sandbox on refuses the search on Linux;
     * on macOS the walk is not confined yet.
     */
    static Output run(ToolContext ctx, List<String> argv, Path cwd) throws IOException {
        if (ctx.policy().mode() == SandboxMode.OFF) {
            return run(argv, cwd);
        }
        Path bwrap = ctx.binaries().bwrap();
        if (bwrap == null && dev.monoagent.host.Platform.current() != dev.monoagent.host.Platform.LINUX) {
            // macOS has no bubblewrap and no confined walk yet: rg walks by path there
            return run(argv, cwd);
        }
        if (bwrap == null) {
            throw new Missing("bubblewrap (bwrap) is not installed (or only in an untrusted PATH entry); Glob and Grep "
                    + "walk in a namespace that holds only the readable roots, so that a sandboxed process cannot "
                    + "lead the walk elsewhere.");
        }
        return run(SearchView.wrap(bwrap, ctx.policy(), cwd, argv), cwd);
    }

    private static Output run(List<String> argv, Path cwd) throws IOException {
        ProcessBuilder pb = ChildProcesses.builder(argv).directory(cwd.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().remove("RIPGREP_CONFIG_PATH");
        Process p = pb.start();
        CompletableFuture<String> err = TaskExecutor.shared().io("rg-stderr", () -> {
            try (InputStream e = p.getErrorStream()) {
                return new String(e.readNBytes(64 * 1024), StandardCharsets.UTF_8);
            } catch (IOException ex) {
                return "";
            }
        }).future();
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        boolean truncated = false;
        boolean[] timedOut = {false};
        TaskExecutor.Task<Void> watchdog = TaskExecutor.shared().io("rg-watchdog", () -> {
            try {
                if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                    timedOut[0] = true;
                    p.destroyForcibly();
                }
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            return null;
        });
        try (InputStream in = p.getInputStream()) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                int keep = Math.min(n, MAX_OUTPUT - out.size());
                out.write(buf, 0, keep);
                if (keep < n) {
                    truncated = true;
                    p.destroyForcibly();
                    break;
                }
            }
        }
        int code;
        try {
            code = p.waitFor();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        watchdog.cancel();
        return new Output(code, out.toByteArray(), err.join(), truncated, timedOut[0]);
    }
}
