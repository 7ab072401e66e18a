package dev.monoagent.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback-only embeddings service speaking Ollama's {@code POST /api/embed} or the OpenAI
 * {@code POST /v1/embeddings} wire (LM Studio's too), with vectors from {@link WordHashEmbedder}. It records each
 * request (path, authorization, body) and can be switched to fail with an HTTP error.
 */
public final class FakeEmbeddingServer implements AutoCloseable {
    public enum Wire { OLLAMA, OPENAI }

    /** One request as received. */
    public record Request(String method, String path, String authorization, JsonNode body) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final Wire wire;
    private final WordHashEmbedder vectors = new WordHashEmbedder();
    public final List<Request> requests = new CopyOnWriteArrayList<>();
    public volatile int failWith;
    public volatile int dim = WordHashEmbedder.DIM;

    public FakeEmbeddingServer(Wire wire) throws IOException {
        this.wire = wire;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The base URL to configure as {@code memory.embeddings.endpoint}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + (wire == Wire.OPENAI ? "/v1" : "");
    }

    private void handle(HttpExchange ex) throws IOException {
        JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
        requests.add(new Request(ex.getRequestMethod(), ex.getRequestURI().getPath(),
                ex.getRequestHeaders().getFirst("Authorization"), body));
        String expected = wire == Wire.OLLAMA ? "/api/embed" : "/v1/embeddings";
        if (!ex.getRequestMethod().equals("POST") || !ex.getRequestURI().getPath().equals(expected)) {
            send(ex, 404, wire == Wire.OLLAMA ? "404 page not found"
                    : "{\"error\":{\"message\":\"Unknown request URL\",\"type\":\"invalid_request_error\"}}");
            return;
        }
        if (failWith != 0) {
            send(ex, failWith, wire == Wire.OLLAMA ? "{\"error\":\"model \\\"x\\\" not found, try pulling it first\"}"
                    : "{\"error\":{\"message\":\"No models loaded\",\"type\":\"invalid_request_error\"}}");
            return;
        }
        List<String> inputs = new ArrayList<>();
        body.path("input").forEach(n -> inputs.add(n.asText()));
        List<float[]> vs;
        try {
            vs = vectors.embed(inputs);
        } catch (Embedder.Unavailable e) {
            throw new IOException(e);
        }
        ObjectNode out = JSON.createObjectNode();
        if (wire == Wire.OLLAMA) {
            out.put("model", body.path("model").asText());
            ArrayNode arr = out.putArray("embeddings");
            vs.forEach(v -> arr.add(array(v)));
        } else {
            out.put("object", "list");
            ArrayNode data = out.putArray("data");
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < vs.size(); i++) {
                order.add(i);
            }
            Collections.reverse(order); // clients must place vectors by index, not by position
            for (int i : order) {
                data.addObject().put("object", "embedding").put("index", i).set("embedding", array(vs.get(i)));
            }
            out.put("model", body.path("model").asText());
            out.putObject("usage").put("prompt_tokens", 1).put("total_tokens", 1);
        }
        send(ex, 200, out.toString());
    }

    private ArrayNode array(float[] v) {
        ArrayNode a = JSON.createArrayNode();
        for (int i = 0; i < dim; i++) {
            a.add(i < v.length ? v[i] : 0f);
        }
        return a;
    }

    private static void send(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
