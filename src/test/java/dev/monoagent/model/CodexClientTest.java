package dev.monoagent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.monoagent.model.auth.AuthRequiredException;
import dev.monoagent.model.auth.AuthUnavailableException;
import dev.monoagent.model.auth.CodexCredential;
import dev.monoagent.model.auth.CodexCredentials;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@code openai-codex} client against a fake ChatGPT backend: path, headers, body constraints, auth recovery. */
class CodexClientTest {
    final FakeModelServer server = FakeModelServer.start();

    @AfterEach
    void stop() {
        server.close();
    }

    static String jwt(String account) {
        String payload = "{\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + account
                + "\",\"chatgpt_plan_type\":\"plus\"},\"exp\":4102444800}";
        return "aaa." + Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8))
                + ".bbb";
    }

    /** A fixed sign-in that cannot recover from a 401. */
    static CodexCredentials fixed(String token, String account) {
        return new CodexCredentials() {
            @Override
            public CodexCredential current() {
                return new CodexCredential(token, account);
            }

            @Override
            public CodexCredential afterUnauthorized(CodexCredential rejected) {
                throw new AuthRequiredException("openai-codex", "The ChatGPT access token was refused.");
            }
        };
    }

    ModelClient client(CodexCredentials creds) {
        return ResponsesClient.codex(server.baseUrl() + "/backend-api", Turns.FAST, Duration.ofSeconds(90), creds);
    }

    @Test
    void speaksTheCodexBackendDialect() {
        String token = jwt("acc_test");
        server.enqueue(Reply.sse(Scripts.responses().reasoning("plan").text("hi").completed(5, 2).build()));
        Turns.Run r = Turns.run(client(fixed(token, "acc_test")), Turns.ask("hello"));
        assertEquals("hi", r.text());
        assertEquals("plan", r.reasoning());

        FakeModelServer.Recorded req = server.request(0);
        assertEquals("/backend-api/codex/responses", req.path());
        assertEquals(List.of("Bearer " + token), req.headers().get("authorization"), "exactly one bearer: the token");
        assertEquals("acc_test", req.header("chatgpt-account-id"));
        assertEquals("responses=experimental", req.header("openai-beta"));
        assertEquals(ResponsesClient.ORIGINATOR, req.header("originator"));
        assertEquals("sess-1", req.header("session_id"));
        assertTrue(req.header("accept").contains("text/event-stream"), req.header("accept"));
        assertNull(req.header("x-api-key"));
        assertNull(req.header(HttpCalls.TAG), "our cancel tag never leaves the process");
        JsonNode body = req.json();
        assertFalse(body.path("store").asBoolean(true), "the backend answers 400 unless store is false");
        assertTrue(body.path("stream").asBoolean());
        assertEquals("You are a test.", body.path("instructions").asText());
        assertEquals("[\"reasoning.encrypted_content\"]", body.path("include").toString());
        assertEquals("auto", body.at("/reasoning/summary").asText());
        assertTrue(body.path("max_output_tokens").isMissingNode(), "the backend rejects max_output_tokens");
    }

    @Test
    void rejectedTokenIsRecoveredOnce() {
        String old = jwt("acc_1");
        String fresh = jwt("acc_1") + "x";
        AtomicInteger recoveries = new AtomicInteger();
        CodexCredentials creds = new CodexCredentials() {
            @Override
            public CodexCredential current() {
                return new CodexCredential(old, "acc_1");
            }

            @Override
            public CodexCredential afterUnauthorized(CodexCredential rejected) {
                recoveries.incrementAndGet();
                assertEquals(old, rejected.accessToken());
                return new CodexCredential(fresh, "acc_1");
            }
        };
        server.enqueue(Reply.json(401, "{\"detail\":\"Unauthorized\"}"));
        server.enqueue(Reply.sse(Scripts.responses().text("ok").completed(1, 1).build()));
        Turns.Run r = Turns.run(client(creds), Turns.ask("x"));
        assertEquals("ok", r.text());
        assertEquals(1, recoveries.get());
        assertEquals("Bearer " + fresh, server.request(1).header("authorization"));
    }

    @Test
    void revokedSignInIsAuthRequiredNamingTheCommand() {
        server.enqueue(Reply.json(401, "{\"error\":{\"code\":\"token_revoked\",\"message\":\"revoked\"}}"));
        Turns.Run r = Turns.run(client(fixed(jwt("a"), "a")), Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertTrue(r.failed().message().contains("mono-agent auth login openai-codex"), r.failed().message());
        assertEquals(1, server.requests().size());
    }

    @Test
    void noSignInFailsBeforeAnyRequest() {
        Turns.Run r = Turns.run(client(new CodexCredentials() {
            @Override
            public CodexCredential current() {
                throw new AuthRequiredException("openai-codex", "No ChatGPT sign-in is stored for openai-codex.");
            }

            @Override
            public CodexCredential afterUnauthorized(CodexCredential rejected) {
                return current();
            }
        }), Turns.ask("x"));
        assertEquals(FailureKind.AUTH_REQUIRED, r.failed().kind());
        assertTrue(r.failed().message().contains("mono-agent auth login openai-codex"), r.failed().message());
        assertTrue(server.requests().isEmpty());
    }

    @Test
    void unreachableAuthServerIsTransientNotAuthRequired() {
        Turns.Run r = Turns.run(client(new CodexCredentials() {
            @Override
            public CodexCredential current() {
                throw new AuthUnavailableException("the authorization server did not answer");
            }

            @Override
            public CodexCredential afterUnauthorized(CodexCredential rejected) {
                return current();
            }
        }), Turns.ask("x"));
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertEquals(2, r.retries().size(), "retried like any transient failure");
        assertTrue(server.requests().isEmpty());
    }

    @Test
    void aTokenEchoedInARetryReasonIsRedacted() {
        String token = jwt("acc_r");
        server.enqueue(Reply.json(503, "{\"detail\":\"overloaded for " + token + "\"}"));
        server.enqueue(Reply.sse(Scripts.responses().text("ok").completed(1, 1).build()));
        Turns.Run r = Turns.run(client(fixed(token, "acc_r")), Turns.ask("x"));
        assertEquals("ok", r.text());
        assertFalse(r.events().toString().contains(token), r.events().toString());
    }

    @Test
    void usageLimitIsNotRetried() {
        server.enqueue(Reply.json(429, "{\"error\":{\"type\":\"usage_limit_reached\",\"message\":\"The usage limit "
                + "has been reached\",\"plan_type\":\"plus\",\"resets_at\":1767225600}}"));
        Turns.Run r = Turns.run(client(fixed(jwt("a"), "a")), Turns.ask("x"));
        assertEquals(FailureKind.USAGE_LIMIT, r.failed().kind());
        assertEquals(1, server.requests().size());
    }

    @Test
    void fastApiDetailErrorsAreShown() {
        server.enqueue(Reply.json(400, "{\"detail\":\"Instructions are not valid\"}"));
        Turns.Run r = Turns.run(client(fixed(jwt("a"), "a")), Turns.ask("x"));
        assertEquals(FailureKind.PROVIDER_UNAVAILABLE, r.failed().kind());
        assertTrue(r.failed().message().contains("Instructions are not valid"), r.failed().message());
        assertEquals(1, server.requests().size());
    }
}
