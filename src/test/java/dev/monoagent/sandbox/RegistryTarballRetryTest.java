package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry download asks again when the registry is busy for a moment (a 503 from the npm registry failed a
 * whole CI run once) and fails at once on an answer that will not change; a local server plays the registry.
 */
class RegistryTarballRetryTest {
    @TempDir
    Path tmp;

    private static final byte[] BODY = "tarball bytes\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void aBusyRegistryIsAskedAgainAndAFinalAnswerIsNot() throws Exception {
        String integrity = "sha512-" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-512")
                .digest(BODY));
        Deque<Integer> answers = new ArrayDeque<>();
        AtomicInteger asked = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/pkg.tgz", x -> {
            asked.incrementAndGet();
            int code = answers.isEmpty() ? 200 : answers.poll();
            byte[] b = code == 200 ? BODY : "busy".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(code, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/pkg.tgz";
        try {
            answers.add(503);
            answers.add(429);
            Path got = tmp.resolve("a.tgz");
            RegistryTarball.fetch(url, integrity, got);
            assertArrayEquals(BODY, Files.readAllBytes(got));
            assertEquals(3, asked.getAndSet(0), "asked again after 503 and 429");

            answers.add(404);
            IOException e = assertThrows(IOException.class, () -> RegistryTarball.fetch(url, integrity,
                    tmp.resolve("b.tgz")));
            assertTrue(e.getMessage().contains("HTTP 404"), e.getMessage());
            assertEquals(1, asked.getAndSet(0), "a 404 was asked again");

            answers.add(503);
            answers.add(502);
            answers.add(500);
            e = assertThrows(IOException.class, () -> RegistryTarball.fetch(url, integrity, tmp.resolve("c.tgz")));
            assertTrue(e.getMessage().contains("HTTP 500") && e.getMessage().contains("3 attempts"), e.getMessage());
            assertEquals(3, asked.get());
        } finally {
            server.stop(0);
        }
    }
}
