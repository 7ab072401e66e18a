package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchToolsTest {
    @TempDir
    Path tmp;
    Fixture fx;

    @BeforeEach
    void tree() throws Exception {
        write("src/App.java", "class App {\n  // TODO one\n}\n");
        write("src/util/Util.java", "class Util {\n  int todo = 1;\n  // TODO two\n}\n");
        write("web/app.ts", "const x = 1;\n");
        write("notes.md", "line1\nline2\nneedle here\nline4\nline5\nline6\nneedle again\n");
        write("build/out.java", "class Out { // TODO generated }\n");
        write(".gitignore", "build/\n");
        write(".git/config", "[core] TODO\n");
        write(".mono-agent/artifacts/x.txt", "TODO state\n");
        write(".hidden/h.java", "// TODO hidden\n");
        fx = new Fixture(tmp, SandboxPort.UNAVAILABLE);
    }

    private void write(String rel, String text) throws Exception {
        Path p = tmp.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    private String ok(ToolResult r) {
        return assertInstanceOf(ToolResult.Ok.class, r, r.text()).text();
    }

    @Test
    void globMatchesAtAnyDepthSkippingIgnoredAndGit() {
        String t = ok(fx.call("Glob", json("pattern", "*.java")));
        assertTrue(t.contains("src/App.java") && t.contains("src/util/Util.java") && t.contains(".hidden/h.java"), t);
        assertFalse(t.contains("build/"), t);
        assertFalse(t.contains(".mono-agent"), t);
    }

    @Test
    void globAnchoredPatternAndPathArgument() {
        String t = ok(fx.call("Glob", json("pattern", "src/**/*.java")));
        assertEquals("src/App.java\nsrc/util/Util.java\n", sortLines(t));
        String u = ok(fx.call("Glob", json("pattern", "*.java", "path", "src/util")));
        assertEquals("src/util/Util.java\n", u);
    }

    @Test
    void globIsNewestFirstAndHonoursHeadLimit() throws Exception {
        Files.setLastModifiedTime(tmp.resolve("src/App.java"), FileTime.fromMillis(2_000_000_000_000L));
        String t = ok(fx.call("Glob", json("pattern", "src/**/*.java", "head_limit", 1)));
        assertTrue(t.startsWith("src/App.java\n(1 of 2 files shown"), t);
    }

    @Test
    void globNoMatchAndMissingPath() {
        assertTrue(ok(fx.call("Glob", json("pattern", "*.rs"))).startsWith("No files matched"));
        var r = fx.call("Glob", json("pattern", "*", "path", "nope"));
        assertEquals("not_found", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
        assertEquals("invalid_arguments", ((ToolResult.Failed) fx.call("Glob", json())).code().wire());
    }

    @Test
    void searchOutsideRootsIsDenied() {
        var r = fx.call("Grep", json("pattern", "root", "path", "/etc"));
        assertEquals("denied_by_policy", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
        r = fx.call("Glob", json("pattern", "*", "path", "../"));
        assertEquals("denied_by_policy", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
    }

    @Test
    void symlinkedDirectoryOutsideIsNotWalked() throws Exception {
        Path outside = Files.createTempDirectory("outside");
        Files.writeString(outside.resolve("secret.java"), "TODO outside\n");
        Files.createSymbolicLink(tmp.resolve("link"), outside);
        String t = ok(fx.call("Grep", json("pattern", "TODO")));
        assertFalse(t.contains("secret.java"), t);
        var r = fx.call("Grep", json("pattern", "TODO", "path", "link"));
        assertEquals("denied_by_policy", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
    }

    @Test
    void grepFilesWithMatchesIsDefaultAndSorted() {
        String t = ok(fx.call("Grep", json("pattern", "TODO")));
        assertEquals("Found 3 files\n.hidden/h.java\nsrc/App.java\nsrc/util/Util.java\n", t);
    }

    @Test
    void grepCaseInsensitiveAndGlobFilter() {
        String t = ok(fx.call("Grep", json("pattern", "todo", "-i", true, "glob", "src/util/*")));
        assertEquals("Found 1 file\nsrc/util/Util.java\n", t);
    }

    @Test
    void grepContentWithContext() {
        String t = ok(fx.call("Grep", json("pattern", "needle", "output_mode", "content", "-B", 1, "-A", 1)));
        assertEquals("notes.md-2-line2\nnotes.md:3:needle here\nnotes.md-4-line4\n--\n"
                + "notes.md-6-line6\nnotes.md:7:needle again\n", t);
        String c = ok(fx.call("Grep", json("pattern", "needle", "output_mode", "content", "-C", 0, "-n", false)));
        assertEquals("notes.md:needle here\nnotes.md:needle again\n", c);
    }

    @Test
    void grepCountAndHeadLimit() {
        String t = ok(fx.call("Grep", json("pattern", "TODO|todo", "output_mode", "count")));
        assertEquals(".hidden/h.java:1\nsrc/App.java:1\nsrc/util/Util.java:2\nFound 4 matches in 3 files.\n", t);
        String h = ok(fx.call("Grep", json("pattern", "TODO", "head_limit", 1)));
        assertTrue(h.startsWith("Found 3 files\n.hidden/h.java\n(2 more not shown"), h);
    }

    @Test
    void grepNoMatchAndBadRegex() {
        assertEquals("No matches found.", ok(fx.call("Grep", json("pattern", "zzzqqq"))));
        var r = fx.call("Grep", json("pattern", "a(b"));
        assertEquals("invalid_arguments", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
        r = fx.call("Grep", json("pattern", "a", "output_mode", "lines"));
        assertEquals("invalid_arguments", assertInstanceOf(ToolResult.Failed.class, r).code().wire());
    }

    private static String sortLines(String t) {
        var l = new java.util.ArrayList<>(java.util.List.of(t.split("\n")));
        l.sort(null);
        return String.join("\n", l) + "\n";
    }
}
