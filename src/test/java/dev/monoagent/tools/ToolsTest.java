package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolsTest {
    @TempDir
    Path tmp;

    private LoadedConfig cfg(List<String> allowed, List<String> denied) {
        MonoConfig c = MonoConfig.DEFAULTS;
        c = new MonoConfig(c.agent(), c.runtime(), c.providers(), c.context(), new MonoConfig.Tools(allowed, denied),
                c.sandbox(), c.memory(), c.processJobs(), c.monitors());
        return new LoadedConfig(tmp.resolve("mono-agent.config.json"), false, tmp, c, Map.of(), List.of(), Map.of());
    }

    @Test
    void listsOfferedToolsWithSchemas() throws Exception {
        Path ws = Fixture.real(tmp);
        try (Tools tools = Tools.open(cfg(List.of("*"), List.of("Exec")), Fixture.policy(ws), null, e -> { })) {
            List<String> names = tools.list().stream().map(Tools.Spec::name).toList();
            assertEquals(List.of("Read", "Write", "Edit", "Glob", "Grep", "Bash", "NodeRepl"), names);
            Tools.Spec read = tools.list().get(0);
            assertEquals("object", read.schema().get("type").asText());
            assertEquals("file_path", read.schema().get("required").get(0).asText());
            assertEquals("All tools allowed (except: Exec).", tools.policy().summary());
        }
    }

    @Test
    void invalidToolListsFailToOpen() {
        Path ws = Fixture.real(tmp);
        ConfigException e = assertThrows(ConfigException.class,
                () -> Tools.open(cfg(List.of("Bash"), List.of("Bash")), Fixture.policy(ws), null, x -> { }));
        assertTrue(e.getMessage().contains("Tools cannot be both allowed and disallowed."));
    }

    @Test
    void callsRunInRunsAndDisallowedToolsAreRefused() throws Exception {
        Path ws = Fixture.real(tmp);
        Files.writeString(ws.resolve("a.txt"), "x\n");
        try (Tools tools = Tools.open(cfg(List.of("Read"), List.of()), Fixture.policy(ws), null, e -> { })) {
            assertEquals("     1\tx\n", tools.call("Read", "{\"file_path\":\"a.txt\"}", "r1").text());
            assertEquals("tool_not_allowed", tools.call("Write", "{\"file_path\":\"b\",\"content\":\"\"}", "r1")
                    .outcome().wire());
            tools.endRun("r1");
        }
    }

    @Test
    void anUnexpectedExceptionBecomesFailedAndTheFinishedEventStillFires() {
        Path ws = Fixture.real(tmp);
        Tool boom = new Tool() {
            @Override
            public String name() {
                return "Remember";
            }

            @Override
            public String description() {
                return "throws";
            }

            @Override
            public com.fasterxml.jackson.databind.JsonNode schema() {
                return Args.schema().build();
            }

            @Override
            public ToolResult call(com.fasterxml.jackson.databind.JsonNode args, ToolContext ctx) {
                throw new IllegalStateException("bug");
            }
        };
        List<dev.monoagent.common.Event> events = new java.util.ArrayList<>();
        var orch = new ToolOrchestrator(new ToolRegistry(ToolPolicy.ALL, List.of(boom)), ws, Fixture.policy(ws),
                null, events::add, null);
        ToolResult r = orch.call(new RunScope("r"), "c1", "Remember", "{}");
        assertEquals("failed", r.outcome().wire());
        assertTrue(r.text().contains("bug"));
        var fin = (dev.monoagent.common.Event.ToolCallFinished) events.get(1);
        assertEquals("failed", fin.outcome().wire());
    }
}
