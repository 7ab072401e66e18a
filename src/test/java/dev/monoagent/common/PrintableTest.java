package dev.monoagent.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class PrintableTest {
    static final String HOSTILE = "a\\b\nc\rd\te\u001b[2K\u0007\u009b1A\u202eexe.txt\u2066\u2028\u0000end";

    @Test
    void aLineIsOneLineWithEveryControlVisibleAndReversible() {
        String l = Printable.line(HOSTILE);
        assertEquals("a\\\\b\\nc\\rd\\te\\x1b[2K\\x07\\x9b1A\\u202eexe.txt\\u2066\\u2028\\x00end", l);
        assertEquals(HOSTILE, Printable.unescape(l));
        String plain = "/ws/src/Main.java — write refused by the sandbox (openat)";
        assertSame(plain, Printable.line(plain), "ordinary text is not copied");
    }

    @Test
    void oneLineEscapesEveryControlButLeavesBackslashesSoItCanBeAppliedTwice() {
        String l = Printable.oneLine(HOSTILE);
        assertEquals("a\\b\\nc\\rd\\te\\x1b[2K\\x07\\x9b1A\\u202eexe.txt\\u2066\\u2028\\x00end", l);
        assertEquals(l, Printable.oneLine(l));
        assertEquals(Printable.line("a\nb"), Printable.oneLine(Printable.line("a\nb")));
    }

    @Test
    void terminalOutputKeepsLinesAndTabsButNoEscapeSequence() {
        assertEquals("x\n\ty\r\n\\x1b]0;T\\x07 \\rz \\u202e", Printable.terminal("x\n\ty\r\n\u001b]0;T\u0007 \rz \u202e"));
        assertEquals("C:\\dir", Printable.terminal("C:\\dir"), "backslashes stay for reading");
    }

    @Test
    void outputThatImitatesARecordIsMarked() {
        String m = Printable.OUTPUT_MARK;
        assertEquals("ok\n" + m + "Sandbox record (write): x\n", Printable.output("ok\nSandbox record (write): x\n"));
        assertEquals(m + "  sandbox RECORD (read): y", Printable.output("  sandbox RECORD (read): y"));
        assertEquals("a\r" + m + "violation: z", Printable.output("a\rviolation: z"));
        assertEquals(m + "\u200bviolations: 3 more", Printable.output("\u200bviolations: 3 more"));
        assertEquals("a Sandbox record (write) mid-line", Printable.output("a Sandbox record (write) mid-line"));
        assertEquals(m + "Sandbox record (x)", Printable.output(Printable.output("Sandbox record (x)")),
                "marking twice marks once");
    }
}
