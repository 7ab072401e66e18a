package dev.monoagent.agent;

import dev.monoagent.common.TaskExecutor;
import dev.monoagent.config.ConfigLoader;
import dev.monoagent.model.CancelSignal;
import dev.monoagent.model.Item;
import dev.monoagent.model.ModelClient;
import dev.monoagent.model.ModelEvent;
import dev.monoagent.model.ModelRequest;
import dev.monoagent.model.ToolSpec;
import dev.monoagent.host.HostEnv;
import dev.monoagent.tools.ToolResult;
import dev.monoagent.tools.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Loop overhead per tool call: a run of {@link #CALLS} model turns, each asking for one {@code Read}, answered by a
 * scripted zero-latency in-process model, against the same {@code Read} calls made directly on the tools facade in
 * the same process. Overhead per call = (loop run − direct calls) / calls; goal ≤ 5 ms p50. Everything real but the
 * model: the orchestrator, the event bus with the run log subscribed (JSONL on disk), context estimation, result
 * bounding. Not in the normal test run; {@code mvn -B test -Dtest=AgentLoopBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}. Prints medians and the machine load.
 */
class AgentLoopBenchmark {
    static final int CALLS = 20;
    static final int ROUNDS = 40;

    /** A model that answers at once: a Read call for each of the first {@code calls} turns, then a final text. */
    static final class ScriptedModel implements ModelClient {
        private final int calls;

        ScriptedModel(int calls) {
            this.calls = calls;
        }

        @Override
        public String provider() {
            return "scripted";
        }

        @Override
        public ModelEvent.Terminal stream(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel) {
            long done = request.input().stream().filter(i -> i instanceof Item.ToolOutput).count();
            ModelEvent.Terminal t;
            if (done < calls) {
                String id = "b" + done;
                Item.ToolCall c = new Item.ToolCall(id, "Read", "{\"file_path\":\"data.txt\"}");
                sink.accept(new ModelEvent.ToolCall(id, c.name(), c.arguments()));
                t = new ModelEvent.Completed("tool_use", List.of(c));
            } else {
                sink.accept(new ModelEvent.TextDelta("done"));
                t = new ModelEvent.Completed("stop", List.of(new Item.AssistantText("done")));
            }
            sink.accept(new ModelEvent.Usage(100, 0, 10, 0));
            sink.accept(t);
            return t;
        }
    }

    @Test
    void overheadPerToolCall() throws Exception {
        Path ws = Files.createTempDirectory("mono-loop-bench-").toRealPath();
        Files.writeString(ws.resolve("data.txt"), "line\n".repeat(200));
        Files.writeString(ws.resolve("mono-agent.config.json"), "{\"runtime\": {\"model\": \"openai:x\"}, "
                + "\"tools\": {\"allowedTools\": [\"Read\"]}, \"sandbox\": {\"mode\": \"off\"}}");
        try (TaskExecutor pool = TaskExecutor.create("bench");
             AgentService service = AgentService.of(dev.monoagent.config.Trusted.load(new ConfigLoader.Options(ws, null, null,
                     Map.of())), HostEnv.detect(), pool)) {
            Tools tools = service.tools();
            List<ToolSpec> specs = tools.list().stream()
                    .map(s -> new ToolSpec(s.name(), s.description(), s.schema())).toList();
            double[] direct = new double[ROUNDS];
            double[] loop = new double[ROUNDS];
            for (int round = -5; round < ROUNDS; round++) { // 5 warm-up rounds
                String runId = "bench-" + (round + 5);
                service.startRun(runId);
                Tools.Run run = tools.run(runId);
                long t0 = System.nanoTime();
                for (int i = 0; i < CALLS; i++) {
                    ToolResult r = run.call("d" + i, "Read", "{\"file_path\":\"data.txt\"}");
                    if (!r.outcome().ok()) {
                        throw new AssertionError(r.text());
                    }
                }
                long t1 = System.nanoTime();
                AgentLoop.Setup setup = new AgentLoop.Setup(new ScriptedModel(CALLS), "scripted", "m",
                        "You are a benchmark.", specs, CALLS + 1, new ContextWindow(112_000, null), "s");
                List<Item> items = new ArrayList<>(List.of(new Item.UserText("read it " + CALLS + " times")));
                AgentLoop.Outcome o = new AgentLoop(setup, service.events(), pool, run, runId, new AgentLoop.Stop())
                        .run(items);
                long t2 = System.nanoTime();
                if (!(o instanceof AgentLoop.Outcome.Answer)) {
                    throw new AssertionError(o.toString());
                }
                service.finishRun(runId, dev.monoagent.common.RunStatus.COMPLETED);
                if (round >= 0) {
                    direct[round] = (t1 - t0) / 1e6 / CALLS;
                    loop[round] = (t2 - t1) / 1e6 / CALLS;
                }
            }
            double[] overhead = new double[ROUNDS];
            for (int i = 0; i < ROUNDS; i++) {
                overhead[i] = loop[i] - direct[i];
            }
            System.out.printf(Locale.ROOT, "AgentLoopBenchmark (%d rounds × %d Read calls, run log on)%n", ROUNDS,
                    CALLS);
            System.out.printf(Locale.ROOT, "  direct Read call        p50 %.3f ms%n", median(direct));
            System.out.printf(Locale.ROOT, "  through the loop        p50 %.3f ms per call (model turn included)%n",
                    median(loop));
            System.out.printf(Locale.ROOT, "  loop overhead per call  p50 %.3f ms, p95 %.3f ms (goal p50 <= 5 ms)%n",
                    median(overhead), pct(overhead, 0.95));
            System.out.printf(Locale.ROOT, "  ratio loop/direct       %.2f%n", median(loop) / median(direct));
            System.out.println("  load: " + new String(new ProcessBuilder("uptime").start().getInputStream()
                    .readAllBytes()).strip());
        } finally {
            try (var s = Files.walk(ws)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static double median(double[] v) {
        return pct(v, 0.5);
    }

    static double pct(double[] v, double p) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[Math.min(c.length - 1, (int) Math.floor(p * (c.length - 1) + 0.5))];
    }
}
