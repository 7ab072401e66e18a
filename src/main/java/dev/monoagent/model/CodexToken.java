package dev.monoagent.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A ChatGPT access token and the account it acts for. {@link #toString()} never shows the token.
 *
 * @param accessToken the bearer token (a JWT)
 * @param accountId   the {@code chatgpt_account_id} sent as {@code chatgpt-account-id}
 */
public record CodexToken(String accessToken, String accountId) {

    /** The JWT claim object that carries the ChatGPT account. */
    public static final String AUTH_CLAIM = "https://api.openai.com/auth";

    @Override
    public String toString() {
        return "CodexToken[account=" + accountId + ", token=<redacted>]";
    }

    /**
     * Builds a token, reading the account id from the access token's {@value #AUTH_CLAIM} claim (payload decoded,
     * signature not checked: the backend checks it).
     *
     * @throws AuthRequiredException when the token is not a JWT or lacks the claim
     */
    public static CodexToken fromAccessToken(String jwt) throws AuthRequiredException {
        String id = accountId(jwt);
        if (id == null) {
            throw new AuthRequiredException("The stored ChatGPT token carries no account id; run: "
                    + CodexCredentials.LOGIN_COMMAND);
        }
        return new CodexToken(jwt, id);
    }

    /** The {@code chatgpt_account_id} of a JWT, or null when it has none or is not a JWT. */
    public static String accountId(String jwt) {
        JsonNode claims = claims(jwt);
        JsonNode id = claims == null ? null : claims.path(AUTH_CLAIM).get("chatgpt_account_id");
        return id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
    }

    /** The decoded payload of a JWT, or null when it is not one. */
    public static JsonNode claims(String jwt) {
        String[] parts = jwt == null ? new String[0] : jwt.split("\\.");
        if (parts.length < 2) {
            return null;
        }
        try {
            byte[] payload = Base64.getUrlDecoder().decode(parts[1].replace('+', '-').replace('/', '_')
                    .replace("=", ""));
            JsonNode n = new ObjectMapper().readTree(new String(payload, StandardCharsets.UTF_8));
            return n != null && n.isObject() ? n : null;
        } catch (IllegalArgumentException | java.io.IOException e) {
            return null;
        }
    }
}
