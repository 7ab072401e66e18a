package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventBus;
import dev.monoagent.common.RunStatus;
import dev.monoagent.config.ConfigException;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.config.Source;
import dev.monoagent.memory.MemoryStore;
import dev.monoagent.memory.TurnObservation;
import dev.monoagent.model.FailureKind;
import dev.monoagent.model.Item;
import dev.monoagent.model.ModelClient;
import dev.monoagent.model.ModelClients;
import dev.monoagent.model.ModelRef;
import dev.monoagent.model.ToolSpec;
import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.tools.Tools;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Starts agent runs on an {@link AgentService}: one user turn each, in a new or continued conversation, on the
 * service's executor, with every event on the service's bus. This is the API the prompt box, {@code mono-agent run}
 * and the control endpoint's {@code run} op share.
 *
 * <p>A run: {@code RunStarted} (the run log opens with its header) → {@code AgentRunStarted} → {@code UserMessage} →
 * memory recall ({@code MemoryRecalled}; the block goes into the model's copy of the message only) → the loop
 * ({@link AgentLoop}) → the conversation saved under {@code .mono-agent/sessions/} → after an answer, the turn's
 * observation journaled (fsynced) → {@code RunFailed} when there was no answer → {@code RunFinished}.
 */
public final class AgentRuns {
    private static final System.Logger LOG = System.getLogger(AgentRuns.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC);

    /**
     * What to run.
     *
     * @param prompt         the user's message (required, not blank)
     * @param continueLatest continue the workspace's most recent conversation ({@code --continue})
     * @param conversationId continue this conversation (wins over {@code continueLatest}); null for none
     * @param model          a {@code <provider>:<model>} overriding {@code runtime.model} ({@code --model}); null
     */
    public record Request(String prompt, boolean continueLatest, String conversationId, String model) {
        /** A new conversation with the configured model. */
        public static Request of(String prompt) {
            return new Request(prompt, false, null, null);
        }
    }

    /** A request that cannot start (names the field: {@code prompt}, {@code --continue}, {@code --model}, …). */
    public static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public BadRequest(String message) {
            super(message);
        }
    }

    private final AgentService service;
    private final Map<String, ModelClient> clients = new ConcurrentHashMap<>();
    private final Map<String, AgentRun> active = new ConcurrentHashMap<>();
    private final Map<String, String> busyConversations = new ConcurrentHashMap<>();

    AgentRuns(AgentService service) {
        this.service = service;
    }

    /**
     * Starts a run and returns at once; its events go to {@code service.events()}.
     *
     * @throws ConfigException when the model reference or the tool lists are invalid (names the field)
     * @throws BadRequest      when the prompt is blank or the conversation to continue does not exist
     */
    public AgentRun start(Request request) throws ConfigException {
        return start(request, null);
    }

    /**
     * As {@link #start(Request)}, with {@code listener} receiving every event of this run (from its
     * {@code RunStarted} to its {@code RunFinished}, none missed) and, as the run log does, the service-wide events
     * published in between (sandbox state, self-checks), on the publishing thread.
     */
    public AgentRun start(Request request, dev.monoagent.common.EventSink listener) throws ConfigException {
        if (request.prompt() == null || request.prompt().isBlank()) {
            throw new BadRequest("prompt: the prompt is empty; say what the agent should do.");
        }
        LoadedConfig lc = service.config();
        ModelRef ref = modelRef(request.model());
        Tools.describe(lc); // invalid tool lists fail here, before anything runs
        ModelClient client = client(ref);
        Conversation conv = conversation(request);
        String runId = "run-" + ID_TIME.format(Instant.now()) + "-"
                + Integer.toHexString(0x10000 + ThreadLocalRandom.current().nextInt(0xf0000)).substring(1);
        if (busyConversations.putIfAbsent(conv.id(), runId) != null) {
            throw new BadRequest("--continue: conversation " + conv.id() + " has a run in progress ("
                    + busyConversations.get(conv.id()) + "); wait for it or stop it first.");
        }
        AgentLoop.Stop stop = new AgentLoop.Stop();
        AgentRun run = new AgentRun(runId, conv.id(), stop);
        active.put(runId, run);
        // the run's events, and (like the run log) the service-wide ones published while the run is open
        java.util.concurrent.atomic.AtomicBoolean open = new java.util.concurrent.atomic.AtomicBoolean();
        EventBus.Subscription sub = listener == null ? null : service.events().subscribe(e -> {
            String id = Event.runIdOf(e);
            if (runId.equals(id)) {
                open.compareAndSet(false, e instanceof Event.RunStarted || open.get());
                listener.accept(e);
            } else if (id == null && open.get()) {
                listener.accept(e);
            }
        });
        try {
            service.executor().submit("run-" + runId, () -> {
                RunResult result;
                try {
                    result = execute(run, conv, request.prompt(), ref, client, stop);
                } finally {
                    if (sub != null) {
                        sub.close();
                    }
                }
                run.complete(result);
                return null;
            });
        } catch (RuntimeException e) {
            active.remove(runId);
            busyConversations.remove(conv.id());
            if (sub != null) {
                sub.close();
            }
            throw e;
        }
        return run;
    }

    /** The run with this id while it runs. */
    public Optional<AgentRun> active(String runId) {
        return Optional.ofNullable(active.get(runId));
    }

    /** Pays the configured model's SDK set-up in the background, so the first prompt does not wait for it. */
    public void warmUp() {
        try {
            ModelClient c = client(modelRef(null));
            service.executor().submit("model-warm-up", () -> {
                c.warmUp();
                return null;
            });
        } catch (ConfigException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "no model to warm up: " + e.getMessage());
        }
    }

    /** Stops every running run (the service is closing). */
    void stopAll() {
        active.values().forEach(AgentRun::cancel);
        long end = System.currentTimeMillis() + 3000;
        for (AgentRun r : List.copyOf(active.values())) {
            try {
                r.result().get(Math.max(1, end - System.currentTimeMillis()),
                        java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.log(System.Logger.Level.DEBUG, "run " + r.runId() + " still ending at close");
            }
        }
    }

    private ModelRef modelRef(String override) throws ConfigException {
        LoadedConfig lc = service.config();
        java.util.Set<String> extra = lc.config().providers().keySet();
        if (override != null) {
            return ModelRef.parse(override, "--model", extra);
        }
        String configured = lc.config().runtime().model();
        String field = lc.sourceOf("runtime.model") == Source.ENV
                || lc.sourceOf("runtime.model") == Source.DOTENV ? "MONO_AGENT_MODEL" : "runtime.model";
        if (configured == null || configured.isBlank()) {
            throw new ConfigException("runtime.model", "runtime.model is not set: put e.g. "
                    + "\"runtime\": {\"model\": \"openai:gpt-5\"} in " + lc.configPath()
                    + ", export MONO_AGENT_MODEL, or pass --model.");
        }
        return ModelRef.parse(configured, field, extra);
    }

    private ModelClient client(ModelRef ref) throws ConfigException {
        ModelClient c = clients.get(ref.toString());
        if (c == null) {
            LoadedConfig lc = service.config();
            CodexAuth codex;
            try {
                codex = ref.provider().equals(CodexAuth.PROVIDER) ? CodexAuth.fromEnv(lc.env()) : null;
            } catch (dev.monoagent.model.auth.InvalidSettingException e) {
                throw new ConfigException(e.variable(), e.getMessage());
            }
            c = ModelClients.create(ref, lc, codex);
            ModelClient prev = clients.putIfAbsent(ref.toString(), c);
            c = prev != null ? prev : c;
        }
        return c;
    }

    private Conversation conversation(Request r) {
        Path ws = service.workspace();
        try {
            if (r.conversationId() != null) {
                return Conversation.load(ws, r.conversationId(), MemoryStore.sealEnv(service.config()));
            }
            if (r.continueLatest()) {
                return Conversation.latest(ws, MemoryStore.sealEnv(service.config())).orElseThrow(() -> new BadRequest(
                        "--continue: there is no earlier conversation in " + Conversation.dir(ws) + "."));
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new BadRequest("--continue: " + e.getMessage());
        }
        return Conversation.create(ws, MemoryStore.sealEnv(service.config()));
    }

    private RunResult execute(AgentRun run, Conversation conv, String prompt, ModelRef ref, ModelClient client,
                              AgentLoop.Stop stop) {
        String runId = run.runId();
        EventBus bus = service.events();
        MonoConfig cfg = service.config().config();
        Observed seen = new Observed(runId, service.workspace());
        try (EventBus.Subscription sub = bus.subscribe(seen)) {
            service.startRun(runId);
            bus.accept(new Event.AgentRunStarted(Instant.now(), runId, conv.id(), conv.hasTurns(), client.provider(),
                    ref.model(), cfg.agent().maxTurns()));
            bus.accept(new Event.UserMessage(Instant.now(), runId, prompt));
            AgentLoop.Outcome outcome;
            List<Item> items = conv.items();
            int userAt = items.size();
            try {
                Tools tools = service.tools();
                String modelText = recall(runId, prompt);
                items.add(new Item.UserText(modelText));
                List<Tools.Spec> specs = tools.list();
                String instructions = SystemPrompt.build(service.workspace(), service.config().trust().instructions(),
                        service.sandboxStatus(),
                        service.policy(), specs);
                ContextWindow window = new ContextWindow(
                        (long) cfg.context().maxTokens() - cfg.context().reserveTokens(),
                        service.workspace().resolve(".mono-agent").resolve("artifacts").resolve("tool-output")
                                .resolve(runId.replaceAll("[^A-Za-z0-9._-]", "_")));
                AgentLoop.Setup setup = new AgentLoop.Setup(client, client.provider(), ref.model(), instructions,
                        specs.stream().map(s -> new ToolSpec(s.name(), s.description(), s.schema())).toList(),
                        cfg.agent().maxTurns(), window, conv.id());
                outcome = new AgentLoop(setup, bus, service.executor(), tools.run(runId), runId, stop).run(items);
            } catch (ConfigException e) {
                outcome = new AgentLoop.Outcome.Failure(null, e.getMessage());
            }
            stop.awaitIdle(2000);
            // history keeps the user's words; the recall block was for this request only
            if (items.size() > userAt) {
                items.set(userAt, new Item.UserText(prompt));
                conv.save(runId);
            }
            return finish(runId, conv.id(), prompt, outcome, seen);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "run " + runId + " failed", e);
            bus.accept(new Event.RunFailed(Instant.now(), runId, "internal_error", String.valueOf(e)));
            service.finishRun(runId, RunStatus.FAILED);
            return new RunResult(runId, conv.id(), RunStatus.FAILED, null, "internal_error", String.valueOf(e));
        } finally {
            active.remove(runId);
            busyConversations.remove(conv.id());
        }
    }

    private RunResult finish(String runId, String convId, String prompt, AgentLoop.Outcome outcome, Observed seen) {
        EventBus bus = service.events();
        switch (outcome) {
            case AgentLoop.Outcome.Answer a -> {
                journal(runId, new TurnObservation(prompt, a.text(), seen.tools, seen.files, seen.violations));
                service.finishRun(runId, RunStatus.COMPLETED);
                return new RunResult(runId, convId, RunStatus.COMPLETED, a.text(), null, null);
            }
            case AgentLoop.Outcome.Failure f -> {
                String kind = f.kind() == null ? "invalid_tool_policy" : f.kind().wire();
                bus.accept(new Event.RunFailed(Instant.now(), runId, kind, f.message()));
                RunStatus status = f.kind() == FailureKind.CANCELLED ? RunStatus.CANCELLED : RunStatus.FAILED;
                service.finishRun(runId, status);
                return new RunResult(runId, convId, status, null, kind, f.message());
            }
        }
    }

    /** Memory's recall for the turn: the model's copy of the user message (with the block), or the prompt as is. */
    private String recall(String runId, String prompt) {
        MemoryStore m = service.memory();
        String problem = m == null ? service.memoryProblem() : null;
        if (m != null) {
            try {
                return m.beforeTurn(runId, prompt, service.events()).message();
            } catch (IOException | RuntimeException e) {
                problem = e.getMessage();
            }
        }
        service.events().accept(new Event.MemoryRecalled(Instant.now(), runId, 0, 0, "unavailable",
                problem == null ? "memory could not be opened" : problem, List.of()));
        return prompt;
    }

    /** Journals the completed turn (fsynced before the run reports done). */
    private void journal(String runId, TurnObservation obs) {
        MemoryStore m = service.memory();
        if (m == null) {
            return;
        }
        try {
            m.afterTurn(obs);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "run " + runId + ": journal entry not written: " + e.getMessage());
        }
    }

    /** What a run touched, for its journal observation: tools called, workspace files named, violations. */
    private static final class Observed implements dev.monoagent.common.EventSink {
        final List<String> tools = new CopyOnWriteArrayList<>();
        final List<String> files = new CopyOnWriteArrayList<>();
        final List<String> violations = new CopyOnWriteArrayList<>();
        private final String runId;
        private final Path workspace;

        Observed(String runId, Path workspace) {
            this.runId = runId;
            this.workspace = workspace;
        }

        @Override
        public void accept(Event e) {
            if (!runId.equals(Event.runIdOf(e))) {
                return;
            }
            if (e instanceof Event.ToolCallStarted s) {
                tools.add(s.tool());
                String f = fileArg(s.argsJson());
                if (f != null && !files.contains(f)) {
                    files.add(f);
                }
            } else if (e instanceof Event.ViolationObserved v) {
                violations.add(v.violation().kind().name().toLowerCase(java.util.Locale.ROOT) + " "
                        + v.violation().target() + " denied (" + v.violation().tool() + ")");
            }
        }

        private String fileArg(String args) {
            try {
                JsonNode n = JSON.readTree(args == null ? "{}" : args);
                String p = n.path("file_path").asText(null);
                if (p == null) {
                    return null;
                }
                Path abs = workspace.resolve(p).normalize();
                return abs.startsWith(workspace) ? workspace.relativize(abs).toString() : p;
            } catch (IOException | RuntimeException ex) {
                return null;
            }
        }
    }

    /** For tests: the ids of runs in progress. */
    List<String> activeIds() {
        return new ArrayList<>(active.keySet());
    }
}
