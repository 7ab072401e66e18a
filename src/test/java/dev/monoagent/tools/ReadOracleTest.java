package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read tells nothing about what exists outside the readable roots: a workspace link to an existing
 * file outside and one to a missing file get the same refusal, as a command in the sandbox gets "No such file" for
 * both. And {@code /proc/self/cwd/…} is the workspace, as in a command — not "outside the roots".
 */
class ReadOracleTest {
    @TempDir
    Path tmp;
    private Path ws;
    private Path outside;
    private Fixture fx;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws"));
        outside = Fixture.real(Files.createDirectories(tmp.resolve("outside")));
        Files.writeString(outside.resolve("id_canary"), "CANARY-OUT\n");
        Files.createDirectories(outside.resolve("other"));
        Files.writeString(outside.resolve("other/.env"), "CANARY-OTHER\n");
        Files.writeString(ws.resolve(".env"), "WS_ENV=1\n");
        fx = new Fixture(ws, SandboxPort.UNAVAILABLE);
        ws = fx.ws;
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private String refusal(String path) {
        ToolResult r = fx.call("Read", json("file_path", path));
        ToolResult.Failed f = assertInstanceOf(ToolResult.Failed.class, r, r.text());
        assertEquals(ToolResult.DENIED_BY_POLICY, f.code(), f.text());
        // the answer without the path the agent gave
        return f.text().replace(path, "<path>").replace(ws.resolve(path).toString(), "<path>");
    }

    @Test
    void aLinkOutsideTellsNotWhetherItsTargetExists() throws Exception {
        List<String[]> pairs = List.of(
                new String[] {outside.resolve("id_canary").toString(), outside.resolve("nope").toString()},
                new String[] {outside.resolve("other").toString() + "/.env", outside.resolve("gone") + "/.env"},
                new String[] {outside.resolve("id_canary") + "/x", outside.resolve("nope") + "/x"});
        int i = 0;
        for (String[] p : pairs) {
            Files.createSymbolicLink(ws.resolve("e" + i), Path.of(p[0]));
            Files.createSymbolicLink(ws.resolve("n" + i), Path.of(p[1]));
            String exists = refusal("e" + i);
            String missing = refusal("n" + i);
            assertEquals(exists.replace("e" + i, "N"), missing.replace("n" + i, "N"),
                    "the refusal must not depend on whether " + p[0] + " exists");
            assertTrue(exists.contains("outside the readable roots"), exists);
            i++;
        }
        // a link into a dir link that dangles, and a chain of links, land outside the same way
        Files.createSymbolicLink(ws.resolve("dl"), outside.resolve("no-dir"));
        Files.createSymbolicLink(ws.resolve("chain"), ws.resolve("dl"));
        assertTrue(refusal("chain").contains("outside the readable roots"));
        assertTrue(refusal("dl/deeper/file").contains("outside the readable roots"));
        // direct paths too
        assertEquals(refusal(outside.resolve("id_canary").toString()), refusal(outside.resolve("nope").toString()));
    }

    @Test
    void procSelfCwdIsTheWorkspaceAndProcSelfRootIsTheRoot() {
        ToolResult r = fx.call("Read", json("file_path", "/proc/self/cwd/.env"));
        assertInstanceOf(ToolResult.Ok.class, r, r.text());
        assertTrue(r.text().contains("WS_ENV=1"), r.text());
        ToolResult root = fx.call("Read", json("file_path", "/proc/self/root" + ws.resolve(".env")));
        assertTrue(root.text().contains("WS_ENV=1"), root.text());
        ToolResult thread = fx.call("Read", json("file_path", "/proc/thread-self/cwd/sub/../.env"));
        assertTrue(thread.text().contains("WS_ENV=1"), thread.text());
        // ".." right after the alias is taken lexically (into /proc itself), where a command would climb out of the
        // workspace: refused, the safe direction
        assertTrue(refusal("/proc/self/cwd/../x").contains("kernel interface"));
        // an alias of a path outside is refused like the path itself, and recorded as what it names
        String out = refusal("/proc/self/root" + outside.resolve("id_canary"));
        assertTrue(out.contains("outside the readable roots"), out);
        assertTrue(fx.violations().stream().map(Violation::target)
                .anyMatch(t -> t.equals(outside.resolve("id_canary").toString())), fx.violations().toString());
        assertTrue(fx.violations().stream().noneMatch(v -> v.target().endsWith("/.env")),
                "the workspace's own .env read through an alias is no violation: " + fx.violations());
    }

    @Test
    void otherKernelPathsAreTheHostProcessesOwnAndRefused() throws Exception {
        for (String p : List.of("/proc/self/environ", "/proc/1/environ", "/proc/self/fd/0", "/dev/fd/0",
                "/sys/kernel/hostname")) {
            String why = refusal(p);
            assertTrue(why.contains("outside the readable roots") || why.contains("kernel interface"), why);
        }
        Files.createSymbolicLink(ws.resolve("env-link"), Path.of("/proc/self/environ"));
        assertTrue(refusal("env-link").contains("kernel interface"));
    }
}
