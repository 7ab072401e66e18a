package dev.monoagent.common;

/**
 * Untrusted text (file names in records, tool output, a model's words) made safe to show a human. A written file
 * name can hold a newline, a carriage return, ANSI escapes or bidi overrides; printed raw it forges or erases record
 * lines on a terminal and reorders what the reviewer reads. Each such character is shown as a visible escape
 * instead: {@code \n}, {@code \x1b}, and a bidi override U+202E as a backslash, "u" and its four hex digits. The JSON
 * outputs never go through here: JSON escapes them and keeps the exact string.
 */
public final class Printable {
    private Printable() {}

    /**
     * One line of text for a record: every control character (C0, DEL, C1), the bidi controls and the Unicode line
     * separators escaped, and a backslash doubled, so the line is one line and {@link #unescape} gives the exact text.
     */
    public static String line(String s) {
        return escaped(s, Mode.RECORD);
    }

    /**
     * One line of text for a message that quotes untrusted text next to ours (a config error, a value the reviewer is
     * asked to accept): every control character, bidi control and Unicode line separator escaped as {@link #line}
     * does, but a backslash left as it is, so text that went through here (or through {@link #line}) passes again
     * unchanged. Whatever the quoted text holds, it adds no line and moves no cursor.
     */
    public static String oneLine(String s) {
        return escaped(s, Mode.ONE_LINE);
    }

    /**
     * Output for a terminal (a tool's stdout shown by {@code tools call}): lines and tabs stay, every other control
     * character is escaped, so no escape sequence (cursor moves, erase, a window title, an OSC 52 clipboard write)
     * reaches the terminal. A CR is kept only as part of CR LF. Backslashes are left as they are (the output is for
     * reading; {@code --json} has the exact bytes).
     */
    public static String terminal(String s) {
        return escaped(s, Mode.TERMINAL);
    }

    /** What is escaped: {@link #line} (controls and backslashes), {@link #oneLine} (controls), {@link #terminal}. */
    private enum Mode { RECORD, ONE_LINE, TERMINAL }

    private static String escaped(String s, Mode mode) {
        if (s == null) {
            return null;
        }
        StringBuilder o = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean bad = switch (mode) {
                case RECORD -> c == '\\' || unsafe(c);
                case ONE_LINE -> unsafe(c);
                case TERMINAL -> unsafe(c) && !(c == '\n' || c == '\t'
                        || (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n'));
            };
            if (bad && o == null) {
                o = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (o != null) {
                if (bad) {
                    escape(o, c);
                } else {
                    o.append(c);
                }
            }
        }
        return o == null ? s : o.toString();
    }

    /**
     * The starts of the lines we write ourselves next to command output: the tool result's records, and the violation,
     * aggregate and allowed-traffic lines the CLI and the workbench's command console share
     * ({@link Violation#recordLine}, {@link Event.NetworkAllowed#recordLine}).
     */
    static final java.util.List<String> RECORD_STARTS = java.util.List.of("Sandbox record (", "violation: ",
            "violations: ", "network: ", "Exit code: ");

    /** What a line of command output that imitates one of our records is shown behind. */
    public static final String OUTPUT_MARK = "(command output) ";

    /**
     * Command output with every line that imitates one of our record lines ({@link #RECORD_STARTS}, in any case,
     * after any blanks or invisible characters) shown behind {@link #OUTPUT_MARK}: our records are events shown by us,
     * and output printed next to them cannot pass for one. A line starts at the text's start and after each
     * {@code \n}, {@code \r}, U+0085, U+2028 or U+2029 (whatever a reader takes for a line break).
     */
    public static String output(String s) {
        if (s == null || s.isEmpty()) {
            return s;
        }
        StringBuilder o = null;
        int copied = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == 0 || isBreak(s.charAt(i - 1))) {
                if (i < s.length() && imitatesRecord(s, i)) {
                    if (o == null) {
                        o = new StringBuilder(s.length() + 32);
                    }
                    o.append(s, copied, i).append(OUTPUT_MARK);
                    copied = i;
                }
            }
        }
        return o == null ? s : o.append(s, copied, s.length()).toString();
    }

    /** {@link #output} for one line (the transcript's and the console's output rows). */
    public static String outputLine(String line) {
        return output(line);
    }

    private static boolean isBreak(char c) {
        return c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029';
    }

    private static boolean imitatesRecord(String s, int from) {
        int i = from;
        while (i < s.length() && !isBreak(s.charAt(i)) && (Character.isWhitespace(s.charAt(i)) || unsafe(s.charAt(i))
                || Character.getType(s.charAt(i)) == Character.FORMAT)) {
            i++;
        }
        for (String start : RECORD_STARTS) {
            if (s.regionMatches(true, i, start, 0, start.length())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code c} is one a terminal or a text view acts on rather than shows. */
    public static boolean unsafe(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u061c' || c == '\u200e' || c == '\u200f'
                || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069') || c == '\u2028'
                || c == '\u2029';
    }

    /** The exact text a {@link #line} came from. */
    public static String unescape(String s) {
        StringBuilder o = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 >= s.length()) {
                o.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 'n' -> o.append('\n');
                case 'r' -> o.append('\r');
                case 't' -> o.append('\t');
                case 'x' -> {
                    o.append((char) Integer.parseInt(s.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                case 'u' -> {
                    o.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> o.append(n);
            }
        }
        return o.toString();
    }

    private static void escape(StringBuilder o, char c) {
        switch (c) {
            case '\\' -> o.append("\\\\");
            case '\n' -> o.append("\\n");
            case '\r' -> o.append("\\r");
            case '\t' -> o.append("\\t");
            default -> o.append(c < 0x100 ? String.format(java.util.Locale.ROOT, "\\x%02x", (int) c)
                    : String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
        }
    }
}
