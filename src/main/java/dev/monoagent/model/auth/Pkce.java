package dev.monoagent.model.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * One PKCE pair (RFC 7636, method S256) plus the {@code state} that ties the browser's redirect to this attempt.
 * The verifier never leaves the process except in the code exchange.
 */
record Pkce(String verifier, String challenge, String state) {
    private static final SecureRandom RANDOM = new SecureRandom();

    static Pkce generate() {
        String verifier = randomUrlSafe(64);
        return new Pkce(verifier, challengeOf(verifier), randomUrlSafe(32));
    }

    static String randomUrlSafe(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** base64url(SHA-256(verifier)) without padding. */
    static String challengeOf(String verifier) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "Pkce[redacted]";
    }
}
