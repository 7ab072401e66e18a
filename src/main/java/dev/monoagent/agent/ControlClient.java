package dev.monoagent.agent;

import dev.monoagent.agent.ControlProtocol.Reply;
import dev.monoagent.agent.ControlProtocol.Request;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The CLI side of the control endpoint, used by {@code mono-agent status}, {@code stop} and a second {@code start}.
 * Every call opens a fresh connection; a missing or dead socket means "not running".
 */
public final class ControlClient {
    private final Path socket;

    public ControlClient(Path socket) {
        this.socket = socket;
    }

    /** A client for the workspace's instance. */
    public static ControlClient forWorkspace(Path workspace) {
        return new ControlClient(ControlEndpoint.socketPath(workspace));
    }

    /** The instance's status, or empty when no instance answers. */
    public Optional<InstanceStatus> status() {
        return call(new Request.Status());
    }

    /** Asks the instance to raise its window; returns its status, or empty when none answers. */
    public Optional<InstanceStatus> focus() {
        return call(new Request.Focus());
    }

    /** Asks the instance to stop; returns its last status, or empty when none was running. */
    public Optional<InstanceStatus> stop() {
        return call(new Request.Stop());
    }

    /**
     * Runs one tool call in the running instance (same run id = same NodeRepl); empty when no instance answers.
     *
     * @throws ControlException when the instance answers but does not serve tool calls
     */
    public Optional<ToolCallReply> callTool(String name, String argsJson, String runId) {
        return callTool(name, argsJson, runId, toolWait(argsJson));
    }

    Optional<ToolCallReply> callTool(String name, String argsJson, String runId, java.time.Duration wait) {
        return exchange(new Request.Tool(name, argsJson, runId), wait, true).map(Reply::toolReply);
    }

    /**
     * The instance did not answer a tool call within its wait. The call may still be running there, so the caller
     * must not run it again elsewhere.
     */
    public static final class TimedOut extends ControlException {
        private static final long serialVersionUID = 1L;

        TimedOut(String message) {
            super(message);
        }
    }

    /**
     * How long the CLI waits for one tool call: the call's own timeout ({@code timeout_ms}, else the default; at most
     * the tools' maximum) plus {@link #TOOL_MARGIN} for the sandbox's preparation, scans and a NodeRepl start.
     */
    static java.time.Duration toolWait(String argsJson) {
        long ms = dev.monoagent.sandbox.CommandSpec.DEFAULT_TIMEOUT.toMillis();
        try {
            com.fasterxml.jackson.databind.JsonNode t = ControlProtocol.JSON.readTree(argsJson == null ? "{}" : argsJson)
                    .path("timeout_ms");
            if (t.canConvertToLong() && t.asLong() > 0) {
                ms = Math.min(t.asLong(), dev.monoagent.sandbox.CommandSpec.MAX_TIMEOUT.toMillis());
            }
        } catch (IOException | RuntimeException e) {
            // the instance rejects bad arguments quickly; the default wait is enough for that
        }
        return java.time.Duration.ofMillis(ms).plus(TOOL_MARGIN);
    }

