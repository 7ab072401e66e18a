package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.cli.CliHarness;
import dev.monoagent.common.Violation;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the run record and the report of an agent run of playbook step 7 must hold, checked on the log a real loop wrote
 * over the real sandbox: the prompt, the model and its requests, every tool call with its outcome and duration, the
 * blocked curl and the refused {@code .env} write attributed to their calls, the answer — and no API key, through the
 * CLI as a reviewer runs it.
 */
final class StepSevenReport {
    private StepSevenReport() {}

    /**
     * @param requests how many model requests the run made
     * @param calls   the tool calls' ids the model made
     * @param netCall the call whose network access was blocked
     * @param envCall the call whose write to {@code .env} was refused
     */
    static void check(Path ws, String runId, String prompt, String answer, String model, int requests,
                      List<String> calls,
                      String netCall, String envCall, String key) throws Exception {
        RunRecords.Run run = RunRecords.read(ws, runId);
        assertTrue(run.problems().isEmpty(), run.problems().toString());
        assertEquals("completed", run.status());
        assertNull(run.failureKind());
        assertEquals(model, run.model());
        assertEquals(List.of(prompt), run.prompts());
        assertEquals(answer, run.answer());
        assertEquals(requests, run.modelCalls().size(), "model requests");
        assertTrue(run.tokens()[0] > 0 && run.tokens()[2] > 0, "token usage summed");
        Map<String, RunRecords.ToolCall> byId = run.toolCalls().stream()
                .collect(Collectors.toMap(RunRecords.ToolCall::callId, c -> c));
        assertEquals(Set.copyOf(calls), byId.keySet());
        byId.values().forEach(c -> assertTrue(c.outcome() != null && c.durationMs() != null, c.toString()));
        assertTrue(byId.get(netCall).violations().stream().anyMatch(v -> v.kind() == Violation.Kind.NETWORK),
                "network violation on " + netCall + ": " + run.violations());
        assertTrue(byId.get(envCall).violations().stream().anyMatch(v -> v.kind() == Violation.Kind.WRITE),
                "write violation on " + envCall + ": " + run.violations());

        Map<String, String> env = Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        CliHarness.Result list = CliHarness.run(ws, env, "runs", "list", "--json");
        assertEquals(0, list.exit(), list.err());
        JsonNode row = new ObjectMapper().readTree(list.out()).get(0);
        assertEquals(runId, row.path("runId").asText());
        assertEquals(model, row.path("model").asText());
        assertEquals(calls.size(), row.path("toolCalls").asInt());

        CliHarness.Result html = CliHarness.run(ws, env, "runs", "report", runId, "--format", "html");
        assertEquals(0, html.exit(), html.err());
        String h = html.out();
        for (String id : calls) {
            assertTrue(Pattern.compile("<td>\\d+</td><td>" + Pattern.quote(id) + "</td><td>\\w+</td><td>[^<]+</td>"
                    + "<td>\\d+ ms</td>").matcher(h).find(), "tool call row " + id);
        }
        assertTrue(Pattern.compile("<td>\\w+</td><td>network</td><td>" + Pattern.quote(netCall) + "</td>")
                .matcher(h).find(), "network violation row");
        assertTrue(Pattern.compile("<td>\\w+</td><td>write</td><td>" + Pattern.quote(envCall) + "</td>")
                .matcher(h).find(), "write violation row");
        assertTrue(h.contains("<dt>Model</dt><dd>" + model), "model in the summary");
        assertTrue(h.contains("<h2>Model requests (" + requests + ")</h2>"), "model requests table");
        CliHarness.Result md = CliHarness.run(ws, env, "runs", "report", runId);
        assertEquals(0, md.exit(), md.err());
        assertTrue(md.out().contains(prompt) && md.out().contains(answer), "prompt and answer in the report");
        assertTrue(md.out().contains("**Engine version**: 0.0.78"), "engine fingerprint");
        assertFalse(h.contains(key) || md.out().contains(key), "the API key in a report");
    }
}
