package dev.monoagent.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Embeddings from a separate service over its own HTTP API: Ollama ({@code POST /api/embed}, body
 * {@code {model, input:[...]}}, answer {@code {embeddings:[[...]]}}) or the OpenAI embeddings API
 * ({@code POST /v1/embeddings}, answer {@code {data:[{index, embedding}]}}), which LM Studio serves too.
 * Anything but a well-formed answer of the expected dimension is {@link Embedder.Unavailable} with the reason.
 */
final class HttpEmbedder implements Embedder {
    /** Which wire the service speaks. */
    enum Wire { OLLAMA, OPENAI }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String provider;
    private final Wire wire;
    private final URI uri;
    private final String model;
    private final int dim;
    private final String apiKey;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param endpoint base URL: Ollama's root ({@code http://127.0.0.1:11434}) or an OpenAI-style {@code .../v1}
     * @param apiKey   bearer token, or null
     */
    HttpEmbedder(String provider, Wire wire, String endpoint, String model, int dim, String apiKey, int timeoutMs) {
        this.provider = provider;
        this.wire = wire;
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        this.uri = URI.create(base + (wire == Wire.OLLAMA ? "/api/embed" : "/embeddings"));
        this.model = model;
        this.dim = dim;
        this.apiKey = apiKey;
        this.timeout = Duration.ofMillis(timeoutMs);
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @Override
    public String id() {
        return provider + ":" + model;
    }

    @Override
    public boolean inProcess() {
        return false;
    }

    URI uri() {
        return uri;
    }

    @Override
    public List<float[]> embed(List<String> texts) throws Unavailable {
        ObjectNode body = JSON.createObjectNode().put("model", model);
        texts.forEach(body.putArray("input")::add);
        if (wire == Wire.OPENAI) {
            body.put("encoding_format", "float");
        }
        HttpRequest.Builder rb = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (apiKey != null) {
            rb.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<String> resp;
        try {
            resp = http.send(rb.build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new Unavailable(provider + " embeddings at " + uri + " timed out after " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            throw new Unavailable(provider + " embeddings at " + uri + " unreachable: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable(provider + " embeddings interrupted");
        }
        if (resp.statusCode() / 100 != 2) {
            throw new Unavailable(provider + " embeddings at " + uri + " answered HTTP " + resp.statusCode()
                    + errorText(resp.body()));
        }
        try {
            return parse(JSON.readTree(resp.body()), texts.size());
        } catch (IOException e) {
            throw new Unavailable(provider + " embeddings at " + uri + " sent malformed JSON");
        }
    }

    private List<float[]> parse(JsonNode root, int n) throws Unavailable {
        List<JsonNode> vectors = new ArrayList<>();
        if (wire == Wire.OLLAMA) {
            root.path("embeddings").forEach(vectors::add);
        } else {
            JsonNode[] byIndex = new JsonNode[n];
            for (JsonNode d : root.path("data")) {
                int i = d.path("index").asInt(-1);
                if (i < 0 || i >= n) {
                    throw new Unavailable(provider + " embeddings: answer has an item with index " + i);
                }
                byIndex[i] = d.path("embedding");
            }
            for (JsonNode v : byIndex) {
                if (v != null) {
                    vectors.add(v);
                }
            }
        }
        if (vectors.size() != n) {
            throw new Unavailable(provider + " embeddings: asked for " + n + " vectors, got " + vectors.size());
        }
        List<float[]> out = new ArrayList<>(n);
        for (JsonNode v : vectors) {
            if (!v.isArray() || v.size() != dim) {
                throw new Unavailable(provider + " embeddings: got a " + v.size() + "-dimension vector, "
                        + "memory.embeddings.dim is " + dim);
            }
            float[] f = new float[dim];
            for (int i = 0; i < dim; i++) {
                f[i] = (float) v.get(i).asDouble();
            }
            out.add(Embedder.unit(f));
        }
        return out;
    }

    private static String errorText(String body) {
        try {
            JsonNode e = JSON.readTree(body).path("error");
            String msg = e.isTextual() ? e.asText() : e.path("message").asText("");
            return msg.isEmpty() ? "" : ": " + MemoryText.truncateUtf8(msg, 200);
        } catch (IOException ex) {
            return "";
        }
    }
}
