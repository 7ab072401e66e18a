package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.monoagent.config.Enums;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.sandbox.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root named inside the workspace that did not exist when the policy was made: the agent makes a link of that name
 * to a folder outside (here, the reviewer's config dir) during the run. The file tools must not follow it there.
 */
class RootBecameLinkTest {
    @TempDir
    Path tmp;

    @Test
    void theFileToolsNeverFollowANewLinkAtARootsNameOutOfTheWorkspace() throws Exception {
        Path ws = Files.createDirectory(tmp.toRealPath().resolve("ws"));
        Path outside = Files.createDirectory(tmp.toRealPath().resolve("reviewer-config"));
        Files.writeString(outside.resolve("config.json"), "{}\n");
        Files.writeString(outside.resolve("seal.key"), "KEY\n");
        Files.createDirectories(ws.resolve(".mono-agent"));
        Path later = ws.resolve("later");
        Policy policy = new Policy(ws, Enums.SandboxMode.NATIVE, Enums.Fallback.FAIL_CLOSED, false,
                List.of(ws, later), List.of(ws, later), MonoConfig.Sandbox.DEFAULT_DENY_WRITE,
                List.of(ws.resolve(".mono-agent")), List.of(), Enums.NetworkMode.NONE, List.of());
        ToolRegistry reg = new ToolRegistry(ToolPolicy.ALL, BuiltinTools.all());
        ToolOrchestrator tools = new ToolOrchestrator(reg, ws, policy, SandboxPort.UNAVAILABLE, e -> { },
                ws.resolve(".mono-agent/artifacts"));
        Files.createSymbolicLink(later, outside); // what the agent's command did mid-run
        RunScope scope = new RunScope("run-1");
        ToolResult w = tools.call(scope, "c1", "Write", Fixture.json("file_path", "later/config.json",
                "content", "{\"sandbox\":{\"mode\":\"off\"}}"));
        assertInstanceOf(ToolResult.Failed.class, w, w.text());
        ToolResult e = tools.call(scope, "c2", "Edit", Fixture.json("file_path", "later/config.json",
                "old_string", "{}", "new_string", "{\"sandbox\":{\"mode\":\"off\"}}"));
        assertInstanceOf(ToolResult.Failed.class, e, e.text());
        ToolResult r = tools.call(scope, "c3", "Read", Fixture.json("file_path", "later/seal.key"));
        assertFalse(r.text().contains("KEY"), r.text());
        ToolResult g = tools.call(scope, "c4", "Grep", Fixture.json("pattern", "KEY", "path", "later"));
        assertFalse(g.text().contains("KEY\n") || g.text().contains("seal.key:"), g.text());
        assertEquals("{}\n", Files.readString(outside.resolve("config.json")), "the reviewer's config unchanged");
    }
}
