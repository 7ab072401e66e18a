package dev.monoagent.model.auth;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A second JVM for {@link CodexRefreshTest}: waits for the go file, asks for credentials once (refreshing if due)
 * and prints {@code TOKEN <access token>}, or {@code ERROR <message>}.
 */
public final class RefreshRaceMain {
    private RefreshRaceMain() {}

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[2]);
        Files.writeString(Path.of(args[3]), "ready");
        long deadline = System.currentTimeMillis() + 30_000;
        while (!Files.exists(go) && System.currentTimeMillis() < deadline) {
            Thread.sleep(2);
        }
        CodexAuth auth = CodexAuth.fromEnv(Map.of(CodexAuthSettings.ENV_CONFIG_DIR, args[0],
                CodexAuthSettings.ENV_ISSUER, args[1], CodexAuthSettings.ENV_CLIENT_ID, FakeAuthServer.CLIENT_ID));
        try {
            System.out.println("TOKEN " + auth.current().accessToken());
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e.getMessage());
        }
    }
}
