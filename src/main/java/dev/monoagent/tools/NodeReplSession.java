package dev.monoagent.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.sandbox.CommandSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run's Node process running our REPL server ({@code repl-server.js}, user code in its worker
 * {@code repl-worker.js}) inside the sandbox. Requests go in on stdin as length-prefixed JSON; replies come back as
 * frames authenticated with a per-process HMAC key and parsed by {@link ReplFrames}. A reader thread turns stdout into
 * a queue of replies (EOF included) so an evaluation can wait with a timeout.
 */
final class NodeReplSession implements AutoCloseable {
    static final String SCRIPT_RESOURCE = "/dev/monoagent/tools/repl-server.js";
    static final String WORKER_RESOURCE = "/dev/monoagent/tools/repl-worker.js";
    static final Duration PROCESS_LIFETIME = Duration.ofHours(24);
    private static final Object EOF = new Object();
    /** Trailing bytes after the reply object mean the frame was tampered with (e.g. interleaved writes). */
    private static final ObjectReader STRICT_JSON = ToolOrchestrator.JSON.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final SandboxPort.LiveProcess process;
    private final ReplFrames frames;
    private final BlockingQueue<Object> replies = new LinkedBlockingQueue<>();
    private final StringBuilder stderr = new StringBuilder();
    private long nextId = 1;
    private volatile boolean dead;
    /** Why the reader stopped the process (an oversized frame), shown with the "state lost" result. */
    private volatile String killedBecause;
    /** Set when the reader stopped the process because a frame failed authentication. */
    private volatile String forged;

    /** A started session, or the reason it did not start. */
    sealed interface Start {
        record Started(NodeReplSession session) implements Start {}

        record Failed(ToolResult result) implements Start {}
    }

    private NodeReplSession(SandboxPort.LiveProcess process, byte[] key) {
        this.process = process;
        this.frames = new ReplFrames(key);
        TaskExecutor.shared().io("node-repl-stdout", () -> {
            pumpStdout();
            return null;
        });
        TaskExecutor.shared().io("node-repl-stderr", () -> {
            pumpStderr();
            return null;
        });
    }

    /** The server script with the worker's source embedded as a JSON string literal. */
    static String script() {
        String worker = ToolOrchestrator.JSON.getNodeFactory().textNode(resource(WORKER_RESOURCE)).toString();
        return resource(SCRIPT_RESOURCE).replace("/*WORKER_SOURCE*/null", worker);
    }

