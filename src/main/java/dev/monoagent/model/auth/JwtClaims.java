package dev.monoagent.model.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * The payload of a JWT, decoded without checking the signature: we only read our own tokens, fetched over TLS from
 * the issuer, for display and routing (account id, expiry). Nothing here is an authorisation decision.
 */
record JwtClaims(JsonNode payload) {
    static final String AUTH_CLAIM = "https://api.openai.com/auth";
    static final String PROFILE_CLAIM = "https://api.openai.com/profile";
    private static final ObjectMapper JSON = new ObjectMapper();
    static final JwtClaims EMPTY = new JwtClaims(JSON.createObjectNode());

    /** Claims of {@code jwt}, or {@link #EMPTY} when it is absent or not a decodable JWT. */
    static JwtClaims of(String jwt) {
        if (jwt == null) {
            return EMPTY;
        }
        String[] parts = jwt.split("\\.");
        if (parts.length < 2) {
            return EMPTY;
        }
        try {
            byte[] raw = Base64.getUrlDecoder().decode(parts[1].replace('+', '-').replace('/', '_').replace("=", ""));
            JsonNode n = JSON.readTree(new String(raw, StandardCharsets.UTF_8));
            return n != null && n.isObject() ? new JwtClaims(n) : EMPTY;
        } catch (IllegalArgumentException | IOException e) {
            return EMPTY;
        }
    }

    String accountId() {
        return text(payload.path(AUTH_CLAIM).path("chatgpt_account_id"));
    }

    String plan() {
        return text(payload.path(AUTH_CLAIM).path("chatgpt_plan_type"));
    }

    String email() {
        String e = text(payload.path("email"));
        return e != null ? e : text(payload.path(PROFILE_CLAIM).path("email"));
    }

    Instant expiry() {
        JsonNode exp = payload.path("exp");
        return exp.isNumber() ? Instant.ofEpochSecond(exp.asLong()) : null;
    }

    private static String text(JsonNode n) {
        return n.isTextual() && !n.asText().isBlank() ? n.asText() : null;
    }
}
