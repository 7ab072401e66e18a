package dev.monoagent.agent;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.TaskExecutor;
import dev.monoagent.model.CancelSignal;
import dev.monoagent.model.FailureKind;
import dev.monoagent.model.Item;
import dev.monoagent.model.ModelClient;
import dev.monoagent.model.ModelEvent;
import dev.monoagent.model.ModelRequest;
import dev.monoagent.model.ToolSpec;
import dev.monoagent.tools.ToolNames;
import dev.monoagent.tools.ToolResult;
import dev.monoagent.tools.Tools;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run's model ↔ tools loop, top to bottom: send the conversation, stream the answer to the bus, run the tool
 * calls it asks for through the tools orchestrator (consecutive read-only calls in parallel, the others in order),
 * feed the results back, until the model answers without a tool call, {@code agent.maxTurns} model turns have been
 * used ({@code max_turns}), the provider fails (its kind), or the run is stopped ({@code cancelled}). Tool failures,
 * {@code sandbox_prepare_failed} included, are results the model sees; they never end the run.
 *
 * <p>The loop thread is never interrupted (an interrupted thread would close the run log's file channel on its next
 * write): a stop aborts the model's HTTP exchange through the {@link CancelSignal} and interrupts only the task running
 * a tool, which kills the tool's process group.
 */
final class AgentLoop {
    /** Tools that only read, so several may run at once. */
    static final Set<String> READ_ONLY = Set.of(ToolNames.READ, ToolNames.GLOB, ToolNames.GREP,
            ToolNames.MEMORY_RECALL, ToolNames.MEMORY_JOURNAL);
    /** How long a stopped tool gets to finish (its process group is being killed) before the run ends anyway. */
    static final long STOP_GRACE_MS = 700;

    /**
     * What a run is set up with.
     *
     * @param instructions the system prompt
     * @param tools        the tools offered to the model (empty: chat only)
     * @param sessionId    the conversation id (prompt-cache key)
     */
    record Setup(ModelClient client, String provider, String model, String instructions, List<ToolSpec> tools,
                 int maxTurns, ContextWindow window, String sessionId) {}

    /** How a loop ended. */
    sealed interface Outcome {
        record Answer(String text) implements Outcome {}

        record Failure(FailureKind kind, String message) implements Outcome {}
    }

    /** A run's stop switch: the model's cancel signal plus the tool calls running now. */
    static final class Stop {
        final CancelSignal model = new CancelSignal();
        final CompletableFuture<Void> fired = new CompletableFuture<>();
        private final Set<Running> running = ConcurrentHashMap.newKeySet();

        void cancel() {
            fired.complete(null);
            model.cancel();
            running.forEach(r -> r.task().cancel());
        }

        boolean stopped() {
            return fired.isDone();
        }

        void track(Running r) {
            running.add(r);
            r.ended().whenComplete((x, e) -> running.remove(r));
            if (stopped()) {
                r.task().cancel();
            }
        }

        /** Waits up to {@code ms} for stopped tool calls to end (so their last events precede the run's end). */
        void awaitIdle(long ms) {
            long end = System.nanoTime() + ms * 1_000_000;
            for (Running r : List.copyOf(running)) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    r.ended().get(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (ExecutionException | TimeoutException | java.util.concurrent.CancellationException e) {
                    // ended badly or still ending: the run ends anyway
                }
            }
        }
    }

    /**
     * A tool call on its worker: {@code task} to interrupt it, {@code ended} completes when the worker has really
     * returned (a cancelled task's own future completes at once, before the tool has stopped).
     */
    record Running(TaskExecutor.Task<ToolResult> task, CompletableFuture<ToolResult> ended) {}

    private final Setup setup;
    private final EventSink events;
    private final TaskExecutor executor;
    private final Tools.Run tools;
    private final String runId;
    private final Stop stop;

    AgentLoop(Setup setup, EventSink events, TaskExecutor executor, Tools.Run tools, String runId, Stop stop) {
        this.setup = setup;
        this.events = events;
        this.executor = executor;
        this.tools = tools;
        this.runId = runId;
        this.stop = stop;
    }

