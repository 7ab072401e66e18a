package dev.monoagent.ui.port;

import dev.monoagent.agent.ModelStatus;
import dev.monoagent.agent.RunResult;
import java.util.concurrent.CompletableFuture;

/**
 * What the prompt box needs from the agent loop: start a run, stop a run (the window's own or one started from a
 * terminal against this instance), the model and credential state. Every method may block and is only called from
 * the task executor's workers. {@link ServiceAgent} is the production adapter; {@link #NONE} is the honest stand-in
 * for a window without a service core (the prompt box then says it cannot send).
 */
public interface AgentPort {

    /** A started run. */
    record Started(String runId, String conversationId, CompletableFuture<RunResult> result) {}

    /** False when this window has no agent loop behind it. */
    boolean available();

    /** The configured model and its credential state. */
    ModelStatus modelStatus();

    /**
     * Starts a run of {@code prompt} and returns at once.
     *
     * @param conversationId the conversation to continue, or null for a new one
     * @throws Exception with a message naming the field when the request is refused (blank prompt, bad model
     *                   reference, conversation busy)
     */
    Started start(String prompt, String conversationId) throws Exception;

    /** Stops the run {@code runId} if it is still running in this instance. */
    void cancel(String runId);

    /** The workspace's conversations, newest first (the window's history). */
    default java.util.List<dev.monoagent.agent.Conversation.Summary> conversations() throws Exception {
        return java.util.List.of();
    }

    /**
     * One conversation's items, oldest first.
     *
     * @throws Exception when there is no such conversation or it cannot be read (the message says which)
     */
    default java.util.List<dev.monoagent.model.Item> conversation(String id) throws Exception {
        throw new java.io.IOException("this window has no conversations");
    }

    /** Pays the model SDK's set-up early, so the first prompt does not wait for it. */
    default void warmUp() {
    }

    /** No agent loop: nothing can be started. */
    AgentPort NONE = new AgentPort() {
        @Override
        public boolean available() {
            return false;
        }

        @Override
        public ModelStatus modelStatus() {
            return new ModelStatus(null, null, null, "no agent service in this window");
        }

        @Override
        public Started start(String prompt, String conversationId) {
            throw new IllegalStateException("this window has no agent service");
        }

        @Override
        public void cancel(String runId) {
        }
    };
}
