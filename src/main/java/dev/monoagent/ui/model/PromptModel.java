package dev.monoagent.ui.model;

import dev.monoagent.agent.ModelStatus;
import dev.monoagent.agent.RunResult;
import dev.monoagent.common.Event;
import dev.monoagent.common.RunStatus;
import dev.monoagent.model.auth.CredentialState;
import dev.monoagent.ui.port.AgentPort;
import dev.monoagent.ui.task.TaskExecutor;
import java.util.Map;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The prompt box: sends the typed prompt to the agent loop ({@link AgentPort}), continues this window's conversation
 * unless told not to, and says in words what the run is doing and how it ended (failure kinds spelled out, never a
 * stack trace). It follows any agent run of the workspace's instance — one started in a terminal too — so Send is
 * off and Stop works whichever frontend started it. Streamed text and tool cards are the transcript's job.
 */
public final class PromptModel {
    /** What the box is doing. */
    public enum State { IDLE, STARTING, RUNNING, STOPPING }

    /** Failure kinds in words (the kind itself stays in the run log and the report). */
    static final Map<String, String> KIND_WORDS = Map.of(
            "provider_unavailable", "the model provider is unavailable",
            "usage_limit", "the provider's usage limit is reached",
            "context_limit", "the conversation no longer fits the model's context window",
            "auth_required", "the provider needs you to sign in",
            "cancelled", "stopped",
            "max_turns", "the run used all its model turns (agent.maxTurns)",
            "invalid_tool_policy", "the tool settings are invalid",
            "internal_error", "an internal error stopped the run");

    private final AgentPort port;
    private final TaskExecutor executor;
    private final StringProperty text = new SimpleStringProperty("");
    private final BooleanProperty continueConversation = new SimpleBooleanProperty(true);
    private final ReadOnlyObjectWrapper<State> state = new ReadOnlyObjectWrapper<>(State.IDLE);
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper model = new ReadOnlyStringWrapper("Model: …");
    private final ReadOnlyStringWrapper credential = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper signInNeeded = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper conversation = new ReadOnlyStringWrapper();
    private final BooleanBinding canSend;
    private String activeRun;
    /** The active run was started by this box: its end is its result (the conversation is free by then). */
    private boolean own;
    private String failureKind;
    private String failureMessage;
    private long startedNanos;
    private int turns;

    public PromptModel(AgentPort port, TaskExecutor executor) {
        this.port = port;
        this.executor = executor;
        canSend = Bindings.createBooleanBinding(() -> port.available() && state.get() == State.IDLE
                && !text.get().isBlank(), state, text);
        if (!port.available()) {
            model.set("No agent loop in this window");
            status.set("Prompts cannot be sent here; the command and NodeRepl consoles run in the sandbox without "
                    + "a model.");
        }
    }

    /** Reads the model and credential state in the background (on open, after a run, after signing in). */
    public void refreshModel() {
        if (!port.available()) {
            return;
        }
        executor.submit("model-status", port::modelStatus, this::showModel,
                e -> credential.set("credentials unknown: " + e.getMessage()));
    }

    private void showModel(ModelStatus s) {
        model.set(s.model() == null ? "Model: not set" : "Model: " + s.model());
        CredentialState c = s.credential();
        credential.set(c == null ? s.detail() : "credentials " + c.word() + " (" + s.detail() + ")");
        signInNeeded.set(c != null && c != CredentialState.PRESENT && "openai-codex".equals(s.provider()));
    }

    /** Starts the model SDK's set-up in the background. */
    public void warmUp() {
        if (port.available()) {
            executor.submit("model-warm-up", () -> {
                port.warmUp();
                return null;
            }, x -> { }, e -> { });
        }
    }

