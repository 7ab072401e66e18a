package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.sandbox.CommandSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bash/Exec argument handling and result rendering over a host-process port (the port is the seam; enforcement is
 * tested against the real engine in SandboxedToolsTest), and the fail-closed path over the unavailable port.
 */
class CommandToolsTest {
    @TempDir
    Path tmp;

    @Test
    void bashRunsWithNoProfileNoRcAndEmptyBashEnv() {
        HostProcessPort port = new HostProcessPort();
        Fixture f = new Fixture(tmp, port);
        var r = assertInstanceOf(ToolResult.Ok.class, f.call("Bash", json("command", "echo hi; echo err >&2")));
        assertEquals("hi\nerr\nExit code: 0", r.text());
        CommandSpec spec = port.specs.get(0);
        assertEquals(List.of("/bin/bash", "--noprofile", "--norc", "-c", "echo hi; echo err >&2"), spec.argv());
        assertEquals(Map.of("BASH_ENV", "/dev/null", "ENV", "/dev/null"), spec.extraEnv());
        assertEquals("run-1", spec.runId());
        assertEquals("call-1", spec.callId());
        assertEquals("Bash", spec.tool());
        assertEquals(f.ws, spec.workdir());
    }

    @Test
    void nonzeroExitIsOkWithTheExitCode() {
        Fixture f = new Fixture(tmp, new HostProcessPort());
        var r = assertInstanceOf(ToolResult.Ok.class, f.call("Bash", json("command", "exit 3")));
        assertEquals("(no output)\nExit code: 3", r.text());
        assertEquals(3, r.data().get("exitCode").asInt());
    }

    @Test
    void timeoutIsReported() {
        Fixture f = new Fixture(tmp, new HostProcessPort());
        var r = assertInstanceOf(ToolResult.Failed.class, f.call("Bash", json("command", "sleep 5", "timeout_ms", 300)));
        assertEquals("timeout", r.code().wire());
        assertTrue(r.text().contains("timed out after 300 ms"));
    }

    @Test
    void workdirMustBeAnExistingDirectoryInsideTheRoots() throws Exception {
        HostProcessPort port = new HostProcessPort();
        Fixture f = new Fixture(tmp, port);
        Files.createDirectories(tmp.resolve("sub"));
        var r = assertInstanceOf(ToolResult.Ok.class, f.call("Bash", json("command", "pwd", "workdir", "sub")));
        assertTrue(r.text().startsWith(f.ws.resolve("sub") + "\n"));
        assertEquals("denied_by_policy", ((ToolResult.Failed) f.call("Bash", json("command", "pwd", "workdir", "/etc")))
                .code().wire());
        assertEquals("not_found", ((ToolResult.Failed) f.call("Bash", json("command", "pwd", "workdir", "nope")))
                .code().wire());
        assertEquals("invalid_arguments", ((ToolResult.Failed) f.call("Bash", json("command", "")))
                .code().wire());
        assertEquals("invalid_arguments", ((ToolResult.Failed) f.call("Bash", json("command", "x", "timeout_ms", 0)))
                .code().wire());
        assertEquals(1, port.specs.size(), "refused calls never reach the sandbox");
    }

    @Test
    void execPassesArgvWithoutShellAndCapsChars() throws Exception {
        HostProcessPort port = new HostProcessPort();
        Fixture f = new Fixture(tmp, port);
        var r = assertInstanceOf(ToolResult.Ok.class, f.call("Exec", json("executable", "/bin/echo",
                "args", List.of("a b", "$HOME", ";", "ls"))));
        assertEquals("a b $HOME ; ls\nExit code: 0", r.text());
        var big = assertInstanceOf(ToolResult.Ok.class, f.call("Exec", json("executable", "/usr/bin/seq",
                "args", List.of("1", "100000"), "max_output_chars", 1000)));
        assertTrue(big.text().length() < 1400, big.text());
        assertTrue(big.text().startsWith("1\n2\n3\n"));
        assertTrue(big.text().contains("characters omitted"));
        Path spill = f.ws.resolve(".mono-agent/artifacts/tool-output/run-1/call-2.txt");
        assertTrue(big.text().endsWith("Full output saved to: " + spill), big.text());
        assertTrue(Files.readString(spill).contains("\n99999\n100000\nExit code: 0"));
    }

    @Test
    void resultsOver256KbKeepHeadAndTailAndSpill() throws Exception {
        Fixture f = new Fixture(tmp, new HostProcessPort());
        var r = assertInstanceOf(ToolResult.Ok.class, f.call("Bash", json("command",
                "for i in $(seq 1 60000); do echo \"line $i ünïcödé\"; done")));
        byte[] shown = r.text().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(shown.length <= OutputBound.MAX_RESULT_BYTES, "capped: " + shown.length);
        assertTrue(r.text().startsWith("line 1 ünïcödé\n"));
        Path spill = f.ws.resolve(".mono-agent/artifacts/tool-output/run-1/call-1.txt");
        assertTrue(r.text().endsWith("Full output saved to: " + spill));
        assertTrue(r.text().contains("line 60000 ünïcödé\nExit code: 0"));
        assertTrue(Files.size(spill) > OutputBound.MAX_RESULT_BYTES);
        assertTrue(!r.text().contains("\uFFFD"), "no broken UTF-8 at the cut");
    }

    @Test
    void failClosedEngineRefusesCommandsButFileToolsKeepWorking() throws Exception {
        Fixture f = new Fixture(tmp, SandboxPort.UNAVAILABLE);
        for (String[] call : List.of(new String[] {"Bash", json("command", "ls")},
                new String[] {"Exec", json("executable", "ls")}, new String[] {"NodeRepl", json("code", "1")})) {
            var r = assertInstanceOf(ToolResult.Failed.class, f.call(call[0], call[1]));
            assertEquals("sandbox_prepare_failed", r.code().wire());
            assertEquals("Error: Sandbox engine is unavailable and policy is fail-closed.", r.text());
        }
        Files.writeString(tmp.resolve("a.txt"), "needle\n");
        assertInstanceOf(ToolResult.Ok.class, f.call("Read", json("file_path", "a.txt")));
        assertInstanceOf(ToolResult.Ok.class, f.call("Glob", json("pattern", "*.txt")));
        assertEquals("Found 1 file\na.txt\n", f.call("Grep", json("pattern", "needle")).text());
    }
}
