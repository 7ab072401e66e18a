package dev.monoagent.ui.view;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fxmisc.richtext.model.StyleSpans;
import org.fxmisc.richtext.model.StyleSpansBuilder;

/**
 * Simple regex highlighting (keywords, strings, comments, numbers, keys) for the languages the viewer names. Good
 * enough to read code; not a parser. Large files are highlighted only in their first 200 KB to keep it cheap.
 */
final class SyntaxHighlighter {
    static final int MAX_HIGHLIGHT = 200_000;

    private static final String JAVA_KW = "abstract|assert|boolean|break|byte|case|catch|char|class|const|continue|"
            + "default|do|double|else|enum|extends|final|finally|float|for|if|implements|import|instanceof|int|"
            + "interface|long|native|new|package|private|protected|public|record|return|sealed|short|static|super|"
            + "switch|synchronized|this|throw|throws|try|var|void|volatile|while|yield|fn|let|mut|func|struct";
    private static final String JS_KW = "async|await|break|case|catch|class|const|continue|debugger|default|delete|"
            + "do|else|export|extends|finally|for|from|function|if|import|in|instanceof|let|new|of|return|super|"
            + "switch|this|throw|try|typeof|var|void|while|yield|true|false|null|undefined";
    private static final String SH_KW = "if|then|else|elif|fi|for|in|do|done|while|case|esac|function|return|export|"
            + "local|set|echo|exit";
    private static final String PY_KW = "and|as|assert|async|await|break|class|continue|def|del|elif|else|except|"
            + "finally|for|from|global|if|import|in|is|lambda|None|nonlocal|not|or|pass|raise|return|True|False|try|"
            + "while|with|yield";

    private static final Map<String, Pattern> PATTERNS = Map.of(
            "java", Pattern.compile(group("comment", "//[^\n]*|/\\*(.|\\R)*?\\*/") + "|" + group("string",
                    "\"([^\"\\\\\n]|\\\\.)*\"|'([^'\\\\\n]|\\\\.)*'") + "|" + group("keyword", "\\b(" + JAVA_KW
                    + ")\\b") + "|" + group("number", "\\b\\d+(\\.\\d+)?\\b")),
            "js", Pattern.compile(group("comment", "//[^\n]*|/\\*(.|\\R)*?\\*/") + "|" + group("string",
                    "\"([^\"\\\\\n]|\\\\.)*\"|'([^'\\\\\n]|\\\\.)*'|`([^`\\\\]|\\\\.)*`") + "|" + group("keyword",
                    "\\b(" + JS_KW + ")\\b") + "|" + group("number", "\\b\\d+(\\.\\d+)?\\b")),
            "json", Pattern.compile(group("key", "\"([^\"\\\\\n]|\\\\.)*\"(?=\\s*:)") + "|" + group("string",
                    "\"([^\"\\\\\n]|\\\\.)*\"") + "|" + group("keyword", "\\b(true|false|null)\\b") + "|"
                    + group("number", "-?\\b\\d+(\\.\\d+)?([eE][+-]?\\d+)?\\b")),
            "sh", Pattern.compile(group("comment", "#[^\n]*") + "|" + group("string",
                    "\"([^\"\\\\]|\\\\.)*\"|'[^']*'") + "|" + group("keyword", "\\b(" + SH_KW + ")\\b") + "|"
                    + group("key", "\\$\\{?\\w+\\}?")),
            "py", Pattern.compile(group("comment", "#[^\n]*") + "|" + group("string",
                    "\"([^\"\\\\\n]|\\\\.)*\"|'([^'\\\\\n]|\\\\.)*'") + "|" + group("keyword", "\\b(" + PY_KW
                    + ")\\b") + "|" + group("number", "\\b\\d+(\\.\\d+)?\\b")),
            "conf", Pattern.compile(group("comment", "(?m)^\\s*[#;][^\n]*") + "|" + group("key",
                    "(?m)^\\s*[\\w.\\-\\[\\]]+(?=\\s*[=:])") + "|" + group("string", "\"[^\"\n]*\"|'[^'\n]*'")),
            "md", Pattern.compile(group("keyword", "(?m)^#{1,6} [^\n]*") + "|" + group("string", "`[^`\n]+`") + "|"
                    + group("comment", "(?m)^>[^\n]*")),
            "xml", Pattern.compile(group("comment", "<!--(.|\\R)*?-->") + "|" + group("keyword", "</?[\\w:.-]+|/?>")
                    + "|" + group("string", "\"[^\"]*\"|'[^']*'")));

    private SyntaxHighlighter() {}

    private static String group(String name, String regex) {
        return "(?<" + name + ">" + regex + ")";
    }

    static StyleSpans<Collection<String>> spans(String text, String language) {
        StyleSpansBuilder<Collection<String>> b = new StyleSpansBuilder<>();
        Pattern p = PATTERNS.get(language);
        if (p == null || text.isEmpty()) {
            b.add(Collections.emptyList(), text.length());
            return b.create();
        }
        String head = text.length() > MAX_HIGHLIGHT ? text.substring(0, MAX_HIGHLIGHT) : text;
        Matcher m = p.matcher(head);
        int last = 0;
        while (m.find()) {
            String cls = m.group("comment") != null ? "comment" : null;
            for (String g : new String[] {"comment", "string", "keyword", "number", "key"}) {
                if (hasGroup(p, g) && m.group(g) != null) {
                    cls = g;
                    break;
                }
            }
            b.add(Collections.emptyList(), m.start() - last);
            b.add(Collections.singleton("hl-" + cls), m.end() - m.start());
            last = m.end();
        }
        b.add(Collections.emptyList(), text.length() - last);
        return b.create();
    }

    private static boolean hasGroup(Pattern p, String g) {
        return p.pattern().contains("(?<" + g + ">");
    }
}
