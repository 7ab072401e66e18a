package dev.monoagent.agent;

import dev.monoagent.agent.ControlProtocol.Code;
import dev.monoagent.agent.ControlProtocol.Reply;
import dev.monoagent.agent.ControlProtocol.Request;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.Executor;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The instance side of the control endpoint: an AF_UNIX server socket that answers {@code status}, {@code focus} and
 * {@code stop} for {@code mono-agent status|stop|start} run as other processes. Owner-only three ways: the socket sits
 * in a 0700 directory, the socket file is 0600, and every peer's uid is checked against the socket's owner.
 * The accept loop runs on the executor it is given (the application's one background executor).
 */
public final class ControlServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ControlServer.class.getName());

    private final Path socket;
    private final ServerSocketChannel server;
    private final InstanceHandler handler;
    private final UserPrincipal owner;
    private final Executor executor;
    private volatile boolean closed;

    private ControlServer(Path socket, ServerSocketChannel server, InstanceHandler handler, UserPrincipal owner,
                          Executor executor) {
        this.executor = executor;
        this.socket = socket;
        this.server = server;
        this.handler = handler;
        this.owner = owner;
    }

    /**
     * Binds the socket (replacing a stale file, which the caller proved stale by holding the instance lock) and
     * starts serving on {@code executor}.
     */
    static ControlServer bind(Path socket, InstanceHandler handler, Executor executor) throws IOException {
        ControlEndpoint.ensurePrivateDir(socket.getParent());
        Files.deleteIfExists(socket);
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.bind(UnixDomainSocketAddress.of(socket));
            try {
                Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                LOG.log(Level.DEBUG, "no POSIX permissions on " + socket);
            }
            ControlServer s = new ControlServer(socket, ch, handler, Files.getOwner(socket), executor);
            executor.execute(s::serve);
            return s;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    public Path socket() {
        return socket;
    }

    private void serve() {
        while (!closed) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(Level.WARNING, "control accept failed: " + e.getMessage());
                }
                continue;
            }
            // one task per connection: a long tool call must not hold up status or stop
            try {
                executor.execute(() -> serveOne(client));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                serveOne(client); // the executor is shutting down: answer inline rather than leave the peer hanging
            }
        }
    }

    /** How long a connected peer has to send its request line. */
    static final java.time.Duration REQUEST_WAIT = java.time.Duration.ofSeconds(10);

    private void serveOne(SocketChannel client) {
        try (client) {
            handle(client);
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.log(Level.WARNING, "control request failed: " + e.getMessage());
            }
        }
    }

    private void handle(SocketChannel client) throws IOException {
        UnixDomainPrincipal peer = client.getOption(ExtendedSocketOptions.SO_PEERCRED);
        if (peer == null || !peer.user().getName().equals(owner.getName())) {
            ControlProtocol.write(client, Reply.refused(Code.FORBIDDEN, "forbidden: not the instance owner"));
            return;
        }
        // a peer that connects and never sends its request must not hold a task (or, inline, the accept loop)
        // forever: the request line has REQUEST_WAIT to arrive, then the connection is closed
        dev.monoagent.common.TaskExecutor.Task<Void> deadline = dev.monoagent.common.TaskExecutor.shared()
                .io("control-request-deadline", () -> {
                    try {
                        Thread.sleep(REQUEST_WAIT);
                        client.close();
                    } catch (InterruptedException | IOException ignored) {
                        // the request arrived in time, or the peer went away
                    }
                    return null;
                });
        String line;
        try {
            line = ControlProtocol.readLine(client);
        } catch (java.nio.channels.AsynchronousCloseException silent) {
            return; // the deadline closed it
        } finally {
            deadline.cancel();
        }
        if (line == null) {
            return;
        }
        Request req;
        try {
            req = ControlProtocol.JSON.readValue(line, Request.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            ControlProtocol.write(client, Reply.refused(Code.UNKNOWN_REQUEST,
                    "not a request this instance knows: " + dev.monoagent.common.Printable.line(
                            e.getOriginalMessage())));
            return;
        }
        switch (req) {
            case Request.Status s -> ControlProtocol.write(client, Reply.status(handler.status()));
            case Request.Focus f -> {
                handler.focus();
                ControlProtocol.write(client, Reply.status(handler.status()));
            }
            case Request.Stop s -> {
                ControlProtocol.write(client, Reply.status(handler.status()));
                handler.stop();
            }
            case Request.Check c -> {
                InstanceStatus st = handler.recheck();
                ControlProtocol.write(client, st == null
                        ? Reply.refused(Code.NOT_SERVED, "this instance cannot re-check its sandbox")
                        : Reply.status(st));
            }
            case Request.Tool t -> serveTool(client, t);
            case Request.Run r -> serveRun(client, r);
        }
    }

    /**
     * A tool request: one tool call, answered with its reply. The peer closing its side before the answer (Ctrl-C or
     * SIGTERM of {@code tools call}, a client that died) cancels the call here, which kills its sandboxed process
     * group: a command must not keep running in the instance for a client that is gone.
     */
    private void serveTool(SocketChannel client, Request.Tool req) throws IOException {
        dev.monoagent.common.TaskExecutor.Task<ToolCallReply> call = dev.monoagent.common.TaskExecutor.shared()
                .submit("control-tool", () -> handler.callTool(req.tool(), req.args() == null ? "{}" : req.args(),
                        req.runId()));
        call.future().whenComplete((r, x) -> {
            try {
                client.shutdownInput(); // ends the wait for the peer below
            } catch (IOException ignored) {
                // the peer is gone already
            }
        });
        // the client sends nothing after its request: end of stream before the answer means it went away
        awaitEndOfStream(client);
        if (!call.future().isDone()) {
            call.cancel();
            return;
        }
        ToolCallReply r;
        try {
            r = call.future().join();
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            ControlProtocol.write(client, Reply.refused(Code.FAILED, "the tool call failed in the instance: "
                    + (e.getCause() == null ? e : e.getCause()).getMessage()));
            return;
        }
        ControlProtocol.write(client, r == null
                ? Reply.refused(Code.NOT_SERVED, "this instance does not serve tool calls")
                : Reply.tool(r));
    }

    /**
     * A run request: starts an agent run in this instance (its window shows it live) and streams every event of the
     * run back as a reply line, then the result. The peer closing its side (Ctrl-C in {@code mono-agent run}) stops
     * the run.
     */
    private void serveRun(SocketChannel client, Request.Run req) throws IOException {
        AgentService service = handler.agentService();
        if (service == null) {
            ControlProtocol.write(client, Reply.refused(Code.NOT_SERVED, "this instance does not run the agent"));
            return;
        }
        Object lock = new Object();
        boolean[] broken = {false};
        AgentRun run;
        try {
            run = service.agent().start(new AgentRuns.Request(req.prompt(), req.continueLatest(), null, req.model()),
                    e -> {
                        synchronized (lock) {
                            if (broken[0]) {
                                return;
                            }
                            try {
                                ControlProtocol.write(client, Reply.event(dev.monoagent.common.EventJson.line(e)));
                            } catch (IOException ex) {
                                broken[0] = true; // the peer is gone; its closing side stops the run below
                            }
                        }
                    });
        } catch (dev.monoagent.config.ConfigException e) {
            ControlProtocol.write(client, Reply.refused(Code.FAILED, e.getMessage(),
                    e.errors().isEmpty() ? null : e.errors().get(0).field()));
            return;
        } catch (AgentRuns.BadRequest e) {
            ControlProtocol.write(client, Reply.refused(Code.FAILED, e.getMessage(), "request"));
            return;
        }
        run.result().whenComplete((r, x) -> {
            synchronized (lock) {
                try {
                    if (!broken[0]) {
                        ControlProtocol.write(client, Reply.result(r));
                    }
                    client.shutdownInput(); // ends the wait for the peer below
                } catch (IOException ex) {
                    broken[0] = true;
                }
            }
        });
        // the peer sends nothing more; end of stream means it went away (or the run ended and shut our input)
        awaitEndOfStream(client);
        if (!run.result().isDone()) {
            run.cancel();
        }
        try {
            run.result().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.log(Level.WARNING, "run " + run.runId() + " did not end after its client left");
        }
    }

    /** Reads (and drops) whatever the peer sends until its end of stream, a reset, or our input being shut. */
    private static void awaitEndOfStream(SocketChannel client) {
        java.nio.ByteBuffer sink = java.nio.ByteBuffer.allocate(256);
        try {
            while (client.read(sink) >= 0) {
                sink.clear();
            }
        } catch (IOException e) {
            // reset by the peer: same as gone
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing control socket: " + e.getMessage());
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "removing control socket: " + e.getMessage());
        }
    }
}
