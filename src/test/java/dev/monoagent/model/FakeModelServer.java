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
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
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
                new String(body, StandardCharsets.UTF_8)));
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

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One received request; header names are lower-case. */
    public record Recorded(String method, String path, Map<String, List<String>> headers, String body) {
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
