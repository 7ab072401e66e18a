package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every way we know to make an in-process file tool write what the sandbox would refuse. */
class FileToolsAdversarialTest {
    static final byte[] SECRET = "API_KEY=s3cret\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path root;
    Path ws;
    Path outside;
    Fixture fx;

    @BeforeEach
    void setUp() throws Exception {
        root = root.toRealPath();
        ws = Files.createDirectory(root.resolve("ws"));
        outside = Files.createDirectory(root.resolve("outside"));
        Files.write(ws.resolve(".env"), SECRET);
        Files.write(outside.resolve("victim.txt"), SECRET);
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.write(ws.resolve(".git/config"), SECRET);
        Files.createDirectories(ws.resolve(".mono-agent"));
        fx = new Fixture(ws, SandboxPort.UNAVAILABLE);
    }

    private void assertDenied(String tool, String argsJson) throws Exception {
        int before = fx.violations().size();
        ToolResult r = fx.call(tool, argsJson);
        var f = assertInstanceOf(ToolResult.Failed.class, r, r.text());
        assertEquals("denied_by_policy", f.code().wire(), r.text());
        List<Violation> v = fx.violations();
        assertEquals(before + 1, v.size(), "one violation per refusal");
        Violation last = v.get(v.size() - 1);
        assertEquals(Violation.Kind.WRITE, last.kind());
        assertEquals(Violation.Tier.OBSERVED, last.tier());
        assertEquals("run-1", last.runId());
        assertTrue(last.callId().startsWith("call-"));
        assertEquals(tool, last.tool());
        assertHostUntouched();
    }

    private void assertHostUntouched() throws Exception {
        assertArrayEquals(SECRET, Files.readAllBytes(ws.resolve(".env")));
        assertArrayEquals(SECRET, Files.readAllBytes(ws.resolve(".git/config")));
        assertArrayEquals(SECRET, Files.readAllBytes(outside.resolve("victim.txt")));
        try (var s = Files.list(ws.resolve(".git/hooks"))) {
            assertEquals(0, s.count());
        }
        try (var s = Files.list(ws.resolve(".mono-agent"))) {
            assertEquals(0, s.count());
        }
    }

    private void writeAndEditDenied(String path) throws Exception {
        assertDenied("Write", json("file_path", path, "content", "pwned"));
        assertDenied("Edit", json("file_path", path, "old_string", "API_KEY", "new_string", "pwned"));
    }

    @ParameterizedTest
    @ValueSource(strings = {".env", "./.env", "sub/../.env", ".git/config", ".git/hooks/pre-commit",
            ".mono-agent/x", ".mono-agent/artifacts/y", "../outside/victim.txt", "../outside/new.txt", "/etc/hosts-x"})
    void directProtectedAndOutsidePathsAreRefused(String path) throws Exception {
        writeAndEditDenied(path);
    }

    @Test
    void newNamesMatchingProtectedGlobsAreRefused() throws Exception {
        assertDenied("Write", json("file_path", ".env.local", "content", "x"));
        assertDenied("Write", json("file_path", "nested/dir/.env.production", "content", "x"));
        assertDenied("Write", json("file_path", "nested/.env", "content", "x"));
        assertFalse(Files.exists(ws.resolve(".env.local")));
        assertFalse(Files.exists(ws.resolve("nested")));
    }

    @Test
    void absolutePathToProtectedFileIsRefused() throws Exception {
        writeAndEditDenied(ws.resolve(".env").toString());
    }

    @Test
    void symlinkToEnvIsRefused() throws Exception {
        Files.createSymbolicLink(ws.resolve("innocent.txt"), ws.resolve(".env"));
        writeAndEditDenied("innocent.txt");
        Files.createSymbolicLink(ws.resolve("rel.txt"), Path.of(".env"));
        writeAndEditDenied("rel.txt");
    }

    @Test
    void symlinkOutsideRootIsRefused() throws Exception {
        Files.createSymbolicLink(ws.resolve("out.txt"), outside.resolve("victim.txt"));
        writeAndEditDenied("out.txt");
        Files.createSymbolicLink(ws.resolve("outdir"), outside);
        assertDenied("Write", json("file_path", "outdir/new.txt", "content", "x"));
        assertFalse(Files.exists(outside.resolve("new.txt")));
    }

    @Test
    void danglingSymlinkIsRefused() throws Exception {
        Files.createSymbolicLink(ws.resolve("dangling"), outside.resolve("not-yet.txt"));
        assertDenied("Write", json("file_path", "dangling", "content", "x"));
        assertFalse(Files.exists(outside.resolve("not-yet.txt")));
    }

    @Test
    void hardLinkToEnvIsRefused() throws Exception {
        Files.createLink(ws.resolve("hard.txt"), ws.resolve(".env"));
        writeAndEditDenied("hard.txt");
    }

    @Test
    void hardLinkToOutsideFileIsRefused() throws Exception {
        Files.createLink(ws.resolve("hard-out.txt"), outside.resolve("victim.txt"));
        writeAndEditDenied("hard-out.txt");
    }

    @Test
    void hardLinkWithinWorkspaceIsAllowed() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "x");
        Files.createLink(ws.resolve("b.txt"), ws.resolve("a.txt"));
        assertInstanceOf(ToolResult.Ok.class, fx.call("Write", json("file_path", "b.txt", "content", "y")));
    }

    @Test
    void protectedDirViaSymlinkedParentIsRefused() throws Exception {
        Files.createSymbolicLink(ws.resolve("hooks"), ws.resolve(".git/hooks"));
        assertDenied("Write", json("file_path", "hooks/pre-commit", "content", "#!/bin/sh\n"));
        Files.createSymbolicLink(ws.resolve("g"), ws.resolve(".git"));
        assertDenied("Write", json("file_path", "g/config", "content", "x"));
        assertDenied("Write", json("file_path", "g/hooks/post-checkout", "content", "x"));
        Files.createSymbolicLink(ws.resolve("state"), ws.resolve(".mono-agent"));
        assertDenied("Write", json("file_path", "state/runs.json", "content", "x"));
    }

    @Test
    void readOutsideRootsIsRefusedWithReadViolation() throws Exception {
        ToolResult r = fx.call("Read", json("file_path", outside.resolve("victim.txt").toString()));
        assertEquals("denied_by_policy", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
        Files.createSymbolicLink(ws.resolve("peek.txt"), outside.resolve("victim.txt"));
        r = fx.call("Read", json("file_path", "peek.txt"));
        assertEquals("denied_by_policy", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
        assertEquals(Violation.Kind.READ, fx.violations().get(0).kind());
    }

    @ParameterizedTest
    @ValueSource(strings = {".bashrc", "sub/.profile", ".gitmodules", ".vscode/settings.json", ".idea/x.xml",
            ".claude/commands/evil.md", "pkg/.claude/agents/a.md", ".mcp.json"})
    void engineBuiltinProtectedNamesAreRefusedLikeInTheSandbox(String path) throws Exception {
        assertDenied("Write", json("file_path", path, "content", "x"));
        assertFalse(Files.exists(ws.resolve(path)));
    }

    @Test
    void runContinuesAfterRefusals() throws Exception {
        assertDenied("Write", json("file_path", ".env", "content", "x"));
        assertInstanceOf(ToolResult.Ok.class, fx.call("Write", json("file_path", "ok.txt", "content", "fine")));
        assertEquals("fine", Files.readString(ws.resolve("ok.txt")));
    }
}