    /** Sends the prompt (Enter / Send); false when nothing was sent (empty, no agent, a run in progress). */
    public boolean send() {
        if (!canSend.get()) {
            if (state.get() != State.IDLE) {
                status.set("A run is in progress: wait for it or press Stop.");
            }
            return false;
        }
        String prompt = text.get().strip();
        String conv = continueConversation.get() ? conversation.get() : null;
        text.set("");
        own = true;
        state.set(State.STARTING);
        failureKind = null;
        failureMessage = null;
        turns = 0;
        startedNanos = System.nanoTime();
        status.set("Starting…");
        executor.submit("agent-start", () -> port.start(prompt, conv), started -> {
            activeRun = started.runId();
            conversation.set(started.conversationId());
            if (state.get() == State.STOPPING) {
                String id = started.runId();
                executor.submit("agent-stop", () -> {
                    port.cancel(id);
                    return null;
                }, x -> { }, e -> status.set("Stop failed: " + oneLine(e.getMessage())));
            } else if (state.get() == State.STARTING) {
                state.set(State.RUNNING);
                status.set("Running " + started.runId() + "…");
            }
            started.result().whenComplete((r, e) -> executor.runOnUi(() -> {
                if (r != null) {
                    ended(r);
                }
            }));
        }, e -> {
            state.set(State.IDLE);
            if (text.get().isEmpty()) {
                text.set(prompt); // nothing lost
            }
            status.set("Not sent: " + oneLine(e.getMessage()));
        });
        return true;
    }

    /** The next prompt continues conversation {@code id} (picked in the history); false while a run is active. */
    public boolean continueWith(String id) {
        if (state.get() != State.IDLE) {
            status.set("A run is in progress: wait for it or press Stop.");
            return false;
        }
        conversation.set(id);
        continueConversation.set(true);
        status.set("The next prompt continues conversation " + id + ".");
        return true;
    }

    /** The next prompt starts a new conversation (which the prompts after it continue); false while a run is active. */
    public boolean startNew() {
        if (state.get() != State.IDLE) {
            status.set("A run is in progress: wait for it or press Stop.");
            return false;
        }
        conversation.set(null);
        continueConversation.set(true);
        status.set("The next prompt starts a new conversation.");
        return true;
    }

    /** Stops the run in progress (Stop / Escape): the model stream is aborted and a running tool killed. */
    public void stop() {
        String run = activeRun;
        if (state.get() == State.STARTING && run == null) {
            state.set(State.STOPPING); // stopped as soon as its id is known
            status.set("Stopping…");
            return;
        }
        if (run == null || state.get() == State.IDLE) {
            return;
        }
        state.set(State.STOPPING);
        status.set("Stopping " + run + "…");
        executor.submit("agent-stop", () -> {
            port.cancel(run);
            return null;
        }, x -> { }, e -> status.set("Stop failed: " + oneLine(e.getMessage())));
    }

    /** Follows the agent runs on the bus (UI thread). */
    public void onEvent(Event e) {
        if (e instanceof Event.AgentRunStarted a) {
            if (activeRun == null && state.get() != State.STOPPING) {
                // ours (its start() has not returned yet) or one started from a terminal: follow it either way
                activeRun = a.runId();
                if (state.get() == State.IDLE) {
                    own = false;
                    failureKind = null;
                    failureMessage = null;
                    turns = 0;
                    startedNanos = System.nanoTime();
                    state.set(State.RUNNING);
                }
            }
            if (a.runId().equals(activeRun)) {
                model.set("Model: " + a.provider() + ":" + a.model());
                if (state.get() == State.RUNNING || state.get() == State.STARTING) {
                    state.set(State.RUNNING);
                    status.set("Running " + a.runId() + (a.continued() ? " (continuing the conversation)" : "")
                            + "…");
                }
            }
            return;
        }
        String run = Event.runIdOf(e);
        if (run == null || !run.equals(activeRun)) {
            return;
        }
        switch (e) {
            case Event.ModelCallFinished m -> turns = m.turn();
            case Event.ModelRetrying m -> {
                if (state.get() == State.RUNNING) {
                    status.set("Model busy (" + oneLine(m.reason()) + "); retry " + m.attempt() + " in "
                            + Math.max(1, Math.round(m.delayMs() / 1000.0)) + " s…");
                }
            }
            case Event.ToolCallStarted s -> {
                if (state.get() == State.RUNNING) {
                    status.set("Turn " + (turns + 1) + ": running " + s.tool() + "…");
                }
            }
            case Event.ReasoningDelta r -> {
                if (state.get() == State.RUNNING && !status.get().startsWith("Reasoning")) {
                    status.set("Reasoning…");
                }
            }
            case Event.AssistantDelta d -> {
                if (state.get() == State.RUNNING && !status.get().startsWith("Answering")) {
                    status.set("Answering…");
                }
            }
            case Event.RunFailed f -> {
                failureKind = f.kind();
                failureMessage = f.message();
            }
            case Event.RunFinished f -> {
                // a run of this box ends with its result, published once the conversation is released (a prompt
                // sent on RunFinished could find it still busy); a terminal run ends here
                if (!own) {
                    finish(f.status());
                }
            }
            default -> { }
        }
    }

