package dev.monoagent.sandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The paths one git config file's text sends host git to: {@code core.hooksPath} (a directory whose scripts git runs)
 * and {@code include.path} / {@code includeIf.<condition>.path} (further config files git reads, whatever the
 * condition says: a condition can become true later). Pure; the values come back as written, resolved by the caller
 * ({@link HostControl#gitConfigTargets}). The syntax follows git's own parser ({@code config.c}): section headers
 * ({@code [core]}, {@code [includeIf "gitdir:x"]}, the old {@code [section.sub]}), a key on the header's line, case-
 * insensitive section and key names, quoted values with {@code \" \\ \n \t} escapes, {@code #}/{@code ;} comments and
 * backslash line continuation. Text git would refuse ends the parse with what was read so far: git then refuses the
 * whole file, so nothing after that point can take effect.
 *
 * @param hooksPaths the {@code core.hooksPath} values, in file order
 * @param includes   the {@code include.path} and {@code includeIf.*.path} values, in file order
 */
record GitConfigRefs(List<String> hooksPaths, List<String> includes) {
    GitConfigRefs {
        hooksPaths = List.copyOf(hooksPaths);
        includes = List.copyOf(includes);
    }

    /** The references in one config file's text. */
    static GitConfigRefs parse(String text) {
        List<String> hooks = new ArrayList<>();
        List<String> includes = new ArrayList<>();
        String s = text.startsWith("\uFEFF") ? text.substring(1) : text;
        int n = s.length();
        int i = 0;
        String section = null;
        while (i < n) {
            char c = s.charAt(i);
            if (c == '\n' || Character.isWhitespace(c)) {
                i++;
            } else if (c == '#' || c == ';') {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '[') {
                int[] end = new int[1];
                section = header(s, i + 1, end);
                if (section == null) {
                    break;
                }
                i = end[0];
            } else if (Character.isLetter(c) && c < 128) {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(s.charAt(i)) && s.charAt(i) < 128 || s.charAt(i) == '-')) {
                    i++;
                }
                String key = s.substring(start, i).toLowerCase(Locale.ROOT);
                while (i < n && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                    i++;
                }
                String value = null;
                if (i < n && s.charAt(i) == '=') {
                    int[] end = new int[1];
                    value = value(s, i + 1, end);
                    if (value == null) {
                        break;
                    }
                    i = end[0];
                } else if (i < n && s.charAt(i) != '\n' && s.charAt(i) != '#' && s.charAt(i) != ';') {
                    break; // git: bad config line
                }
                if (section == null) {
                    break; // git: a key before any section
                }
                if (value != null && !value.isEmpty()) {
                    String var = section + "." + key;
                    if (var.equals("core.hookspath")) {
                        hooks.add(value);
                    } else if (var.equals("include.path")
                            || key.equals("path") && section.toLowerCase(Locale.ROOT).startsWith("includeif.")) {
                        includes.add(value);
                    }
                }
            } else {
                break; // git: bad config line
            }
        }
        return new GitConfigRefs(hooks, includes);
    }

    /** A section header from just after {@code [}: {@code name} or {@code name.subsection}; null when malformed. */
    private static String header(String s, int i, int[] end) {
        int n = s.length();
        StringBuilder name = new StringBuilder();
        while (i < n) {
            char c = s.charAt(i++);
            if (c == ']') {
                end[0] = i;
                return name.toString().toLowerCase(Locale.ROOT);
            }
            if (Character.isWhitespace(c)) {
                // [section "subsection"]: the subsection keeps its case
                while (i < n && Character.isWhitespace(s.charAt(i))) {
                    i++;
                }
                if (i >= n || s.charAt(i) != '"') {
                    return null;
                }
                i++;
                StringBuilder sub = new StringBuilder();
                while (i < n && s.charAt(i) != '"') {
                    char d = s.charAt(i++);
                    if (d == '\n') {
                        return null;
                    }
                    if (d == '\\' && i < n) {
                        d = s.charAt(i++);
                    }
                    sub.append(d);
                }
                if (i + 1 >= n || s.charAt(i + 1) != ']') {
                    return null;
                }
                end[0] = i + 2;
                return name.toString().toLowerCase(Locale.ROOT) + "." + sub;
            }
            if (!(Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == '-')) {
                return null;
            }
            name.append(c);
        }
        return null;
    }

    /** A value from just after {@code =} to its end of line; null when malformed (an open quote, a bad escape). */
    private static String value(String s, int i, int[] end) {
        int n = s.length();
        StringBuilder out = new StringBuilder();
        boolean quote = false;
        boolean comment = false;
        int spaces = 0;
        while (true) {
            if (i >= n) {
                end[0] = i;
                return quote ? null : out.toString();
            }
            char c = s.charAt(i++);
            if (c == '\n') {
                if (quote) {
                    return null;
                }
                end[0] = i;
                return out.toString();
            }
            if (comment) {
                continue;
            }
            if (Character.isWhitespace(c) && !quote) {
                if (out.length() > 0) {
                    spaces++;
                }
                continue;
            }
            if (!quote && (c == ';' || c == '#')) {
                comment = true;
                continue;
            }
            for (; spaces > 0; spaces--) {
                out.append(' ');
            }
            if (c == '\\') {
                if (i >= n) {
                    return null;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '\n' -> { }
                    case 't' -> out.append('\t');
                    case 'b' -> { if (out.length() > 0) out.setLength(out.length() - 1); }
                    case 'n' -> out.append('\n');
                    case '\\', '"' -> out.append(e);
                    default -> { return null; }
                }
                continue;
            }
            if (c == '"') {
                quote = !quote;
                continue;
            }
            out.append(c);
        }
    }
}
