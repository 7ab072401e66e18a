package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code installer/macos-check.sh} on Linux: it parses (bash -n, and shellcheck where installed, as in CI), refuses to
 * run off a Mac without printing a single result, and its parsers turn {@code sandbox check} output and surefire
 * reports into the documented RESULT lines and summary (the script's functions sourced, its main never run). This is
 * not a Mac run: the script's verdicts on a Mac come only from running it there.
 */
class MacosCheckScriptTest {
    private static final Path SCRIPT = Path.of("installer/macos-check.sh").toAbsolutePath();

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {}

    private static Run run(List<String> cmd, Path cwd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void parsesAndPassesShellcheckWhereInstalled() throws Exception {
        Run n = run(List.of("bash", "-n", SCRIPT.toString()), tmp);
        assertEquals(0, n.exit(), n.err());
        assertTrue(Files.isExecutable(SCRIPT));
        if (Files.isExecutable(Path.of("/usr/bin/shellcheck"))) {
            Run sc = run(List.of("/usr/bin/shellcheck", SCRIPT.toString()), tmp);
            assertEquals(0, sc.exit(), sc.out());
        }
    }

    @Test
    void offAMacItRefusesWithoutAResult() throws Exception {
        if (Platform.current() == Platform.MACOS) {
            return; // there it would really run the whole check: that is the point of the script
        }
        Run r = run(List.of("bash", SCRIPT.toString()), tmp);
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("runs only on a Mac"), r.err());
        assertFalse(r.out().contains("RESULT"), r.out());
        assertFalse(r.out().contains("summary"), r.out());
    }

    @Test
    void checkOutputAndSurefireReportsBecomeResultLinesAndASummary() throws Exception {
        // SandboxCommand.printProbes' format
        Path check = Files.writeString(tmp.resolve("check.log"), String.join("\n",
                "Self-check: 2 of 3 probes passed",
                "[ok]   engine: SRT initialized.",
                "[FAIL] env-glob-refused: FAILED: New .env.* refused by the Seatbelt glob deny.",
                "[ok]   violation-feed: Violation feed saw the canary write and the network deny.", ""));
        // surefire's report shape: a passing case, a failing one with a message, a skipped one, a self-closing one
        Path xml = Files.writeString(tmp.resolve("TEST-dev.monoagent.sandbox.EscapeSuiteTest.xml"), String.join("\n",
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                "<testsuite name=\"dev.monoagent.sandbox.EscapeSuiteTest\" tests=\"4\" failures=\"1\" skipped=\"1\">",
                "  <testcase name=\"[1] symlink-out-of-workspace\" classname=\"dev.monoagent.sandbox.EscapeSuiteTest\""
                        + " time=\"0.4\">",
                "  </testcase>",
                "  <testcase name=\"hardlinkEnv\" classname=\"dev.monoagent.sandbox.EscapeSuiteTest\" time=\"0.2\">",
                "    <failure message=\"expected: &lt;SECRET=1&gt; but was: &lt;pwned&gt; &amp; &quot;x&quot;&#10;at line 2\" type=\"org.opentest4j."
                        + "AssertionFailedError\">stack</failure>",
                "  </testcase>",
                "  <testcase name=\"procMem\" classname=\"dev.monoagent.sandbox.EscapeSuiteTest\" time=\"0\">",
                "    <skipped message=\"Linux only\"/>",
                "  </testcase>",
                "  <testcase name=\"directTcp\" classname=\"dev.monoagent.sandbox.EscapeSuiteTest\" time=\"0.1\"/>",
                "</testsuite>", ""));
        Run r = run(List.of("bash", "-c", "source " + CommandScript.quote(SCRIPT.toString()) + " && parse_check < "
                + CommandScript.quote(check.toString()) + " && parse_surefire " + CommandScript.quote(xml.toString())
                + " && rev=abc1234 os_line='macOS 15.1 (24B83) arm64' tools_line=t summary"), tmp);
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(List.of(
                "RESULT check engine pass SRT initialized.",
                "RESULT check env-glob-refused FAIL FAILED: New .env.* refused by the Seatbelt glob deny.",
                "RESULT check violation-feed pass Violation feed saw the canary write and the network deny.",
                "RESULT corpus EscapeSuiteTest.[1]_symlink-out-of-workspace pass ",
                "RESULT corpus EscapeSuiteTest.hardlinkEnv FAIL expected: <SECRET=1> but was: <pwned> & \"x\" at line 2",
                "RESULT corpus EscapeSuiteTest.procMem skip Linux only",
                "RESULT corpus EscapeSuiteTest.directTcp pass "), lines.subList(0, 7));
        List<String> summary = lines.subList(7, lines.size());
        assertEquals("----- macos-check summary (paste into the issue) -----", summary.get(0));
        assertTrue(summary.get(1).startsWith("macos-check v1: mono-agent abc1234 on macOS 15.1 (24B83) arm64, "),
                summary.get(1));
        assertEquals("results: 4 pass, 2 FAIL, 1 skip", summary.get(3));
        assertEquals("FAIL check env-glob-refused: FAILED: New .env.* refused by the Seatbelt glob deny.",
                summary.get(4));
        assertEquals("FAIL corpus EscapeSuiteTest.hardlinkEnv: expected: <SECRET=1> but was: <pwned> & \"x\" at line 2",
                summary.get(5));
        assertEquals("----- end of summary -----", summary.get(6));
    }
}
