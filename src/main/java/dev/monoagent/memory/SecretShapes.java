package dev.monoagent.memory;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Secret-shaped text that must never enter the journal (which is plain Markdown and recalled into prompts). Each shape
 * is anchored on something a real credential has (a vendor prefix, a fixed length, a PEM armour line, a password in
 * a URL's user-info, a value assigned to a secret-named variable), so prose that merely talks about keys passes.
 */
public final class SecretShapes {

    /** One recognised shape; {@code name} is what the refusal says (never the matched text). */
    public record Shape(String name, Pattern pattern) {}

    private static final String PLACEHOLDER =
            "(?i:\\$\\{?[A-Za-z_]|<[^>]*>|\\*+|x{4,}|\\.\\.\\.|your[_-]|changeme|example|placeholder|redacted)";

    public static final List<Shape> SHAPES = List.of(
            shape("OpenAI API key", "\\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}"),
            shape("Anthropic API key", "\\bsk-ant-[a-z]+\\d*-[A-Za-z0-9_-]{32,}"),
            shape("GitHub token", "\\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"),
            shape("GitLab token", "\\bglpat-[A-Za-z0-9_-]{20,}"),
            shape("Slack token", "\\bxox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{8,}"),
            shape("Stripe key", "\\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}"),
            shape("Google API key", "\\bAIza[0-9A-Za-z_-]{35}\\b"),
            shape("Google OAuth client secret", "\\bGOCSPX-[A-Za-z0-9_-]{28}"),
            shape("Hugging Face token", "\\bhf_[A-Za-z0-9]{34,}"),
            shape("npm token", "\\bnpm_[A-Za-z0-9]{36}\\b"),
            shape("SendGrid key", "\\bSG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}"),
            shape("AWS access key id", "\\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\\b"),
            shape("AWS secret access key",
                    "(?i)aws_?secret_?(?:access_?)?key\\s*[:=]\\s*[\"']?[A-Za-z0-9/+]{40}\\b"),
            shape("Azure storage account key", "(?i)AccountKey=[A-Za-z0-9+/]{40,}={0,2}"),
            shape("private key block", "-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
            shape("JSON Web Token", "\\beyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}"),
            shape("connection string with a password",
                    "\\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\\s:/@]+:(?!" + PLACEHOLDER + ")[^\\s:/@]{3,}@[^\\s/]+"),
            shape(".env-style secret assignment",
                    "(?m)^\\s*(?:export\\s+)?[A-Za-z_][A-Za-z0-9_]*(?i:key|secret|token|passw(?:or)?d|pwd|credentials?"
                    + "|auth)[A-Za-z0-9_]*\\s*=\\s*[\"']?(?!" + PLACEHOLDER + ")[^\\s\"']{8,}"),
            shape("password assignment",
                    "(?i)\\b(?:password|passwd|pwd)\\s*[:=]\\s*[\"']?(?!" + PLACEHOLDER + ")[^\\s\"',;]{6,}"));

    private SecretShapes() {}

    private static Shape shape(String name, String regex) {
        return new Shape(name, Pattern.compile(regex));
    }

    /** {@code text} with every secret-shaped span replaced by {@code [redacted: shape]}. */
    public static String redact(String text) {
        String out = text;
        for (Shape s : SHAPES) {
            out = s.pattern().matcher(out).replaceAll(java.util.regex.Matcher.quoteReplacement("[redacted: "
                    + s.name() + "]"));
        }
        return out;
    }

    /** A run of five or more single characters, each followed by one space: {@code s k - p r o j - ...}. */
    private static final Pattern LETTER_SPACED = Pattern.compile("(?<!\\S)(?:\\S ){4,}\\S(?!\\S)");
    /** A token that may be base64 of something longer (a key is 20+ characters, so 28+ once encoded). */
    private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/_-]{28,}={0,2}");

    /**
     * As {@link #find}, also through two disguises that slip a secret past it into Remember: a letter-spaced token
     * (checked with its spaces removed) and a base64 token whose decoding is printable text (checked decoded). Other
     * encodings (hex, rot13, a key split across words) are not looked through: this is a filter for accidents and
     * plain attempts, not a guarantee.
     */
    public static Optional<Shape> findDisguised(String text) {
        Optional<Shape> plain = find(text);
        if (plain.isPresent()) {
            return plain;
        }
        Matcher spaced = LETTER_SPACED.matcher(text);
        while (spaced.find()) {
            Optional<Shape> s = find(spaced.group().replace(" ", ""));
            if (s.isPresent()) {
                return s;
            }
        }
        Matcher b = BASE64.matcher(text);
        while (b.find()) {
            String decoded = decoded(b.group());
            Optional<Shape> s = decoded == null ? Optional.empty() : find(decoded);
            if (s.isPresent()) {
                return s;
            }
        }
        return Optional.empty();
    }

    private static String decoded(String token) {
        try {
            byte[] raw = token.indexOf('-') >= 0 || token.indexOf('_') >= 0
                    ? java.util.Base64.getUrlDecoder().decode(token) : java.util.Base64.getDecoder().decode(token);
            String s = new String(raw, java.nio.charset.StandardCharsets.UTF_8);
            return s.chars().allMatch(c -> c >= 0x20 && c < 0x7f || c == '\n') ? s : null;
        } catch (IllegalArgumentException e) {
            return null; // not base64 after all
        }
    }

    /** The first shape {@code text} matches, or empty when it looks like no secret. */
    public static Optional<Shape> find(String text) {
        for (Shape s : SHAPES) {
            Matcher m = s.pattern().matcher(text);
            if (m.find()) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
