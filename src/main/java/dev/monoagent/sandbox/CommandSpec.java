package dev.monoagent.sandbox;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A command to run under the policy.
 *
 * @param argv           executable and arguments (no shell unless argv[0] is one)
 * @param workdir        absolute working directory; must be inside the readable roots
 * @param timeout        wall-clock limit; SIGTERM to the process group, SIGKILL one second later
 * @param stdin          text fed to stdin, or null for an empty stdin
 * @param extraEnv       variables added to the allowlisted sandbox environment
 * @param runId          the run this belongs to (violations are attributed to it), or null
 * @param callId         the tool call, or null
 * @param tool           the tool name for attribution ({@code Bash}, {@code Exec}, {@code sandbox-run})
 * @param maxOutputBytes per-stream cap on captured bytes (the rest is counted and dropped)
 */
public record CommandSpec(List<String> argv, Path workdir, Duration timeout, String stdin, Map<String, String> extraEnv,
                          String runId, String callId, String tool, long maxOutputBytes) {

    public static final long DEFAULT_MAX_OUTPUT = 8L * 1024 * 1024;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);
    /** The longest timeout a tool call may ask for ({@code timeout_ms}). */
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    public CommandSpec {
        argv = List.copyOf(argv);
        extraEnv = Map.copyOf(extraEnv);
    }

    /** A bash command line run as {@code /bin/bash --noprofile --norc -c CMD}. */
    public static CommandSpec bash(String command, Path workdir) {
        return new CommandSpec(List.of("/bin/bash", "--noprofile", "--norc", "-c", command), workdir,
                DEFAULT_TIMEOUT, null, Map.of(), null, null, "Bash", DEFAULT_MAX_OUTPUT);
    }

    public CommandSpec withAttribution(String runId, String callId, String tool) {
        return new CommandSpec(argv, workdir, timeout, stdin, extraEnv, runId, callId, tool, maxOutputBytes);
    }

    public CommandSpec withTimeout(Duration t) {
        return new CommandSpec(argv, workdir, t, stdin, extraEnv, runId, callId, tool, maxOutputBytes);
    }
}
