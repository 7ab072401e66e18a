package dev.monoagent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * What the vendor SDK costs per turn against a hand-written {@code java.net.http} Responses reader, in one process
 * against the same local fake: the first call of each (cold: class loading and SDK set-up, the hand-written path
 * measured first so the SDK cannot warm shared JDK classes for it) and warm medians. Not part of the normal run:
 * {@code mvn -B -q test -Dtest=ModelWireBenchmark -Dsurefire.failIfNoSpecifiedTests=false}; add
 * {@code -Dbench.warmUp=true} to split the SDK's first call into {@link ModelClient#warmUp()} and the request.
 * {@link #firstEventVersusRawHttp} times what a local model's user waits for each turn: the first streamed event of
 * an agent-sized request, our clients against a raw {@code java.net.http} request of the same size in the same JVM.
 */
class ModelWireBenchmark {
    static final int WARM = 30;
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void sdkVersusHandWritten() throws Exception {
        String body = Scripts.responses().reasoning("thinking about it").text("Hello", " there", "!")
                .toolCall("call_1", "Read", "{\"path\":", "\"a\"}").completed(10, 5).build();
        try (FakeModelServer server = FakeModelServer.start()) {
            for (int i = 0; i < 2 * (WARM + 1); i++) {
                server.enqueue(Reply.sse(body));
            }
            String base = server.baseUrl() + "/v1";
            HttpClient http = HttpClient.newHttpClient();
            long t0 = System.nanoTime();
            assertEquals("Hello there!", handWritten(http, base));
            long coldHand = System.nanoTime() - t0;

            ModelClient sdk = ResponsesClient.withApiKey("openai", base, new RetryPolicy(1, 0, 0),
                    Duration.ofSeconds(120), "sk-bench", "OPENAI_API_KEY");
            t0 = System.nanoTime();
            if (Boolean.getBoolean("bench.warmUp")) {
                sdk.warmUp();
            }
            long warmUp = System.nanoTime() - t0;
            t0 = System.nanoTime();
            assertEquals("Hello there!", Turns.run(sdk, Turns.ask("x")).text());
            long coldSdk = System.nanoTime() - t0;

            long[] hand = new long[WARM];
            long[] viaSdk = new long[WARM];
            for (int i = 0; i < WARM; i++) {
                t0 = System.nanoTime();
                handWritten(http, base);
                hand[i] = System.nanoTime() - t0;
                t0 = System.nanoTime();
                Turns.run(sdk, Turns.ask("x"));
                viaSdk[i] = System.nanoTime() - t0;
            }
            System.out.printf("[ModelWireBenchmark] load: %s%n", load());
            System.out.printf("[ModelWireBenchmark] first call: hand-written %.0f ms, SDK %.0f ms (%.1fx)%s%n",
                    coldHand / 1e6, coldSdk / 1e6, (double) coldSdk / coldHand, Boolean.getBoolean("bench.warmUp")
                            ? String.format(" after ModelClient.warmUp() took %.0f ms", warmUp / 1e6) : "");
            System.out.printf("[ModelWireBenchmark] warm median of %d: hand-written %.2f ms, SDK %.2f ms (%.1fx)%n",
                    WARM, median(hand) / 1e6, median(viaSdk) / 1e6, (double) median(viaSdk) / median(hand));
        }
    }

    static final int FIRST_EVENT_RUNS = Integer.getInteger("bench.runs", 40);
    /** An agent's request carries its prompt, tool schemas and history: tens of kilobytes. */
    static final int REQUEST_BYTES = 24_000;

    @Test
    void firstEventVersusRawHttp() throws Exception {
        try (FakeModelServer server = FakeModelServer.start()) {
            String base = server.baseUrl() + "/v1";
            ModelClient responses = ResponsesClient.withApiKey("openai", base, new RetryPolicy(1, 0, 0),
                    Duration.ofSeconds(120), "sk-bench", "OPENAI_API_KEY");
            ModelClient chat = new ChatClient("lmstudio", base, new RetryPolicy(1, 0, 0), Duration.ofSeconds(120),
                    null, null);
            ModelClient anthropic = new AnthropicClient("anthropic", server.baseUrl(), new RetryPolicy(1, 0, 0),
                    Duration.ofSeconds(120), "sk-ant-bench", "ANTHROPIC_API_KEY", 1024);
            Reply responsesReply = Reply.sse(Scripts.responses().text("Hello", " there").completed(10, 2).build());
            Reply chatReply = Reply.sse(Scripts.chat().text("Hello", " there").finish("stop").usage(10, 2).done()
                    .build());
            Reply anthropicReply = Reply.sse(Scripts.anthropic().text("Hello", " there").stop("end_turn", 2).build());
            ModelRequest req = new ModelRequest("gpt-test", "y".repeat(REQUEST_BYTES),
                    java.util.List.of(new Item.UserText("hi")), java.util.List.of(Turns.readTool()), "sess-1");
            String rawBody = JSON.writeValueAsString(JSON.createObjectNode().put("model", "gpt-test")
                    .put("instructions", "y".repeat(REQUEST_BYTES)).put("stream", true).put("input", "hi"));
            HttpClient http = HttpClient.newHttpClient();
            int warm = 20;
            long[] raw = new long[FIRST_EVENT_RUNS];
            long[] viaResponses = new long[FIRST_EVENT_RUNS];
            long[] viaChat = new long[FIRST_EVENT_RUNS];
            long[] viaAnthropic = new long[FIRST_EVENT_RUNS];
            String loadBefore = load();
            for (int i = -warm; i < FIRST_EVENT_RUNS; i++) {
                server.enqueue(responsesReply, responsesReply, chatReply, anthropicReply);
                long r = rawFirstEvent(http, base, rawBody);
                long p = firstEvent(responses, req);
                long c = firstEvent(chat, req);
                long a = firstEvent(anthropic, req);
                if (i >= 0) {
                    raw[i] = r;
                    viaResponses[i] = p;
                    viaChat[i] = c;
                    viaAnthropic[i] = a;
                }
                server.forgetRequests();
            }
            System.out.printf(java.util.Locale.ROOT, "[ModelWireBenchmark] first event, %d kB request, median of %d "
                    + "after %d warm-up: raw java.net.http %.2f ms, Responses client %.2f ms (%.1fx), Chat client "
                    + "%.2f ms (%.1fx), Anthropic client %.2f ms (%.1fx); load before %s, after %s%n",
                    REQUEST_BYTES / 1000, FIRST_EVENT_RUNS, warm, median(raw) / 1e6, median(viaResponses) / 1e6,
                    (double) median(viaResponses) / median(raw), median(viaChat) / 1e6,
                    (double) median(viaChat) / median(raw), median(viaAnthropic) / 1e6,
                    (double) median(viaAnthropic) / median(raw), loadBefore, load());
        }
    }

    /** Nanoseconds from the call to our client's first streamed event. */
    static long firstEvent(ModelClient client, ModelRequest req) {
        long t0 = System.nanoTime();
        long[] first = {-1};
        ModelEvent.Terminal end = client.stream(req, e -> {
            if (first[0] < 0) {
                first[0] = System.nanoTime() - t0;
            }
        }, new CancelSignal());
        if (!(end instanceof ModelEvent.Completed)) {
            throw new AssertionError(end.toString());
        }
        return first[0];
    }

    /** Nanoseconds from sending a raw {@code java.net.http} request to its first {@code data:} line. */
    static long rawFirstEvent(HttpClient http, String base, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(base + "/responses"))
                .header("authorization", "Bearer sk-bench").header("content-type", "application/json")
                .header("accept", "text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long t0 = System.nanoTime();
        long first = -1;
        HttpResponse<java.io.InputStream> resp = http.send(r, HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (first < 0 && line.startsWith("data: ")) {
                    first = System.nanoTime() - t0;
                }
            }
        }
        return first;
    }

    /** The minimal hand-written path: POST, read SSE lines, take deltas, stop at response.completed. */
    static String handWritten(HttpClient http, String base) throws Exception {
        String req = JSON.writeValueAsString(JSON.createObjectNode().put("model", "gpt-test").put("stream", true)
                .put("store", false).put("input", "x"));
        HttpRequest r = HttpRequest.newBuilder(URI.create(base + "/responses"))
                .header("authorization", "Bearer sk-bench").header("content-type", "application/json")
                .header("accept", "text/event-stream").POST(HttpRequest.BodyPublishers.ofString(req)).build();
        HttpResponse<java.io.InputStream> resp = http.send(r, HttpResponse.BodyHandlers.ofInputStream());
        StringBuilder text = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("data: ")) {
                    continue;
                }
                JsonNode ev = JSON.readTree(line.substring(6));
                String type = ev.path("type").asText();
                if (type.equals("response.output_text.delta")) {
                    text.append(ev.path("delta").asText());
                } else if (type.equals("response.completed")) {
                    break;
                }
            }
        }
        return text.toString();
    }

    static long median(long[] xs) {
        long[] s = xs.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    static String load() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

}
