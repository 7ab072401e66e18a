package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.agent.ModelStatus;
import dev.monoagent.agent.RunResult;
import dev.monoagent.common.Event;
import dev.monoagent.common.RunStatus;
import dev.monoagent.model.auth.CredentialState;
import dev.monoagent.ui.port.AgentPort;
import dev.monoagent.ui.task.DirectTaskExecutor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The prompt box's view-model over a scripted {@link AgentPort}, without a window. */
class PromptModelTest {
    private final Instant t = Instant.parse("2026-12-01T10:00:00Z");

    /** Records what the box asked for; each start gets a fresh run id and an open result. */
    static class ScriptedPort implements AgentPort {
        final List<String> prompts = new ArrayList<>();
        final List<String> conversations = new ArrayList<>();
        final List<String> cancelled = new ArrayList<>();
        final List<CompletableFuture<RunResult>> results = new ArrayList<>();
        RuntimeException refuse;
        ModelStatus status = new ModelStatus("openai:gpt-test", "openai", CredentialState.PRESENT,
                "OPENAI_API_KEY is set");

        @Override
        public boolean available() {
            return true;
        }

        @Override
        public ModelStatus modelStatus() {
            return status;
        }

        @Override
        public Started start(String prompt, String conversationId) {
            if (refuse != null) {
                throw refuse;
            }
            prompts.add(prompt);
            conversations.add(conversationId);
            CompletableFuture<RunResult> f = new CompletableFuture<>();
            results.add(f);
            return new Started("run-" + prompts.size(), "conv-1", f);
        }

        @Override
        public void cancel(String runId) {
            cancelled.add(runId);
        }
    }

    private final ScriptedPort port = new ScriptedPort();
    private final PromptModel m = new PromptModel(port, new DirectTaskExecutor());

    @Test
    void sendStartsARunAndSendIsOffUntilItEnds() {
        assertFalse(m.canSendBinding().get(), "nothing typed");
        m.textProperty().set("  Inspect the repo  ");
        assertTrue(m.canSendBinding().get());
        assertTrue(m.send());
        assertEquals(List.of("Inspect the repo"), port.prompts);
        assertEquals("", m.textProperty().get(), "the box empties once sent");
        assertEquals(PromptModel.State.RUNNING, m.stateProperty().get());
        m.textProperty().set("next question");
        assertFalse(m.canSendBinding().get(), "Send is off while a run is active");
        assertFalse(m.send());
        assertTrue(m.statusProperty().get().contains("in progress"), m.statusProperty().get());
        assertEquals(1, port.prompts.size());

        m.onEvent(new Event.ModelCallFinished(t, "run-1", 1, "openai", "gpt-test", "stop", 1, 0, 1, 0, 0, 5, 9));
        m.onEvent(new Event.RunFinished(t, "run-1", RunStatus.COMPLETED));
        assertEquals(PromptModel.State.RUNNING, m.stateProperty().get(),
                "this box's run ends with its result: the conversation is released only then");
        port.results.get(0).complete(new RunResult("run-1", "conv-1", RunStatus.COMPLETED, "a", null, null));
        assertEquals(PromptModel.State.IDLE, m.stateProperty().get());
        assertTrue(m.statusProperty().get().startsWith("Answered in "), m.statusProperty().get());
        assertTrue(m.statusProperty().get().endsWith("(1 model turn)."), m.statusProperty().get());
        assertTrue(m.canSendBinding().get());
    }

    @Test
    void theNextPromptContinuesTheConversationUnlessSwitchedOff() {
        m.textProperty().set("first");
        m.send();
        port.results.get(0).complete(new RunResult("run-1", "conv-1", RunStatus.COMPLETED, "a", null, null));
        m.textProperty().set("second");
        m.send();
        port.results.get(1).complete(new RunResult("run-2", "conv-1", RunStatus.COMPLETED, "b", null, null));
        m.continueConversationProperty().set(false);
        m.textProperty().set("third");
        m.send();
        assertEquals(java.util.Arrays.asList(null, "conv-1", null), port.conversations);
    }

