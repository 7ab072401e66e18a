package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A local model provider for tests: an HTTP server on 127.0.0.1 that answers each request with the next scripted
 * {@link Reply}, byte for byte (SSE or NDJSON written in the reply's chunks, with pauses, a mid-body disconnect or
 * a hang), and records every request (path, headers, body) for assertions. Any wire works: the scripts in
 * {@link Scripts} build real Responses, Anthropic Messages and Chat Completions streams. Loopback only.
 */
public final class FakeModelServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final List<Recorded> requests = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile CountDownLatch disconnected = new CountDownLatch(1);

    private FakeModelServer() throws IOException {
        this(0);
    }

    private FakeModelServer(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-model-server");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts a server on an ephemeral loopback port. */
    public static FakeModelServer start() {
        try {
            return new FakeModelServer();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code http://127.0.0.1:<port>} (no trailing slash). */
    public String baseUrl() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    /** Queues replies, served one per request in order. */
    public FakeModelServer enqueue(Reply... rs) {
        replies.addAll(List.of(rs));
        return this;
    }

    /** Requests received so far, in arrival order. */
    public List<Recorded> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    public Recorded request(int i) {
        return requests().get(i);
    }

    /** Drops the recorded requests (long benchmarks: each request holds the whole history). */
    public void forgetRequests() {
        requests.clear();
    }

    /** Replies not yet served. */
    public int pending() {
        return replies.size();
    }

    /** Waits until a hanging or streaming reply noticed the client went away. */
    public boolean awaitClientGone(long ms) throws InterruptedException {
        return disconnected.await(ms, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        stopped.countDown();
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        Map<String, List<String>> headers = new TreeMap<>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
        requests.add(new Recorded(ex.getRequestMethod(), ex.getRequestURI().getPath(), headers,
                new String(body, StandardCharsets.UTF_8), ex.getRemoteAddress().getPort()));
        String unpaired = unpairedToolItems(new String(body, StandardCharsets.UTF_8));
        if (unpaired != null) {
            // Real servers refuse a history whose tool calls and results do not pair up; so do we.
            serve(ex, Reply.json(400, JSON.createObjectNode().set("error", JSON.createObjectNode()
                    .put("message", unpaired).put("type", "invalid_request_error")).toString()));
            return;
        }
        Reply r = replies.poll();
        if (r == null) {
            r = Reply.json(500, "{\"error\":{\"message\":\"fake server: no scripted reply left\",\"type\":\"server_error\"}}");
        }
        serve(ex, r);
    }

    private void serve(HttpExchange ex, Reply r) throws IOException {
        r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
        byte[] all = r.bytes();
        // A disconnect is a fixed length we never reach: the client sees the body end early (no clean end).
        long length = switch (r.end()) {
            case CLOSE -> r.chunks().size() <= 1 && r.pauseMs() == 0 ? (all.length == 0 ? -1 : all.length) : 0;
            case DISCONNECT -> all.length + 4096;
            case HANG -> 0;
        };
        ex.sendResponseHeaders(r.status(), length);
        OutputStream out = ex.getResponseBody();
        try {
            for (byte[] chunk : r.chunks()) {
                if (r.pauseMs() > 0) {
                    sleep(r.pauseMs());
                }
                out.write(chunk);
                out.flush();
            }
            if (r.end() == Reply.End.HANG) {
                // Keep the stream open; a write failing means the client closed it.
                while (stopped.getCount() > 0) {
                    sleep(50);
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        } catch (IOException gone) {
            disconnected.countDown();
            ex.close();
            return;
        }
        if (r.end() == Reply.End.DISCONNECT) {
            // Closing short of the declared length drops the connection.
            try {
                ex.close();
            } catch (RuntimeException ignored) {
                // the JDK server complains about the short body; that is the point
            }
            return;
        }
        ex.close();
    }

    /**
     * The pairing rule every provider enforces, checked on any of the three request shapes: each tool result
     * answers an earlier call, and each call is answered before the history goes on (Anthropic: in the next
     * message). Returns the complaint, or null when the history is well formed.
     */
    static String unpairedToolItems(String body) {
        JsonNode req;
        try {
            req = JSON.readTree(body);
        } catch (IOException e) {
            return null;
        }
        if (req == null || !req.isObject()) {
            return null;
        }
        java.util.Set<String> open = new java.util.LinkedHashSet<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (JsonNode item : req.path("input")) {
            String type = item.path("type").asText();
            if (type.equals("function_call")) {
                open.add(item.path("call_id").asText());
                seen.add(item.path("call_id").asText());
            } else if (type.equals("function_call_output") && !open.remove(item.path("call_id").asText())) {
                return "No tool call found for function call output with call_id "
                        + item.path("call_id").asText() + ".";
            }
        }
        for (JsonNode m : req.path("messages")) {
            if (m.path("role").asText().equals("tool") && !open.remove(m.path("tool_call_id").asText())) {
                return "Invalid parameter: messages with role 'tool' must be a response to a preceding message "
                        + "with 'tool_calls'.";
            }
            if (m.path("role").asText().equals("user") && m.path("content").isArray()) {
                for (JsonNode b : m.path("content")) {
                    if (b.path("type").asText().equals("tool_result") && !open.remove(b.path("tool_use_id").asText())) {
                        return "unexpected `tool_use_id` found in `tool_result` blocks: "
                                + b.path("tool_use_id").asText();
                    }
                }
            }
            if (!open.isEmpty() && (m.path("role").asText().equals("assistant")
                    || m.path("role").asText().equals("user") && !m.path("content").isArray())) {
                return "`tool_use` ids were found without `tool_result` blocks immediately after: "
                        + String.join(", ", open);
            }
            for (JsonNode tc : m.path("tool_calls")) {
                open.add(tc.path("id").asText());
            }
            for (JsonNode b : m.path("content")) {
                if (b.path("type").asText().equals("tool_use")) {
                    open.add(b.path("id").asText());
                }
            }
        }
        return open.isEmpty() ? null : "No tool output found for tool call " + String.join(", ", open) + ".";
    }

    /**
     * Serves scripted turns from a shell, for trying the agent offline:
     * {@code java -cp <test-classpath> dev.monoagent.model.FakeModelServer PORT WIRE TURNS.json} where WIRE is
     * responses | anthropic | chat and TURNS.json is a list of {@code {"reasoning"?, "text"?, "calls"?:[{"id",
     * "name","arguments":{…}}]}}, served one per request, then the last one again. Prints the base URL.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: FakeModelServer PORT responses|anthropic|chat TURNS.json");
        }
        Scripts.Wire wire = Scripts.Wire.valueOf(args[1].toUpperCase(Locale.ROOT));
        List<Reply> turns = new ArrayList<>();
        for (JsonNode t : JSON.readTree(java.nio.file.Path.of(args[2]).toFile())) {
            List<Scripts.Call> calls = new ArrayList<>();
            for (JsonNode c : t.path("calls")) {
                calls.add(new Scripts.Call(c.path("id").asText("call_" + calls.size()), c.path("name").asText(),
                        c.path("arguments").toString()));
            }
            turns.add(Scripts.turn(wire, new Scripts.Turn(t.path("reasoning").textValue(), t.path("text").textValue(),
                    calls)));
        }
        FakeModelServer s = new FakeModelServer(Integer.parseInt(args[0]));
        s.enqueue(turns.toArray(Reply[]::new));
        for (int i = 0; i < 1000; i++) {
            s.enqueue(turns.get(turns.size() - 1));
        }
        java.io.PrintStream out = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out),
                true, StandardCharsets.UTF_8);
        out.println(s.baseUrl());
        s.stopped.await();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One received request; header names are lower-case.
     *
     * @param clientPort the client's port: equal for two requests when the client reused the connection
     */
    public record Recorded(String method, String path, Map<String, List<String>> headers, String body,
                           int clientPort) {
        /** The first value of a header, or null. */
        public String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null || v.isEmpty() ? null : v.get(0);
        }

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new IllegalStateException("request body is not JSON: " + body, e);
            }
        }
    }
}
