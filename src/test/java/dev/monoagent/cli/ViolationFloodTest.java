package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command buries one protected-file write among thousands of refused writes elsewhere: 3,000 writes to
 * {@code /usr}, then {@code echo x >> .env}. Recorded one by one, every refusal was a file append, an event, an
 * fsynced run-log line and a terminal line; the record fell behind the command, and (at 20,000) the {@code .env}
 * attempt was in neither the violations log nor the run log, with nothing saying records were missing, while the
 * terminal got megabytes of {@code violation:} lines. Now past a cap the same kind is counted into one aggregated
 * record that says how many; the {@code .env} attempt is kept one by one. Real srt sandbox, real CLI command tree;
 * judged by the files on disk.
 */
@org.junit.jupiter.api.extension.ExtendWith(EngineCache.class)
class ViolationFloodTest {
    @TempDir
    Path ws;


    static final int FLOOD = 3000;


    @Test
    void aProtectedWriteIsKeptOneByOneAmongAFloodAndTheRestIsCounted() throws Exception {
        assertEquals(0, CliHarness.run(false, ws, Map.of(), "init", "--model", "openai:gpt-5", "--preset",
                "code-sandbox").exit());
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");
        String cmd = "for i in $(seq 1 " + FLOOD + "); do : > /usr/flood$i 2>/dev/null; done; echo x >> .env; "
                + "echo done";
        String args = new ObjectMapper().createObjectNode().put("command", cmd).toString();
        CliHarness.Result r = CliHarness.run(false, ws, Map.of(), "tools", "call", "Bash", args, "--run-id", "flood");
        assertTrue(r.out().contains("done"), r.out() + r.err());
        assertEquals("SECRET=1\n", Files.readString(ws.resolve(".env")), "the host's .env is unchanged");
        String env = ws.resolve(".env").toString();

        // the violations log: the .env attempt on a line of its own, and one line saying how many were counted
        List<JsonNode> log = new ArrayList<>();
        try (var files = Files.list(ws.resolve(".mono-agent/violations"))) {
            for (Path f : files.toList()) {
                for (String line : Files.readAllLines(f)) {
                    JsonNode n = new ObjectMapper().readTree(line);
                    assertEquals("ViolationObserved", n.path("type").asText(), "run-log format: " + line);
                    log.add(n.path("violation"));
                }
            }
        }
        assertTrue(log.stream().anyMatch(n -> env.equals(n.path("target").asText()) && n.path("more").asLong() == 0
                && "WRITE".equalsIgnoreCase(n.path("kind").asText())), "the .env attempt in the violations log");
        long counted = log.stream().mapToLong(n -> n.path("more").asLong()).sum();
        // srt's feed drops part of a flood when the machine is loaded (measured: 239-1,946 of 3,000), so the count is
        // only required to show aggregation well past the 50 kept one by one
        assertTrue(counted > 100, "the violations log says how many were aggregated: " + counted);
        assertTrue(log.size() < 200, "not one line per refusal: " + log.size());

        // the run log: the same
        List<JsonNode> run = new ArrayList<>();
        for (String line : Files.readAllLines(ws.resolve(".mono-agent/runs/flood/events.jsonl"))) {
            JsonNode n = new ObjectMapper().readTree(line);
            if ("ViolationObserved".equals(n.path("type").asText())) {
                run.add(n.path("violation"));
            }
        }
        assertTrue(run.stream().anyMatch(v -> env.equals(v.path("target").asText()) && v.path("more").asLong() == 0),
                "the .env attempt in the run log");
        assertEquals(counted, run.stream().mapToLong(v -> v.path("more").asLong()).sum(),
                "the run log states the same aggregated count");

        // the tool result the model reads: the .env record, and the count
        assertTrue(r.out().contains("Sandbox record (write): " + env + " — "), r.out());
        assertTrue(r.out().contains("Sandbox record (write, " + counted + " aggregated): "), r.out());

        // the terminal: one summary line, not thousands of violation lines
        List<String> summary = r.err().lines().filter(l -> l.startsWith("violations: ")).toList();
        assertEquals(1, summary.size(), r.err());
        assertTrue(summary.get(0).startsWith("violations: " + counted + " more observed write aggregated"),
                summary.get(0));
        long single = r.err().lines().filter(l -> l.startsWith("violation: ")).count();
        assertTrue(single < 100, "violation lines on the terminal: " + single);
        assertTrue(r.err().lines().anyMatch(l -> l.startsWith("violation: observed write " + env + " ")), r.err());
    }
}
