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
        return call("status");
    }

    /** Asks the instance to raise its window; returns its status, or empty when none answers. */
    public Optional<InstanceStatus> focus() {
        return call("focus");
    }

    /** Asks the instance to stop; returns its last status, or empty when none was running. */
    public Optional<InstanceStatus> stop() {
        return call("stop");
    }

    /**
     * Runs one tool call in the running instance (same run id = same NodeRepl); empty when no instance answers.
     *
     * @throws ControlException when the instance answers but does not serve tool calls
     */
    public Optional<ToolCallReply> callTool(String name, String argsJson, String runId) {
        return exchange(new Request("tool", name, argsJson, runId), TOOL_WAIT).map(Reply::toolReply);
    }

    private Optional<InstanceStatus> call(String op) {
        return exchange(new Request(op), CONTROL_WAIT).map(Reply::status);
    }

    /** How long a status/focus/stop answer may take before the instance counts as not answering. */
    static final java.time.Duration CONTROL_WAIT = java.time.Duration.ofSeconds(15);
    /** Longest tool call the CLI waits for (the tools' own timeouts are far shorter). */
    static final java.time.Duration TOOL_WAIT = java.time.Duration.ofMinutes(15);

    private Optional<Reply> exchange(Request request, java.time.Duration wait) {
        if (!Files.exists(socket)) {
            return Optional.empty();
        }
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            // a hung instance must not hang the CLI: closing the channel ends the blocking read
            dev.monoagent.common.TaskExecutor.Task<Void> watchdog = dev.monoagent.common.TaskExecutor.shared()
                    .io("control-watchdog", () -> {
                        try {
                            Thread.sleep(wait);
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
            throw new ControlException(r.error());
        }
        return Optional.of(r);
    }

    /** The instance answered but refused the request. */
    public static final class ControlException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ControlException(String message) {
            super(message);
        }
    }
}
