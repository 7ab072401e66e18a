package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.memory.MemoryStore;
import dev.monoagent.sandbox.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent can reach its memory only through the memory tools: Write, Edit and Bash (real srt + bubblewrap) cannot
 * change, add to, move or delete the journal under {@code .mono-agent/memory/}, while Remember and MemoryRecall work.
 */
class MemorySandboxTest {

    @Test
    void agentToolsCannotWriteTheJournalButTheMemoryToolsWork(@TempDir Path tmp) throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        LoadedConfig lc = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<Event> events = new CopyOnWriteArrayList<>();
        try (MemoryStore store = MemoryStore.open(lc);
             Sandbox sb = Sandbox.open(lc, events::add, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(lc, sb.policy(), SandboxPort.of(sb), events::add,
                     MemoryTools.of(store, lc.config().memory()))) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            store.remember("The parser rejects nested archives.");
            Path day = store.dir().resolve("daily").resolve(store.today() + ".md");
            String rel = ws.relativize(day).toString();
            byte[] before = Files.readAllBytes(day);
            Tools.Run run = tools.run("run-mem");

            ToolResult w = run.call("Write", json("file_path", rel, "content", "forged memory"));
            assertEquals(ToolResult.DENIED_BY_POLICY, w.outcome(), w.text());
            ToolResult w2 = run.call("Write", json("file_path", ".mono-agent/memory/daily/2099-01-01.md",
                    "content", "### forged"));
            assertEquals(ToolResult.DENIED_BY_POLICY, w2.outcome(), w2.text());
            ToolResult e = run.call("Edit", json("file_path", rel, "old_string", "nested", "new_string", "flat"));
            assertEquals(ToolResult.DENIED_BY_POLICY, e.outcome(), e.text());

            for (String cmd : List.of("echo forged >> " + rel, "printf x > .mono-agent/memory/daily/2099-01-01.md",
                    "rm -rf .mono-agent/memory", "mv .mono-agent/memory .mono-agent/m2",
                    "ln -s /tmp .mono-agent/memory/daily/link", "cp README.md " + rel,
                    "python3 -c \"open('" + rel + "','a').write('forged')\"",
                    "node -e \"require('fs').appendFileSync('" + rel + "','forged')\"")) {
                run.call("Bash", json("command", cmd));
            }
            assertTrue(Files.isDirectory(store.dir().resolve("daily")));
            assertEquals(new String(before), new String(Files.readAllBytes(day)));
            try (var s = Files.list(store.dir().resolve("daily"))) {
                assertEquals(List.of(day.getFileName().toString(), day.getFileName() + ".seal"),
                        s.map(p -> p.getFileName().toString()).sorted().toList());
            }
            assertFalse(Files.exists(ws.resolve(".mono-agent/m2")));

            ToolResult rem = run.call("Remember", json("text", "Run the parser tests with -Pslow."));
            assertInstanceOf(ToolResult.Ok.class, rem, rem.text());
            ToolResult secret = run.call("Remember", json("text", "key sk-proj-" + "Ab3dE5gH".repeat(6)));
            assertEquals(ToolResult.INVALID_ARGUMENTS, secret.outcome());
            ToolResult recall = run.call("MemoryRecall", json("query", "parser nested archives"));
            assertTrue(recall.text().contains("The parser rejects nested archives."), recall.text());
            ToolResult journal = run.call("MemoryJournal", json());
            assertTrue(journal.text().contains("Run the parser tests with -Pslow."), journal.text());
            ToolResult badDate = run.call("MemoryJournal", json("date", "30/11/2026"));
            assertEquals(ToolResult.INVALID_ARGUMENTS, badDate.outcome());
        }
    }
}