    /**
     * Runs the loop over {@code items} (the conversation, already ending with this turn's user message), appending
     * what the model and the tools produce. On return every tool call in {@code items} has its output.
     */
    Outcome run(List<Item> items) {
        boolean contextRetried = false;
        for (int turn = 1; ; ) {
            if (stop.stopped()) {
                return cancelled();
            }
            if (turn > setup.maxTurns()) {
                return new Outcome.Failure(FailureKind.MAX_TURNS, "the run used its " + setup.maxTurns()
                        + " model turns (agent.maxTurns) without a final answer");
            }
            fitContext(items, false);
            ModelEvent.Terminal t = request(turn, items);
            switch (t) {
                case ModelEvent.Failed f -> {
                    if (stop.stopped() || f.kind() == FailureKind.CANCELLED) {
                        return cancelled();
                    }
                    if (f.kind() == FailureKind.CONTEXT_LIMIT && !contextRetried && setup.window().canElide(items)) {
                        // the estimate was off for this model: elide every old output and try the turn once more
                        contextRetried = true;
                        fitContext(items, true);
                        continue;
                    }
                    return new Outcome.Failure(f.kind(), f.message());
                }
                case ModelEvent.Completed c -> {
                    items.addAll(c.output());
                    String text = text(c.output());
                    List<Item.ToolCall> calls = c.toolCalls();
                    if (calls.isEmpty()) {
                        if ("length".equals(c.stop())) {
                            publishText(text, false);
                            return new Outcome.Failure(FailureKind.USAGE_LIMIT,
                                    "the answer was cut at the model's output-token limit");
                        }
                        publishText(text, true);
                        return new Outcome.Answer(text);
                    }
                    publishText(text, false);
                    runCalls(calls, items);
                    if (stop.stopped()) {
                        return cancelled();
                    }
                    turn++;
                }
            }
        }
    }

    private static Outcome cancelled() {
        return new Outcome.Failure(FailureKind.CANCELLED, "the run was stopped");
    }

    private void publishText(String text, boolean finalAnswer) {
        if (finalAnswer || !text.isEmpty()) {
            events.accept(new Event.AssistantMessage(Instant.now(), runId, text, finalAnswer));
        }
    }

    private static String text(List<Item> output) {
        StringBuilder sb = new StringBuilder();
        for (Item i : output) {
            if (i instanceof Item.AssistantText a) {
                sb.append(a.text());
            }
        }
        return sb.toString();
    }

    private void fitContext(List<Item> items, boolean all) {
        ContextWindow w = setup.window();
        long before = ContextWindow.estimate(setup.instructions(), items, setup.tools());
        if (!all && !w.near(before)) {
            return;
        }
        int n = w.elide(setup.instructions(), items, setup.tools(), all);
        if (n > 0) {
            long after = ContextWindow.estimate(setup.instructions(), items, setup.tools());
            events.accept(new Event.ContextElided(Instant.now(), runId, n, before, after, w.budget()));
        }
    }

    /** One model request; its metadata goes to the bus as {@link Event.ModelCallFinished}. */
    private ModelEvent.Terminal request(int turn, List<Item> items) {
        ModelRequest req = new ModelRequest(setup.model(), setup.instructions(), items, setup.tools(),
                setup.sessionId());
        long t0 = System.nanoTime();
        long[] first = {-1};
        int[] retries = {0};
        ModelEvent.Usage[] usage = {null};
        ModelEvent.Terminal t = setup.client().stream(req, ev -> {
            if (first[0] < 0) {
                first[0] = (System.nanoTime() - t0) / 1_000_000;
            }
            switch (ev) {
                case ModelEvent.TextDelta d -> events.accept(new Event.AssistantDelta(Instant.now(), runId, d.text()));
                case ModelEvent.Usage u -> usage[0] = u;
                case ModelEvent.Retrying r -> {
                    retries[0]++;
                    events.accept(new Event.ModelRetrying(Instant.now(), runId, turn, r.attempt(), r.delayMs(),
                            r.reason()));
                }
                case ModelEvent.ReasoningDelta r -> {
                    // shown live (transcript, terminal, run log); the conversation keeps the provider's own item
                    if (!r.text().isEmpty()) {
                        events.accept(new Event.ReasoningDelta(Instant.now(), runId, r.text()));
                    }
                }
                case ModelEvent.ToolCall c -> { /* taken from the completed turn, in order */ }
                case ModelEvent.Completed c -> { }
                case ModelEvent.Failed f -> { }
            }
        }, stop.model);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String outcome = switch (t) {
            case ModelEvent.Completed c -> c.stop();
            case ModelEvent.Failed f -> stop.stopped() ? FailureKind.CANCELLED.wire() : f.kind().wire();
        };
        ModelEvent.Usage u = usage[0];
        events.accept(new Event.ModelCallFinished(Instant.now(), runId, turn, setup.provider(), setup.model(), outcome,
                u == null ? 0 : u.inputTokens(), u == null ? 0 : u.cachedInputTokens(),
                u == null ? 0 : u.outputTokens(), u == null ? 0 : u.reasoningTokens(), retries[0], first[0], ms));
        return t;
    }

