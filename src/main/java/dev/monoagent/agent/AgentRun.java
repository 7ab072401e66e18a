package dev.monoagent.agent;

import java.util.concurrent.CompletableFuture;

/**
 * A started agent run: its ids, a stop button and its result. Its events go to the service's bus as they happen
 * (filter by {@link #runId()}); the result completes after {@code RunFinished} was published.
 */
public final class AgentRun {
    private final String runId;
    private final String conversationId;
    private final AgentLoop.Stop stop;
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();

    AgentRun(String runId, String conversationId, AgentLoop.Stop stop) {
        this.runId = runId;
        this.conversationId = conversationId;
        this.stop = stop;
    }

    public String runId() {
        return runId;
    }

    public String conversationId() {
        return conversationId;
    }

    /**
     * Stops the run: aborts the model's HTTP stream and kills a running tool's process group. Idempotent; the result
     * then completes with status {@code cancelled} (unless the run had already ended).
     */
    public void cancel() {
        stop.cancel();
    }

    /** Completes when the run has ended (never exceptionally). */
    public CompletableFuture<RunResult> result() {
        return result;
    }

    /** Waits for the end of the run. */
    public RunResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    void complete(RunResult r) {
        result.complete(r);
    }

    boolean done() {
        return result.isDone();
    }
}
