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
 * Host git takes a directory holding {@code HEAD} with {@code objects} and {@code refs} (or a {@code commondir}) for a
 * repository and obeys its {@code config} ({@code core.fsmonitor} runs on the reviewer's next {@code git status}). A
 * command that lays one out is stopped by the watch; Write and Edit must not lay one out file by file, nor write
 * into one the repository shipped (a test fixture {@code fixtures/repo.git}).
 */
class RepositoryLayoutWriteTest {
    @TempDir
    Path tmp;

    private ToolOrchestrator tools(Path ws) {
        Policy policy = new Policy(ws, Enums.SandboxMode.NATIVE, Enums.Fallback.FAIL_CLOSED, false, List.of(ws),
                List.of(ws), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, List.of(ws.resolve(".mono-agent")), List.of(),
                Enums.NetworkMode.NONE, List.of());
        return new ToolOrchestrator(new ToolRegistry(ToolPolicy.ALL, BuiltinTools.all()), ws, policy,
                SandboxPort.UNAVAILABLE, e -> { }, ws.resolve(".mono-agent/artifacts"));
    }

    @Test
    void writeCannotCompleteARepositoryLayout() throws Exception {
        Path ws = Files.createDirectory(tmp.toRealPath().resolve("ws"));
        ToolOrchestrator t = tools(ws);
        RunScope scope = new RunScope("run-1");
        String fsmonitor = "[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch " + tmp + "/PWN\n";
        // the pieces that do not make a repository yet are ordinary files
        assertInstanceOf(ToolResult.Ok.class, t.call(scope, "c1", "Write",
                Fixture.json("file_path", "docs/objects/info/keep", "content", "")));
        assertInstanceOf(ToolResult.Ok.class, t.call(scope, "c2", "Write",
                Fixture.json("file_path", "docs/refs/heads/keep", "content", "")));
        assertInstanceOf(ToolResult.Ok.class, t.call(scope, "c3", "Write",
                Fixture.json("file_path", "docs/config", "content", fsmonitor)));
        ToolResult head = t.call(scope, "c4", "Write", Fixture.json("file_path", "docs/HEAD", "content",
                "ref: refs/heads/main\n"));
        assertInstanceOf(ToolResult.Failed.class, head, head.text());
        assertFalse(Files.exists(ws.resolve("docs/HEAD")), "the layout was completed");
        // HEAD first, then the rest: the last piece is refused
        assertInstanceOf(ToolResult.Ok.class, t.call(scope, "c5", "Write",
                Fixture.json("file_path", "other/HEAD", "content", "ref: refs/heads/main\n")));
        assertInstanceOf(ToolResult.Ok.class, t.call(scope, "c6", "Write",
                Fixture.json("file_path", "other/objects/keep", "content", "")));
        ToolResult refs = t.call(scope, "c7", "Write", Fixture.json("file_path", "other/refs/keep", "content", ""));
        assertInstanceOf(ToolResult.Failed.class, refs, refs.text());
        ToolResult commondir = t.call(scope, "c8", "Write", Fixture.json("file_path", "other/commondir",
                "content", "../x\n"));
        assertInstanceOf(ToolResult.Failed.class, commondir, commondir.text());
    }

    @Test
    void editCannotChangeAShippedBareRepository() throws Exception {
        Path ws = Files.createDirectory(tmp.toRealPath().resolve("ws"));
        Path repo = Files.createDirectories(ws.resolve("fixtures/repo.git"));
        Files.createDirectories(repo.resolve("objects"));
        Files.createDirectories(repo.resolve("refs/heads"));
        Files.writeString(repo.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(repo.resolve("config"), "[core]\n\tbare = true\n");
        ToolOrchestrator t = tools(ws);
        ToolResult e = t.call(new RunScope("run-1"), "c1", "Edit", Fixture.json("file_path",
                "fixtures/repo.git/config", "old_string", "bare = true", "new_string",
                "bare = false\n\tworktree = .\n\tfsmonitor = touch PWN"));
        assertInstanceOf(ToolResult.Failed.class, e, e.text());
        ToolResult h = t.call(new RunScope("run-1"), "c2", "Write", Fixture.json("file_path",
                "fixtures/repo.git/hooks/pre-commit", "content", "touch PWN\n"));
        assertInstanceOf(ToolResult.Failed.class, h, h.text());
        assertEquals("[core]\n\tbare = true\n", Files.readString(repo.resolve("config")));
        assertFalse(Files.exists(repo.resolve("hooks/pre-commit")));
    }
}
