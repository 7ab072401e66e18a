package dev.monoagent.agent;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The wire format of the control endpoint: one JSON object per line each way. A {@link Request} is one of a closed set,
 * named on the wire by its {@code op}; a {@link Reply} carries {@code ok}, and when refused an {@code error} for a
 * person and a {@code code} for the program.
 */
final class ControlProtocol {
    static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** A request or reply larger than this is refused (the endpoint only ever carries small objects). */
    static final int MAX_MESSAGE = 1 << 20;

    /** What a client asks of the instance; each kind carries exactly its own fields. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "op")
    @JsonSubTypes({
        @JsonSubTypes.Type(value = Request.Status.class, name = "status"),
        @JsonSubTypes.Type(value = Request.Focus.class, name = "focus"),
        @JsonSubTypes.Type(value = Request.Stop.class, name = "stop"),
        @JsonSubTypes.Type(value = Request.Check.class, name = "check"),
        @JsonSubTypes.Type(value = Request.Tool.class, name = "tool"),
        @JsonSubTypes.Type(value = Request.Run.class, name = "run")})
    sealed interface Request {
        /** The instance's status. */
        record Status() implements Request {}

        /** Raise the window; answered with the status. */
        record Focus() implements Request {}

        /** Stop the instance; answered with its last status first. */
        record Stop() implements Request {}

        /** Re-run the sandbox self-check (reviving a failed engine). */
        record Check() implements Request {}

        /** One tool call ({@code args}: the arguments' JSON; the same {@code runId} shares a NodeRepl). */
        record Tool(String tool, String args, String runId) implements Request {}

        /** An agent run, streamed back event by event. */
        record Run(String prompt, boolean continueLatest, String model) implements Request {}
    }

    /** Why a request was refused, for the program (the {@code error} text is for a person). */
    enum Code {
        /** The peer is not the user who owns the instance. */
        FORBIDDEN,
        /** The request is not one this instance knows (an older or newer client), or not JSON. */
        UNKNOWN_REQUEST,
        /** This instance does not serve that kind of request (no tools, no agent, no re-check). */
        NOT_SERVED,
        /** The request was understood and failed ({@code field} may name the bad input). */
        FAILED
    }

    /**
     * One reply line. A run request streams many: one per event of the run ({@code event}: the run log's JSON line),
     * then a last one with {@code runResult}; {@code field} names the bad input of a refused request.
     */
    record Reply(boolean ok, String error, Code code, InstanceStatus status, ToolCallReply toolReply, String event,
                 RunResult runResult, String field) {
        static Reply status(InstanceStatus status) {
            return new Reply(true, null, null, status, null, null, null, null);
        }

        static Reply tool(ToolCallReply reply) {
            return new Reply(true, null, null, null, reply, null, null, null);
        }

        static Reply event(String line) {
            return new Reply(true, null, null, null, null, line, null, null);
        }

        static Reply result(RunResult result) {
            return new Reply(true, null, null, null, null, null, result, null);
        }

        static Reply refused(Code code, String error) {
            return refused(code, error, null);
        }

        static Reply refused(Code code, String error, String field) {
            return new Reply(false, error, code, null, null, null, null, field);
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
