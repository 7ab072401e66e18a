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

    /**
     * A root outside the workspace that did not exist when the policy was made, below a second writable root, and one
     * spelled through an alias of the workspace: the agent links both to the reviewer's config dir mid-run.
     */
    @Test
    void aRootOutsideTheWorkspaceOrSpelledThroughAnAliasIsPinnedWhereItLed() throws Exception {
        Path ws = Files.createDirectory(tmp.toRealPath().resolve("ws"));
        Path other = Files.createDirectory(tmp.toRealPath().resolve("other"));
        Path alias = Files.createSymbolicLink(tmp.toRealPath().resolve("alias"), ws);
        Path outside = Files.createDirectory(tmp.toRealPath().resolve("reviewer-config"));
        Files.writeString(outside.resolve("config.json"), "{}\n");
        Files.writeString(outside.resolve("seal.key"), "KEY\n");
        Files.createDirectories(ws.resolve(".mono-agent"));
        Path sub = other.resolve("sub");
        Path aliased = alias.resolve("later");
        Policy policy = new Policy(ws, Enums.SandboxMode.NATIVE, Enums.Fallback.FAIL_CLOSED, false,
                List.of(ws, other, sub, aliased), List.of(ws, other, sub, aliased),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, List.of(ws.resolve(".mono-agent")), List.of(),
                Enums.NetworkMode.NONE, List.of());
        ToolRegistry reg = new ToolRegistry(ToolPolicy.ALL, BuiltinTools.all());
        ToolOrchestrator tools = new ToolOrchestrator(reg, ws, policy, SandboxPort.UNAVAILABLE, e -> { },
                ws.resolve(".mono-agent/artifacts"));
        Files.createSymbolicLink(sub, outside); // what the agent's commands did mid-run
        Files.createSymbolicLink(ws.resolve("later"), outside);
        RunScope scope = new RunScope("run-1");
        int n = 0;
        for (String dir : List.of(sub.toString(), aliased.toString())) {
            ToolResult w = tools.call(scope, "w" + n, "Write", Fixture.json("file_path", dir + "/config.json",
                    "content", "{\"sandbox\":{\"mode\":\"off\"}}"));
            assertInstanceOf(ToolResult.Failed.class, w, w.text());
            ToolResult e = tools.call(scope, "e" + n, "Edit", Fixture.json("file_path", dir + "/config.json",
                    "old_string", "{}", "new_string", "{\"sandbox\":{\"mode\":\"off\"}}"));
            assertInstanceOf(ToolResult.Failed.class, e, e.text());
            ToolResult r = tools.call(scope, "r" + n, "Read", Fixture.json("file_path", dir + "/seal.key"));
            assertFalse(r.text().contains("KEY"), r.text());
            ToolResult g = tools.call(scope, "g" + n, "Grep", Fixture.json("pattern", "KEY", "path", dir));
            assertFalse(g.text().contains("KEY\n") || g.text().contains("seal.key:"), g.text());
            ToolResult g2 = tools.call(scope, "h" + n, "Grep", Fixture.json("pattern", "KEY", "path", "/",
                    "output_mode", "files_with_matches"));
            assertFalse(g2.text().contains("seal.key"), g2.text());
            n++;
        }
        assertEquals("{}\n", Files.readString(outside.resolve("config.json")), "the reviewer's config unchanged");
    }
}