    private void ended(RunResult r) {
        if (r.runId().equals(activeRun)) {
            failureKind = r.failureKind();
            failureMessage = r.message();
            finish(r.status());
        }
    }

    private void finish(RunStatus s) {
        String secs = String.format("%.1f s", (System.nanoTime() - startedNanos) / 1e9);
        String run = activeRun;
        activeRun = null;
        state.set(State.IDLE);
        if (s == RunStatus.COMPLETED) {
            status.set("Answered in " + secs + " (" + turns + (turns == 1 ? " model turn" : " model turns") + ").");
        } else if (s == RunStatus.CANCELLED || s == RunStatus.STOPPED || "cancelled".equals(failureKind)) {
            status.set("Stopped after " + secs + ".");
        } else {
            String words = failureKind == null ? "the run failed" : KIND_WORDS.getOrDefault(failureKind, failureKind);
            status.set("Failed: " + words + (failureMessage == null || failureMessage.isBlank() ? "."
                    : " — " + oneLine(failureMessage)));
        }
        if ("auth_required".equals(failureKind)) {
            refreshModel();
        }
        failureKind = null;
        failureMessage = null;
    }

    /** First line, without an exception class name, at most 300 characters. */
    static String oneLine(String s) {
        if (s == null || s.isBlank()) {
            return "no detail";
        }
        String line = s.strip().lines().findFirst().orElse("");
        line = line.replaceFirst("^(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error): ", "");
        return line.length() > 300 ? line.substring(0, 299) + "…" : line;
    }

    public StringProperty textProperty() {
        return text;
    }

    /** Continue this window's conversation (on) or start a new one with the next prompt (off). */
    public BooleanProperty continueConversationProperty() {
        return continueConversation;
    }

    public ReadOnlyObjectProperty<State> stateProperty() {
        return state.getReadOnlyProperty();
    }

    /** True while a run is starting, running or stopping. */
    public BooleanBinding runningBinding() {
        return state.isNotEqualTo(State.IDLE);
    }

    public BooleanBinding canSendBinding() {
        return canSend;
    }

    public boolean available() {
        return port.available();
    }

    /** What the run is doing, or how it ended, in words. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** {@code Model: <provider>:<model>}. */
    public ReadOnlyStringProperty modelProperty() {
        return model.getReadOnlyProperty();
    }

    /** {@code credentials present|expired|missing (…)}, or why none are needed. */
    public ReadOnlyStringProperty credentialProperty() {
        return credential.getReadOnlyProperty();
    }

    /** True when the model is the ChatGPT subscription and its sign-in is missing or expired. */
    public ReadOnlyBooleanProperty signInNeededProperty() {
        return signInNeeded.getReadOnlyProperty();
    }

    /** The conversation this window continues (null before the first run). */
    public ReadOnlyStringProperty conversationProperty() {
        return conversation.getReadOnlyProperty();
    }
}
