package dev.monoagent.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Remember refuses secret-shaped text (every shape, also dressed up) and keeps prose that only looks similar. */
class SecretShapesTest {
    @TempDir
    Path dir;

    // Built from pieces so this file itself is not a secret-scanner hit.
    private static String r(String unit, int times) {
        return unit.repeat(times);
    }

    static final List<String> SECRETS = List.of(
            "the key is sk-proj-" + r("Ab3dE5gH", 6),
            "OPENAI_API_KEY=sk-" + r("x1Y2z3W4", 5),
            "anthropic: sk-ant-api03-" + r("Q9w8E7r6", 6),
            "token ghp_" + r("a1B2c3D4e5F6", 3),
            "github_pat_" + r("11ABCDEFG0", 5),
            "glpat-" + r("aB3dE5gH9k", 2),
            "slack xoxb-123456789012-" + r("AbCdEf12", 3),
            "stripe sk_live_" + r("51HxYz", 5),
            "maps key AIza" + r("SyA1b2C3d4E5f6G", 2) + "12345",
            "GOCSPX-" + r("aB3dE5gH9kLm", 2) + "1234",
            "hf_" + r("aBcDeFgHiJ", 4),
            "npm_" + r("aBcDeFgHiJkL", 3),
            "SG." + r("aBcDeFgHiJk", 2) + "." + r("aBcDeFgHiJk", 3) + "aBcDeFgHiJ",
            "aws AKIA" + "IOSFODNN7" + "EXAMPLE",
            "aws_secret_access_key = " + r("wJalrXUtnFEMI/K7MDENG/", 1) + r("bPxRfiCYzz", 1) + "EXAMPLEKEY",
            "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + r("aBcD1234", 6) + "==",
            "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEow...",
            "-----BEGIN " + "OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXk",
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            "db at postgres://admin:hunter2secret@db.internal:5432/app",
            "mongodb+srv://svc:Sup3rS3cret@cluster0.example.net/test",
            "DATABASE_PASSWORD=correct-horse-battery",
            "export GITHUB_TOKEN=abcdef1234567890",
            "password: Tr0ub4dor&3x");

    static final List<String> LOOK_ALIKES = List.of(
            "Set OPENAI_API_KEY in your shell before running the agent.",
            "The sk- prefix marks OpenAI keys; never commit them.",
            "Rotate the AWS access keys every 90 days.",
            "Private keys live in ~/.ssh and are read-only.",
            "The JWT is validated in src/auth/Jwt.java with the eyJ header check.",
            "Connection string format is postgres://user@host:5432/db (no password in config).",
            "Use postgres://app:${DB_PASSWORD}@db/app so the password comes from the environment.",
            "API_KEY=<your-key-here> is the placeholder in .env.example.",
            "The password reset flow lives in auth/reset.ts.",
            "TOKEN_TTL is 3600 seconds.",
            "https://github.com/org/repo/pull/1234 fixed the login bug.",
            "Commit 3f9a2c1b7d0e4f5a6b8c9d0e1f2a3b4c5d6e7f80 introduced the regression.",
            "The build id is build-20261130-abcdef and the UUID 123e4567-e89b-12d3-a456-426614174000.",
            "ghp_ tokens are GitHub personal access tokens.");

    @Test
    void rejectsAtLeastTwelveDistinctSecretShapes() throws Exception {
        Set<String> shapes = new HashSet<>();
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            for (String s : SECRETS) {
                var r = m.remember(s);
                var rej = assertInstanceOf(MemoryStore.Remembered.Rejected.class, r, s);
                assertTrue(rej.reason().startsWith("text looks like a secret ("), rej.reason());
                assertFalse(rej.reason().contains(s.substring(Math.max(0, s.length() - 12))), "no echo: " + rej);
                shapes.add(SecretShapes.find(MemoryText.normalize(s)).orElseThrow().name());
            }
            assertEquals(0, m.journal().size());
        }
        assertTrue(shapes.size() >= 12, shapes.toString());
        assertTrue(!Files.exists(dir.resolve("daily")) || Files.list(dir.resolve("daily")).findAny().isEmpty());
    }

    @Test
    void fullwidthAndSpacedDisguisesAreFoldedBeforeTheCheck() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            String fullwidth = "ｓｋ－ｐｒｏｊ－" + r("Ab3dE5gH", 6); // NFKC folds these into sk-proj-...
            assertInstanceOf(MemoryStore.Remembered.Rejected.class, m.remember(fullwidth));
            assertInstanceOf(MemoryStore.Remembered.Rejected.class,
                    m.remember("  DATABASE_PASSWORD=\u3000correct-horse-battery"));
        }
    }

    /**
     * A letter-spaced key and a base64-encoded key must not be remembered (they would come back in every later turn's
     * recalled context). Both are looked through; what is still not (hex, a key split across words, prose like
     * "the password is ...") is said in README's memory row.
     */
    @Test
    void letterSpacedAndBase64EncodedKeysAreRefused() throws Exception {
        String key = "sk-proj-" + r("Ab3dE5gH", 6);
        String spaced = String.join(" ", key.split(""));
        String b64 = java.util.Base64.getEncoder().encodeToString(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            assertInstanceOf(MemoryStore.Remembered.Rejected.class, m.remember("remember: " + spaced), spaced);
            assertInstanceOf(MemoryStore.Remembered.Rejected.class, m.remember("the blob is " + b64 + " ok"), b64);
            // prose with short words and an ordinary base64 blob is still kept
            assertInstanceOf(MemoryStore.Remembered.Stored.class, m.remember("Steps a b c d e f are in the plan; "
                    + "the icon is " + java.util.Base64.getEncoder().encodeToString(r("png-bytes ", 4).getBytes())));
        }
    }

    @Test
    void acceptsLookAlikesThatAreNotSecrets() throws Exception {
        try (MemoryStore m = MemoryFixtures.lite(dir)) {
            for (String s : LOOK_ALIKES) {
                assertInstanceOf(MemoryStore.Remembered.Stored.class, m.remember(s), s);
            }
            assertEquals(LOOK_ALIKES.size(), m.journal().size());
        }
    }
}
