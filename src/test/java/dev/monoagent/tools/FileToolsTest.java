package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileToolsTest {
    @TempDir
    Path tmp;

    private Fixture fx() {
        return new Fixture(tmp, SandboxPort.UNAVAILABLE);
    }

    private static ToolResult.Ok ok(ToolResult r) {
        return assertInstanceOf(ToolResult.Ok.class, r, r.text());
    }

    private static void failed(String code, ToolResult r) {
        assertEquals(code, assertInstanceOf(ToolResult.Failed.class, r, r.text()).code().wire(), r.text());
    }

    @Test
    void readNumbersLinesLikeCatN() throws Exception {
        Files.writeString(tmp.resolve("a.txt"), "alpha\nbeta\ngamma\n");
        var r = ok(fx().call("Read", json("file_path", "a.txt")));
        assertEquals("     1\talpha\n     2\tbeta\n     3\tgamma\n", r.text());
        assertEquals(3, r.data().get("totalLines").asInt());
    }

    @Test
    void readHonoursOffsetAndLimit() throws Exception {
        Files.writeString(tmp.resolve("a.txt"), "1\n2\n3\n4\n5\n");
        var r = ok(fx().call("Read", json("file_path", "a.txt", "offset", 2, "limit", 2)));
        assertTrue(r.text().startsWith("     2\t2\n     3\t3\n"), r.text());
        assertTrue(r.text().contains("showing lines 2-3 of 5"));
    }

    @Test
    void readDescribesBinaryFiles() throws Exception {
        Files.write(tmp.resolve("p.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0});
        var r = ok(fx().call("Read", json("file_path", "p.png")));
        assertTrue(r.text().contains("Binary file") && r.text().contains("11 bytes")
                && r.text().contains("PNG image"), r.text());
    }

    @Test
    void readRefusesDirectoriesWithGlobHint() throws Exception {
        Files.createDirectory(tmp.resolve("d"));
        var r = fx().call("Read", json("file_path", "d"));
        failed("is_directory", r);
        assertTrue(r.text().contains("Glob"));
    }

    @Test
    void readMissingFileIsNotFound() {
        failed("not_found", fx().call("Read", json("file_path", "nope.txt")));
    }

    @Test
    void readHugeFileWithoutWindowIsTooLarge() throws Exception {
        Files.writeString(tmp.resolve("big.txt"), ("x".repeat(1500) + "\n").repeat(400));
        failed("too_large", fx().call("Read", json("file_path", "big.txt")));
        ok(fx().call("Read", json("file_path", "big.txt", "limit", 10)));
    }

    @Test
    void badArgumentsAreInvalid() {
        Fixture f = fx();
        failed("invalid_arguments", f.call("Read", json()));
        failed("invalid_arguments", f.call("Read", json("file_path", 3)));
        failed("invalid_arguments", f.call("Read", json("filepath", "a")));
        failed("invalid_arguments", f.call("Read", "{not json"));
        failed("invalid_arguments", f.call("Read", json("file_path", "a", "offset", 0)));
    }

    @Test
    void writeCreatesAndOverwritesAtomicallyKeepingPermissions() throws Exception {
        Fixture f = fx();
        var r = ok(f.call("Write", json("file_path", "sub/new.txt", "content", "hello")));
        assertTrue(r.text().startsWith("Created "));
        assertEquals("hello", Files.readString(tmp.resolve("sub/new.txt")));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("sub/new.txt"))));

        Path script = tmp.resolve("run.sh");
        Files.writeString(script, "old");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        assertTrue(ok(f.call("Write", json("file_path", "run.sh", "content", "new"))).text().startsWith("Overwrote"));
        assertEquals("new", Files.readString(script));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(script)));
        try (var s = Files.list(tmp)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".mono-write-")));
        }
    }

    @Test
    void writeToDirectoryIsRefused() throws Exception {
        Files.createDirectory(tmp.resolve("d"));
        failed("is_directory", fx().call("Write", json("file_path", "d", "content", "x")));
    }

    @Test
    void editReplacesUniqueMatch() throws Exception {
        Files.writeString(tmp.resolve("e.txt"), "one two three");
        ok(fx().call("Edit", json("file_path", "e.txt", "old_string", "two", "new_string", "2")));
        assertEquals("one 2 three", Files.readString(tmp.resolve("e.txt")));
    }

    @Test
    void editReportsMatchCounts() throws Exception {
        Files.writeString(tmp.resolve("e.txt"), "a a a");
        Fixture f = fx();
        var amb = f.call("Edit", json("file_path", "e.txt", "old_string", "a", "new_string", "b"));
        failed("ambiguous_match", amb);
        assertTrue(amb.text().contains("3 times"), amb.text());
        var none = f.call("Edit", json("file_path", "e.txt", "old_string", "zz", "new_string", "b"));
        failed("no_match", none);
        assertTrue(none.text().contains("0 matches"));
        var all = ok(f.call("Edit", json("file_path", "e.txt", "old_string", "a", "new_string", "b",
                "replace_all", true)));
        assertEquals(3, all.data().get("replacements").asInt());
        assertEquals("b b b", Files.readString(tmp.resolve("e.txt")));
    }

    @Test
    void editFailures() throws Exception {
        Fixture f = fx();
        failed("not_found", f.call("Edit", json("file_path", "x.txt", "old_string", "a", "new_string", "b")));
        Files.writeString(tmp.resolve("x.txt"), "a");
        failed("invalid_arguments", f.call("Edit", json("file_path", "x.txt", "old_string", "", "new_string", "b")));
        failed("invalid_arguments", f.call("Edit", json("file_path", "x.txt", "old_string", "a", "new_string", "a")));
        Files.createDirectory(tmp.resolve("dir"));
        failed("is_directory", f.call("Edit", json("file_path", "dir", "old_string", "a", "new_string", "b")));
    }

    @Test
    void callsEmitStartedAndFinishedEventsWithIds() throws Exception {
        Fixture f = fx();
        Files.writeString(tmp.resolve("a.txt"), "x");
        f.call("Read", json("file_path", "a.txt"));
        var started = assertInstanceOf(Event.ToolCallStarted.class, f.events.get(0));
        var finished = assertInstanceOf(Event.ToolCallFinished.class, f.events.get(1));
        assertEquals("run-1", started.runId());
        assertEquals(started.callId(), finished.callId());
        assertEquals("ok", finished.outcome().wire());
        assertEquals("Read", finished.tool());
    }

    @Test
    void unknownOrDisallowedToolIsToolNotAllowed() {
        Fixture f = fx();
        var r = f.call("Reed", json("file_path", "a"));
        failed("tool_not_allowed", r);
        assertTrue(r.text().contains("did you mean \"Read\""));
        ToolPolicy readOnly = ((ToolPolicy.Result.Valid) ToolPolicy.of(new dev.monoagent.config.MonoConfig.Tools(
                java.util.List.of("Read"), java.util.List.of()))).policy();
        var orch = new ToolOrchestrator(new ToolRegistry(readOnly, BuiltinTools.all()), f.ws, f.policy,
                SandboxPort.UNAVAILABLE, e -> { }, null);
        failed("tool_not_allowed", orch.call(new RunScope("r"), "c", "Write", json("file_path", "a", "content", "")));
    }

    @Test
    void specialFilesAndFileAsDirectoryAreInvalidNotHangs() throws Exception {
        Path fifo = tmp.resolve("pipe");
        new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor();
        Fixture f = fx();
        failed("invalid_arguments", f.call("Read", json("file_path", "pipe")));
        failed("invalid_arguments", f.call("Edit", json("file_path", "pipe", "old_string", "a", "new_string", "b")));
        failed("invalid_arguments", f.call("Write", json("file_path", "pipe", "content", "x")));
        Files.writeString(tmp.resolve("file"), "x");
        failed("invalid_arguments", f.call("Write", json("file_path", "file/child.txt", "content", "x")));
        failed("not_found", f.call("Read", json("file_path", "file/child.txt")));
        assertTrue(f.violations().isEmpty(), "not policy refusals");
    }
}
