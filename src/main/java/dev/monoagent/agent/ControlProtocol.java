package dev.monoagent.agent;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The wire format of the control endpoint: one JSON object per line each way. Requests name an {@code op}
 * ({@code status}, {@code focus}, {@code stop}, {@code tool}, {@code run}); replies carry {@code ok}, an optional {@code error} and, for status,
 * the {@link InstanceStatus}.
 */
final class ControlProtocol {
    static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** A request or reply larger than this is refused (the endpoint only ever carries small objects). */
    static final int MAX_MESSAGE = 1 << 20;

    /**
     * {@code tool}, {@code args}, {@code runId} are set only for op {@code tool}; {@code prompt},
     * {@code continueLatest}, {@code model} only for op {@code run}.
     */
    record Request(String op, String tool, String args, String runId, String prompt, boolean continueLatest,
                   String model) {
        Request(String op) {
            this(op, null, null, null, null, false, null);
        }

        Request(String op, String tool, String args, String runId) {
            this(op, tool, args, runId, null, false, null);
        }
    }

    /**
     * One reply line. Op {@code run} streams many: one per event of the run ({@code event}: the run log's JSON line),
     * then a last one with {@code runResult}; {@code field} names the bad input of a refused request.
     */
    record Reply(boolean ok, String error, InstanceStatus status, ToolCallReply toolReply, String event,
                 RunResult runResult, String field) {
        Reply(boolean ok, String error, InstanceStatus status) {
            this(ok, error, status, null, null, null, null);
        }

        Reply(boolean ok, String error, InstanceStatus status, ToolCallReply toolReply) {
            this(ok, error, status, toolReply, null, null, null);
        }
    }

    private ControlProtocol() {}

    static void write(SocketChannel ch, Object message) throws IOException {
        byte[] bytes = (JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    /** Reads up to the first newline from a blocking channel; null at end of stream before any byte. */
    static String readLine(SocketChannel ch) throws IOException {
        ByteArrayOutputStream acc = new ByteArrayOutputStream();
        ByteBuffer one = ByteBuffer.allocate(4096);
        while (true) {
            one.clear();
            int n = ch.read(one);
            if (n < 0) {
                return acc.size() == 0 ? null : acc.toString(StandardCharsets.UTF_8);
            }
            one.flip();
            while (one.hasRemaining()) {
                byte b = one.get();
                if (b == '\n') {
                    return acc.toString(StandardCharsets.UTF_8);
                }
                acc.write(b);
            }
            if (acc.size() > MAX_MESSAGE) {
                throw new IOException("control message too large");
            }
        }
    }
}