    @Test
    void failuresAreSaidInWordsWithoutExceptionNames() {
        m.textProperty().set("go");
        m.send();
        port.results.get(0).complete(new RunResult("run-1", "conv-1", RunStatus.FAILED, null,
                "provider_unavailable", "java.net.ConnectException: connection refused\n\tat x.y.Z(Z.java:1)"));
        assertEquals("Failed: the model provider is unavailable — connection refused",
                m.statusProperty().get());
    }

    @Test
    void aRefusedRequestKeepsThePromptAndNamesTheField() {
        port.refuse = new IllegalArgumentException("--continue: conversation conv-1 has a run in progress");
        m.textProperty().set("keep me");
        m.send();
        assertEquals("keep me", m.textProperty().get(), "nothing lost");
        assertEquals(PromptModel.State.IDLE, m.stateProperty().get());
        assertEquals("Not sent: --continue: conversation conv-1 has a run in progress", m.statusProperty().get());
    }

    @Test
    void stopCancelsTheRunAndTheEndSaysStopped() {
        m.textProperty().set("go");
        m.send();
        m.stop();
        assertEquals(List.of("run-1"), port.cancelled);
        assertEquals(PromptModel.State.STOPPING, m.stateProperty().get());
        port.results.get(0).complete(new RunResult("run-1", "conv-1", RunStatus.CANCELLED, null, "cancelled",
                "stopped"));
        assertEquals(PromptModel.State.IDLE, m.stateProperty().get());
        assertTrue(m.statusProperty().get().startsWith("Stopped after "), m.statusProperty().get());
    }

    @Test
    void aRunStartedInATerminalIsFollowedAndCanBeStopped() {
        m.onEvent(new Event.AgentRunStarted(t, "run-cli", "conv-9", false, "openai", "gpt-5", 50));
        assertEquals(PromptModel.State.RUNNING, m.stateProperty().get());
        assertEquals("Model: openai:gpt-5", m.modelProperty().get());
        m.textProperty().set("x");
        assertFalse(m.canSendBinding().get());
        m.onEvent(new Event.ToolCallStarted(t, "run-cli", "c1", "Bash", "{}"));
        assertEquals("Turn 1: running Bash…", m.statusProperty().get());
        m.onEvent(new Event.ToolCallStarted(t, "other-run", "c2", "Read", "{}"));
        assertEquals("Turn 1: running Bash…", m.statusProperty().get(), "other runs' events are not this one's");
        m.stop();
        assertEquals(List.of("run-cli"), port.cancelled);
        m.onEvent(new Event.RunFailed(t, "run-cli", "cancelled", "stopped"));
        m.onEvent(new Event.RunFinished(t, "run-cli", RunStatus.CANCELLED));
        assertEquals(PromptModel.State.IDLE, m.stateProperty().get());
    }

    @Test
    void modelAndCredentialStateShown() {
        m.refreshModel();
        assertEquals("Model: openai:gpt-test", m.modelProperty().get());
        assertEquals("credentials present (OPENAI_API_KEY is set)", m.credentialProperty().get());
        assertFalse(m.signInNeededProperty().get());
        port.status = new ModelStatus("openai-codex:gpt-5", "openai-codex", CredentialState.EXPIRED,
                "run mono-agent auth login openai-codex");
        m.refreshModel();
        assertEquals("credentials expired (run mono-agent auth login openai-codex)", m.credentialProperty().get());
        assertTrue(m.signInNeededProperty().get(), "the Sign in action is offered");
    }

    @Test
    void withoutAnAgentNothingCanBeSent() {
        PromptModel none = new PromptModel(AgentPort.NONE, new DirectTaskExecutor());
        none.textProperty().set("hello");
        assertFalse(none.canSendBinding().get());
        assertFalse(none.send());
        assertNull(none.conversationProperty().get());
        assertTrue(none.statusProperty().get().contains("cannot be sent"), none.statusProperty().get());
    }
}