    private static String resource(String name) {
        try (InputStream in = NodeReplSession.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the server through the sandbox port and waits for its ready frame. */
    static Start start(ToolContext ctx, Duration readyTimeout) {
        Path node = ctx.binaries().node();
        if (node == null) {
            return new Start.Failed(new ToolResult.Failed(ToolResult.FAILED, "Error: Node.js (node) is not installed "
                    + "(or only in an untrusted PATH entry); NodeRepl needs it."));
        }
        CommandSpec spec = new CommandSpec(List.of(node.toString(), "--no-warnings", "-e", script()), ctx.workspace(),
                PROCESS_LIFETIME, null, Map.of("NODE_OPTIONS", "", "NODE_NO_WARNINGS", "1"), ctx.runId(),
                ctx.callId(), ToolNames.NODE_REPL, CommandSpec.DEFAULT_MAX_OUTPUT);
        return switch (ctx.sandbox().start(spec)) {
            case SandboxPort.Started.NotStarted ns -> new Start.Failed(
                    new ToolResult.Failed(ToolResult.SANDBOX_PREPARE_FAILED, ns.failure().text()));
            case SandboxPort.Started.Running running -> {
                byte[] key = new byte[32];
                new SecureRandom().nextBytes(key);
                NodeReplSession s = new NodeReplSession(running.process(), key);
                try {
                    s.send(("KEY " + HexFormat.of().formatHex(key) + "\n").getBytes(StandardCharsets.UTF_8));
                    JsonNode ready = s.await(0, readyTimeout);
                    if (ready == null || !ready.path("ready").asBoolean()) {
                        String why = s.stderrText();
                        s.close();
                        yield new Start.Failed(new ToolResult.Failed(ToolResult.FAILED,
                                "Error: the Node REPL did not start" + (why.isBlank() ? "." : ": " + why.strip())));
                    }
                } catch (IOException e) {
                    s.close();
                    yield new Start.Failed(new ToolResult.Failed(ToolResult.FAILED,
                            "Error: the Node REPL did not start: " + e.getMessage()));
                }
                yield new Start.Started(s);
            }
        };
    }

    /** One evaluation's reply, or why there is none. */
    sealed interface Reply {
        record Done(JsonNode frame, String stray) implements Reply {}

        record TimedOut() implements Reply {}

        /** {@code forged}: why the host ended the REPL when a reply frame failed authentication, else null. */
        record Exited(String stray, String forged) implements Reply {
            Exited(String stray) {
                this(stray, null);
            }
        }

        /** The engine ended the REPL before this evaluation was sent (nothing of it ran), for {@code why}. */
        record Restarted(String why) implements Reply {}
    }

    /** Why the engine ended this REPL (the protected files changed under it), or null. */
    String endedBecause() {
        return process.endedBecause();
    }

    synchronized Reply eval(String code, Duration timeout) {
        if (dead) {
            return new Reply.Exited("");
        }
        long id = nextId++;
        var req = ToolOrchestrator.JSON.createObjectNode().put("id", id).put("code", code);
        byte[] body = req.toString().getBytes(StandardCharsets.UTF_8);
        // a frame that arrived before this request was sent cannot be its reply (and only a forger sends one)
        for (Object o; (o = replies.poll()) != null;) {
            if (o == EOF) {
                replies.add(EOF);
                break;
            }
        }
        // the protected files may have changed since the REPL started: then it must not run again under the old denies
        String ended = process.refresh();
        if (ended != null) {
            dead = true;
            return new Reply.Restarted(ended);
        }
        // stopped since the last evaluation's scan (see checkpoint): it runs again only while an evaluation is watched
        process.resume();
        try {
            byte[] head = (body.length + "\n").getBytes(StandardCharsets.US_ASCII);
            byte[] all = new byte[head.length + body.length];
            System.arraycopy(head, 0, all, 0, head.length);
            System.arraycopy(body, 0, all, head.length, body.length);
            send(all);
        } catch (IOException e) {
            dead = true;
            return new Reply.Exited(strayText());
        }
        try {
            JsonNode frame = await(id, timeout);
            if (frame == null) {
                return dead ? new Reply.Exited(strayText(), forged) : new Reply.TimedOut();
            }
            return new Reply.Done(frame, strayText());
        } catch (IOException e) {
            return new Reply.Exited(strayText(), forged);
        }
    }

    boolean alive() {
        return !dead && process.isAlive();
    }

    private void send(byte[] bytes) throws IOException {
        OutputStream in = process.stdin();
        in.write(bytes);
        in.flush();
    }

    /** The frame with {@code id}, null on timeout or when the process ended (then {@code dead}). */
    private JsonNode await(long id, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (;;) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Object o;
            try {
                o = replies.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            if (o == null) {
                return null;
            }
            if (o == EOF) {
                dead = true;
                return null;
            }
            ReplFrames.Frame f = (ReplFrames.Frame) o;
            if (f.id() != id) {
                continue; // an authentic reply to an earlier request that timed out on our side
            }
            JsonNode frame;
            try {
                frame = STRICT_JSON.readTree(f.json());
            } catch (JsonProcessingException e) {
                continue; // the server only sends one well-formed object per frame: anything else is not a reply
            }
            if (frame != null && frame.path("id").asLong(-1) == id) {
                return frame;
            }
        }
    }

    private void pumpStdout() {
        byte[] b = new byte[64 * 1024];
        try (InputStream out = process.stdout()) {
            int n;
            while ((n = out.read(b)) > 0) {
                List<ReplFrames.Frame> got;
                synchronized (frames) {
                    got = frames.feed(b, n);
                }
                replies.addAll(got);
            }
        } catch (ReplFrames.Forged e) {
            killedBecause = e.getMessage();
            forged = e.getMessage();
            dead = true;
            process.close();
        } catch (ReplFrames.Overflow e) {
            // a reply larger than the host will buffer, or bytes posing as a reply: the stream is unusable (or
            // untrustworthy), so the REPL and its state go
            killedBecause = e.getMessage();
            dead = true;
            process.close();
        } catch (IOException ignored) {
            // the process went away; EOF below tells the waiting evaluation
        }
        replies.add(EOF);
    }

    private void pumpStderr() {
        byte[] b = new byte[16 * 1024];
        try (InputStream err = process.stderr()) {
            int n;
            while ((n = err.read(b)) > 0) {
                synchronized (stderr) {
                    if (stderr.length() < 1_000_000) {
                        stderr.append(new String(b, 0, n, StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (IOException ignored) {
            // process ended
        }
    }

    private String stderrText() {
        synchronized (stderr) {
            String s = stderr.toString();
            stderr.setLength(0);
            return s;
        }
    }

    /** Output that reached fd 1/2 outside the server's capture (native writes, fake frames). */
    private String strayText() {
        String out;
        synchronized (frames) {
            out = frames.drainStray();
        }
        String why = killedBecause;
        return out + stderrText() + (why == null ? "" : "\n(the NodeRepl process was stopped: " + why + ")\n");
    }

    @Override
    public void close() {
        dead = true;
        process.close();
    }

    /**
     * Stops the REPL's processes until the next evaluation, then handles protected-path changes since the last one
     * (see {@link SandboxPort.LiveProcess#checkpoint}).
     */
    java.util.List<dev.monoagent.common.Violation> checkpoint(String callId) {
        return process.checkpoint(callId);
    }
}
