package dev.monoagent.memory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.Normalizer;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Text rules shared by the journal and the tools: NFKC plus whitespace folding (so look-alike spellings of one fact
 * hash the same), and the content hash that makes writes idempotent.
 */
public final class MemoryText {
    /** Longest text {@code Remember} accepts, counted in code points after {@link #normalize}. */
    public static final int MAX_REMEMBER_CHARS = 500;

    private static final Pattern SPACES = Pattern.compile("[\\s\\u00A0\\u2000-\\u200B\\u2028\\u2029\\u3000]+");
    private static final Pattern INLINE_SPACES = Pattern.compile("[\\t\\x0B\\f\\r\\u00A0\\u2000-\\u200B\\u3000 ]+");

    private MemoryText() {}

    /** NFKC, every whitespace run as one space, trimmed: the form a remembered fact is stored and hashed in. */
    public static String normalize(String s) {
        return SPACES.matcher(Normalizer.normalize(s, Normalizer.Form.NFKC)).replaceAll(" ").strip();
    }

    /**
     * NFKC with line structure kept (for multi-line host observations): spaces folded within lines, blank lines
     * dropped, each line trimmed.
     */
    public static String normalizeLines(String s) {
        StringBuilder out = new StringBuilder();
        for (String line : Normalizer.normalize(s, Normalizer.Form.NFKC).split("\\R")) {
            String l = INLINE_SPACES.matcher(line).replaceAll(" ").strip();
            if (!l.isEmpty()) {
                out.append(out.isEmpty() ? "" : "\n").append(l);
            }
        }
        return out.toString();
    }

    /** 16 hex digits of SHA-256 over kind and normalized text. */
    public static String hash(String kind, String normalizedText) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(kind.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(normalizedText.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The longest prefix of {@code s} whose UTF-8 form fits in {@code maxBytes}, never splitting a code point. */
    public static String truncateUtf8(String s, int maxBytes) {
        if (utf8Length(s) <= maxBytes) {
            return s;
        }
        int bytes = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + n > maxBytes) {
                break;
            }
            bytes += n;
            i += Character.charCount(cp);
        }
        return s.substring(0, i);
    }

    public static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