    /** Runs the calls (consecutive read-only ones together) and appends one output per call, in call order. */
    private void runCalls(List<Item.ToolCall> calls, List<Item> items) {
        int i = 0;
        while (i < calls.size()) {
            int j = i + 1;
            if (readOnly(calls.get(i))) {
                while (j < calls.size() && readOnly(calls.get(j))) {
                    j++;
                }
            }
            List<Item.ToolCall> group = calls.subList(i, j);
            List<Running> started = new ArrayList<>();
            for (Item.ToolCall c : group) {
                if (!stop.stopped()) {
                    started.add(start(c));
                }
            }
            for (int k = 0; k < group.size(); k++) {
                Item.ToolCall c = group.get(k);
                ToolResult r = k < started.size() ? await(started.get(k)) : notRun();
                items.add(new Item.ToolOutput(c.callId(), modelText(c.callId(), r), !r.outcome().ok()));
            }
            i = j;
        }
    }

    /** Whether the call may run beside other read-only ones; an unknown tool name is not (the tool says unknown). */
    private static boolean readOnly(Item.ToolCall c) {
        String name = ToolNames.canonical(c.name());
        return name != null && READ_ONLY.contains(name);
    }

    private Running start(Item.ToolCall c) {
        CompletableFuture<ToolResult> ended = new CompletableFuture<>();
        TaskExecutor.Task<ToolResult> task = executor.submit("tool-" + c.callId(), () -> {
            try {
                ToolResult r = tools.call(c.callId(), c.name(), c.arguments());
                ended.complete(r);
                return r;
            } catch (Throwable e) {
                ended.completeExceptionally(e);
                throw e;
            }
        });
        Running r = new Running(task, ended);
        stop.track(r);
        return r;
    }

    /** The call's result; on a stop, a short grace for the killed tool to publish its end, then "cancelled". */
    private ToolResult await(Running running) {
        CompletableFuture<ToolResult> ended = running.ended();
        try {
            CompletableFuture.anyOf(ended, stop.fired).handle((x, e) -> null).join();
            if (!ended.isDone()) {
                ended.get(STOP_GRACE_MS, TimeUnit.MILLISECONDS);
            }
            ToolResult r = ended.join();
            if (stop.stopped()) {
                // killed mid-way: what it printed so far is kept, but the model must not take it for a result
                return new ToolResult.Failed(ToolResult.FAILED, "Error: cancelled: the run was stopped while this "
                        + "call ran." + (r == null || r.text() == null ? "" : "\n" + r.text()));
            }
            return r;
        } catch (TimeoutException e) {
            return notRun();
        } catch (ExecutionException | java.util.concurrent.CompletionException e) {
            return stop.stopped() ? notRun() : new ToolResult.Failed(ToolResult.FAILED,
                    "Error: the tool call failed: " + (e.getCause() != null ? e.getCause() : e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return notRun();
        }
    }

    private static ToolResult notRun() {
        return new ToolResult.Failed(ToolResult.FAILED, "Error: cancelled: the run was stopped before this call "
                + "finished.");
    }

    /** The result as the model sees it: the failure code first, then the (bounded) text. */
    private String modelText(String callId, ToolResult r) {
        String text = setup.window().bound(callId, r.text() == null ? "" : r.text());
        return r.outcome().ok() ? text : "[" + r.outcome().wire() + "] " + text;
    }
}
