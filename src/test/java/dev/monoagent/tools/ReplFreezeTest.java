package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NodeRepl evaluation arms timers (and a detached child) that act after the call has
 * returned and the host has scanned. The REPL must not run between evaluations: nothing it planted may appear on the
 * host before the next evaluation, and what it does then is scanned, quarantined and recorded after that evaluation.
 */
class ReplFreezeTest {
    @TempDir
    Path tmp;

    @Test
    void timersArmedByAnEvaluationCannotActBetweenEvaluations() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        Path marker = Files.createDirectories(tmp.resolve("host")).resolve("PWNED");
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<Event> events = new CopyOnWriteArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, events::add, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, events::add)) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run run = tools.run("run-freeze");
            String w = ws.toString();
            // the timer attack in full: a nested repository whose fsmonitor host git runs, a .env.* file, a
            // ticking counter, and a detached child that keeps writing
            String arm = "const fs = require('fs'); const cp = require('child_process');"
                    + "setTimeout(() => { fs.mkdirSync('" + w + "/q/.git/refs/heads', {recursive: true});"
                    + " fs.mkdirSync('" + w + "/q/.git/objects', {recursive: true});"
                    + " fs.writeFileSync('" + w + "/q/.git/HEAD', 'ref: refs/heads/master\\n');"
                    + " fs.writeFileSync('" + w + "/q/.git/config', '[core]\\n\\trepositoryformatversion = 0\\n"
                    + "\\tfsmonitor = touch " + marker + "\\n');"
                    + " fs.writeFileSync('" + w + "/.env.late', 'LATE=1'); }, 700);"
                    + "setInterval(() => fs.appendFileSync('" + w + "/tick.txt', 'x'), 50);"
                    + "cp.spawn('sh', ['-c', 'while :; do echo y >> " + w + "/tick2.txt; sleep 0.05; done'],"
                    + " {detached: true, stdio: 'ignore'}).unref();"
                    + "'armed'";
            assertEquals("'armed'", run.call("c-f1", "NodeRepl", json("code", arm)).text());
            TimeUnit.MILLISECONDS.sleep(2000);
            // between evaluations: nothing planted, nothing ticking
            assertFalse(Files.exists(ws.resolve("q"), LinkOption.NOFOLLOW_LINKS),
                    "the REPL planted q/.git after its evaluation returned");
            assertFalse(Files.exists(ws.resolve(".env.late"), LinkOption.NOFOLLOW_LINKS),
                    "the REPL wrote .env.late after its evaluation returned");
            long t1 = size(ws.resolve("tick.txt"));
            long c1 = size(ws.resolve("tick2.txt"));
            TimeUnit.MILLISECONDS.sleep(700);
            assertEquals(t1, size(ws.resolve("tick.txt")), "a timer of the REPL ran between evaluations");
            assertEquals(c1, size(ws.resolve("tick2.txt")), "a detached child of the REPL ran between evaluations");
            // the next evaluation lets the overdue timer run while it is watched; what it did is handled after it
            // (the repository is taken away as soon as its HEAD appears, so the timer's next write
            // into q/.git may fail, and its uncaught error is what this evaluation reports)
            String second = run.call("c-f2", "NodeRepl", json("code",
                    "await new Promise(r => setTimeout(r, 300)); 1 + 1")).text();
            assertTrue(second.equals("2") || (second.contains("ENOENT") && second.contains("/q/.git/")), second);
            assertFalse(Files.exists(ws.resolve("q/.git"), LinkOption.NOFOLLOW_LINKS),
                    "the planted repository stayed in host git's sight after the evaluation");
            assertFalse(Files.exists(ws.resolve(".env.late"), LinkOption.NOFOLLOW_LINKS),
                    ".env.late stayed on the host after the evaluation");
            if (Files.isDirectory(ws.resolve("q"))) {
                new ProcessBuilder("git", "status").directory(ws.resolve("q").toFile()).redirectErrorStream(true)
                        .start().waitFor(20, TimeUnit.SECONDS);
            }
            assertFalse(Files.exists(marker), "host git status in q ran the REPL's fsmonitor");
            List<Violation> vs = SandboxedToolsTest.violations(events, "c-f2");
            // the timer writes .env.late last: when its write into q/.git failed (the repository was taken away
            // first) it never got there, and nothing is on the host (asserted above)
            if (second.equals("2")) {
                assertTrue(vs.stream().anyMatch(v -> v.target() != null && v.target().endsWith(".env.late")
                        && v.reason().contains("moved to")), "the .env.late write is recorded and moved: " + vs);
            }
            assertTrue(vs.stream().anyMatch(v -> v.target() != null && v.target().endsWith("q/.git")),
                    "the planted repository is recorded: " + vs);
            // the REPL's state survived being stopped
            assertEquals("3", run.call("c-f3", "NodeRepl", json("code", "1 + 2")).text());
        }
    }

    /**
     * The timer attack's other ending: what the timers planted they delete again before the next scan. Inside the
     * evaluation's window that is still recorded (the watch sees the name appear), attributed to that evaluation.
     */
    @Test
    void plantedAndDeletedBetweenScansIsStillRecorded() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<Event> events = new CopyOnWriteArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, events::add, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, events::add)) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run run = tools.run("run-freeze2");
            String w = ws.toString();
            String arm = "const fs = require('fs');"
                    + "setTimeout(() => { fs.writeFileSync('" + w + "/.env.gone', 'S=1');"
                    + " fs.mkdirSync('" + w + "/r/.git', {recursive: true});"
                    + " setTimeout(() => { fs.rmSync('" + w + "/.env.gone'); fs.rmSync('" + w + "/r/.git',"
                    + " {recursive: true}); }, 100); }, 300); 'armed'";
            assertEquals("'armed'", run.call("c-g1", "NodeRepl", json("code", arm)).text());
            TimeUnit.MILLISECONDS.sleep(1000);
            assertEquals("2", run.call("c-g2", "NodeRepl", json("code",
                    "await new Promise(r => setTimeout(r, 600)); 1 + 1")).text());
            List<Violation> vs = new java.util.ArrayList<>(SandboxedToolsTest.violations(events, "c-g1"));
            vs.addAll(SandboxedToolsTest.violations(events, "c-g2"));
            assertTrue(vs.stream().anyMatch(v -> v.target() != null && v.target().endsWith(".env.gone")
                    && v.reason().contains("created and deleted")), "the transient .env.gone is recorded: " + vs);
            assertTrue(vs.stream().anyMatch(v -> v.target() != null && v.target().endsWith("r/.git")
                    && v.reason().contains("created and deleted")), "the transient r/.git is recorded: " + vs);
        }
    }

    private static long size(Path f) throws java.io.IOException {
        return Files.exists(f) ? Files.size(f) : -1;
    }
}