    /**
     * Starts an agent run in the running instance (its window shows it live); empty when no instance answers. Read
     * the run's events and result with {@link RemoteRun#stream}.
     */
    public Optional<RemoteRun> run(String prompt, boolean continueLatest, String model) {
        if (!Files.exists(socket)) {
            return Optional.empty();
        }
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(socket));
            ControlProtocol.write(ch, new Request.Run(prompt, continueLatest, model));
            return Optional.of(new RemoteRun(ch));
        } catch (IOException e) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing to do
                }
            }
            return Optional.empty();
        }
    }

    /** A run going on in the instance: its event lines as they happen, then its result. */
    public static final class RemoteRun implements AutoCloseable {
        private final SocketChannel ch;
        // many reply lines arrive back to back: read them through one buffer (a per-line read would drop the rest)
        private final java.io.BufferedReader in;

        private RemoteRun(SocketChannel ch) {
            this.ch = ch;
            this.in = new java.io.BufferedReader(new java.io.InputStreamReader(
                    java.nio.channels.Channels.newInputStream(ch), java.nio.charset.StandardCharsets.UTF_8));
        }

        /**
         * Passes each event line ({@code EventJson}) of the run to {@code onEvent} until the run ends, and returns
         * its result.
         *
         * @throws ControlException when the instance refused the run (bad prompt or model: the message names it), or
         *                          the connection broke before the result
         */
        public RunResult stream(java.util.function.Consumer<String> onEvent) {
            try {
                while (true) {
                    String line = in.readLine();
                    if (line == null) {
                        throw new ControlException("the instance closed the connection before the run ended");
                    }
                    Reply r = ControlProtocol.JSON.readValue(line, Reply.class);
                    if (!r.ok()) {
                        throw new ControlException(r);
                    }
                    if (r.event() != null) {
                        onEvent.accept(r.event());
                    }
                    if (r.runResult() != null) {
                        return r.runResult();
                    }
                }
            } catch (IOException e) {
                throw new ControlException("lost the instance: " + e.getMessage());
            }
        }

        /** Asks the instance to stop the run (closes our sending side; the result still arrives). */
        public void stop() {
            try {
                ch.shutdownOutput();
            } catch (IOException e) {
                // already closed
            }
        }

        @Override
        public void close() {
            try {
                ch.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    /**
     * Asks the instance to re-run its sandbox self-check (reviving a failed engine); its status afterwards, or empty
     * when no instance answers.
     *
     * @throws ControlException when the instance answers but cannot re-check
     */
    public Optional<InstanceStatus> recheck() {
        return exchange(new Request.Check(), CHECK_WAIT).map(Reply::status);
    }

    /** A self-check on a loaded 2-core machine has taken over 20 s; the control wait is for quick answers. */
    static final java.time.Duration CHECK_WAIT = java.time.Duration.ofMinutes(3);

    private Optional<InstanceStatus> call(Request request) {
        return exchange(request, CONTROL_WAIT).map(Reply::status);
    }

    /** How long a status/focus/stop answer may take before the instance counts as not answering. */
    static final java.time.Duration CONTROL_WAIT = java.time.Duration.ofSeconds(15);
    /** What a tool call may take beyond its own timeout (sandbox preparation, scans, a NodeRepl start). */
    static final java.time.Duration TOOL_MARGIN = java.time.Duration.ofSeconds(90);

    private Optional<Reply> exchange(Request request, java.time.Duration wait) {
        return exchange(request, wait, false);
    }

    /** With {@code raiseOnTimeout}, a wait that runs out is {@link TimedOut}, not "no instance answers". */
    private Optional<Reply> exchange(Request request, java.time.Duration wait, boolean raiseOnTimeout) {
        if (!Files.exists(socket)) {
            return Optional.empty();
        }
        java.util.concurrent.atomic.AtomicBoolean expired = new java.util.concurrent.atomic.AtomicBoolean();
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            // a hung instance must not hang the CLI: closing the channel ends the blocking read
            dev.monoagent.common.TaskExecutor.Task<Void> watchdog = dev.monoagent.common.TaskExecutor.shared()
                    .io("control-watchdog", () -> {
                        try {
                            Thread.sleep(wait);
                            expired.set(true);
                            ch.close();
                        } catch (InterruptedException | IOException ignored) {
                            // answered in time, or already closed
                        }
                        return null;
                    });
            try {
                return exchangeOn(ch, request);
            } finally {
                watchdog.cancel();
            }
        } catch (IOException e) {
            if (raiseOnTimeout && expired.get()) {
                throw new TimedOut("the instance did not answer within " + wait.toSeconds() + " s");
            }
            return Optional.empty();
        }
    }

    private Optional<Reply> exchangeOn(SocketChannel ch, Request request) throws IOException {
        ch.connect(UnixDomainSocketAddress.of(socket));
        ControlProtocol.write(ch, request);
        String line = ControlProtocol.readLine(ch);
        if (line == null) {
            return Optional.empty();
        }
        Reply r = ControlProtocol.JSON.readValue(line, Reply.class);
        if (!r.ok()) {
            throw new ControlException(r);
        }
        return Optional.of(r);
    }

    /** The instance answered but refused the request, or the exchange broke. */
    public static class ControlException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final boolean notServed;

        public ControlException(String message) {
            super(message);
            this.notServed = false;
        }

        ControlException(Reply refused) {
            super(refused.error());
            this.notServed = refused.code() == ControlProtocol.Code.NOT_SERVED
                    || refused.code() == ControlProtocol.Code.UNKNOWN_REQUEST;
        }

        /**
         * The instance does not serve this kind of request (or does not know it): the caller may do it here
         * instead. Not so for a request that was served and failed.
         */
        public boolean notServed() {
            return notServed;
        }
    }
}
