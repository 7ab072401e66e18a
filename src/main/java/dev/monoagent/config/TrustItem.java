package dev.monoagent.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One setting that arrived with the workspace and is not used until the reviewer accepts it ({@code mono-agent
 * trust}). The digest covers the key, the exact value and its source, so any later change is a new item that needs a
 * new acceptance.
 *
 * @param key    the config key, env var or file it concerns (e.g. {@code sandbox.mode}, {@code IDENTITY.md})
 * @param value  the value as shown to the reviewer (secrets are named, never shown)
 * @param source the file it came from ({@code mono-agent.config.json}, {@code .env}, {@code IDENTITY.md})
 * @param kind   why it waits
 * @param digest SHA-256 over key, exact value and source, hex
 */
public record TrustItem(String key, String value, String source, Kind kind, String digest) {
    /** Why a workspace setting waits for the reviewer. */
    public enum Kind {
        WIDENS_SANDBOX("would widen the sandbox"),
        SENDS_CREDENTIAL("would send a credential or data to an endpoint"),
        INSTRUCTIONS("would become the agent's instructions"),
        RAISES_SPEND("would raise what a run may spend");

        private final String why;

        Kind(String why) {
            this.why = why;
        }

        public String why() {
            return why;
        }
    }

    /** An item whose digest is taken over {@code exact} (which may hold what {@code value} does not show). */
    static TrustItem of(String key, String value, String exact, String source, Kind kind) {
        return new TrustItem(key, value, source, kind, sha256(key + "\u0000" + exact + "\u0000" + source));
    }

    /**
     * One line for a list: {@code sandbox.mode = off (from .env: would widen the sandbox)}. Key, value and source come
     * from the repository, so their control characters are shown escaped: an escape sequence must not redraw what
     * the reviewer is asked to accept. A value that is already escaped (a {@code .env} item's quoted values) is shown
     * as it is.
     */
    public String line() {
        return shown(key) + " = " + shown(value) + " (from " + shown(source) + ": " + kind.why() + ")";
    }

    private static String shown(String s) {
        return dev.monoagent.common.Printable.oneLine(s);
    }

    /** A short form for a one-line notice: {@code sandbox.mode=off (.env)}. */
    public String shortForm() {
        String v = value.length() > 40 ? value.substring(0, 39) + "…" : value;
        return shown(key) + "=" + shown(v) + " (" + shown(source) + ")";
    }

    static String sha256(String s) {
        return sha256(s.getBytes(StandardCharsets.UTF_8));
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
