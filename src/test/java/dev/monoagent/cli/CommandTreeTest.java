package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short command builds only the part of the command tree it reaches (picocli's reflection over every command was
 * most of {@code --version}'s start-up), while help, usage and an unknown name still see every command.
 */
class CommandTreeTest {
    @TempDir
    Path cwd;

    private List<String> built(String... args) {
        CliContext ctx = new CliContext(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), cwd,
                Map.of(), false);
        return List.copyOf(MonoAgentCli.commandLineFor(ctx, args).getSubcommands().keySet());
    }

    @Test
    void aNamedCommandIsBuiltAloneAndVersionBuildsNone() {
        assertEquals(List.of(), built("--version"));
        assertEquals(List.of(), built("--debug", "-V"));
        assertEquals(List.of("status"), built("status", "--json"));
        assertEquals(List.of("validate", "doctor"), built("--debug", "validate"));
        assertEquals(List.of("tools"), built("tools", "call", "Bash", "{}"));
    }

    @Test
    void helpUsageAndUnknownNamesSeeEveryCommand() {
        int all = MonoAgentCli.commandLine(new CliContext(new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()), cwd, Map.of(), false)).getSubcommands().size();
        assertTrue(all > 15, "the whole tree: " + all);
        assertEquals(all, built().size());
        assertEquals(all, built("--help").size());
        assertEquals(all, built("help", "run").size());
        assertEquals(all, built("bogus").size());
    }

    @Test
    void theOutputIsTheSameAsWithTheWholeTree() {
        CliHarness.Result v = CliHarness.run(cwd, Map.of(), "--version");
        assertEquals(0, v.exit());
        assertTrue(v.out().startsWith("mono-agent "), v.out());
        CliHarness.Result h = CliHarness.run(cwd, Map.of(), "--help");
        for (String name : List.of("init", "validate", "status", "run", "trust", "sandbox")) {
            assertTrue(h.out().contains("  " + name + " ") || h.out().contains("  " + name + ","), name + ":\n" + h.out());
        }
        CliHarness.Result bad = CliHarness.run(cwd, Map.of(), "bogus");
        assertEquals(ExitCodes.USAGE, bad.exit());
        assertTrue(bad.err().contains("Unknown command: bogus"), bad.err());
    }
}
