package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A protected file written by a NodeRepl evaluation is recorded right after that evaluation,
 * attributed to its call, while the REPL keeps running (not only when the REPL exits).
 */
class ReplScanTest {
    @TempDir
    Path tmp;

    @Test
    void envWrittenByAnEvaluationIsRecordedBeforeTheReplExits() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<Event> events = new CopyOnWriteArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, events::add, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, events::add)) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run run = tools.run("run-repl-scan");
            assertEquals("1", run.call("c-r1", "NodeRepl", json("code", "1")).text());
            ToolResult w = run.call("c-r2", "NodeRepl", json("code",
                    "require('fs').writeFileSync('.env.fromrepl', 'SECRET'); 'ok'"));
            assertEquals("'ok'", w.text());
            List<Violation> vs = SandboxedToolsTest.violations(events, "c-r2");
            assertTrue(vs.stream().anyMatch(v -> v.tier() == Violation.Tier.DETECTED
                    && v.target().endsWith(".env.fromrepl")), "recorded after the evaluation: " + events);
            // the REPL is still the same process: state survives
            assertEquals("2", run.call("c-r3", "NodeRepl", json("code", "1 + 1")).text());
        }
    }
}
