package dev.monoagent.ui.port;

import dev.monoagent.agent.AgentRun;
import dev.monoagent.agent.AgentRuns;
import dev.monoagent.agent.AgentService;
import dev.monoagent.agent.ModelStatus;

/**
 * The prompt box's {@link AgentPort} over the workspace's {@link AgentService}: the same {@code AgentRuns} that
 * {@code mono-agent run} and the control endpoint use, so a run started in a terminal can be stopped here too.
 */
public final class ServiceAgent implements AgentPort {
    private final AgentService service;

    public ServiceAgent(AgentService service) {
        this.service = service;
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public ModelStatus modelStatus() {
        return ModelStatus.of(service.config());
    }

    @Override
    public Started start(String prompt, String conversationId) throws Exception {
        AgentRun run = service.agent().start(new AgentRuns.Request(prompt, false, conversationId, null));
        return new Started(run.runId(), run.conversationId(), run.result());
    }

    @Override
    public void cancel(String runId) {
        service.agent().active(runId).ifPresent(AgentRun::cancel);
    }

    @Override
    public java.util.List<dev.monoagent.agent.Conversation.Summary> conversations() throws Exception {
        return dev.monoagent.agent.Conversation.list(service.config().workspace(),
                dev.monoagent.memory.MemoryStore.sealEnv(service.config()));
    }

    @Override
    public java.util.List<dev.monoagent.model.Item> conversation(String id) throws Exception {
        return java.util.List.copyOf(dev.monoagent.agent.Conversation.load(service.config().workspace(), id,
                dev.monoagent.memory.MemoryStore.sealEnv(service.config())).items());
    }

    @Override
    public void warmUp() {
        service.agent().warmUp();
    }
}
