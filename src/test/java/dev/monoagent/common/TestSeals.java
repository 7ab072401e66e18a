package dev.monoagent.common;

import dev.monoagent.host.HostEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Test helper: seals a hand-written file as mono-agent would have, with the key {@code env} locates. */
public final class TestSeals {
    private TestSeals() {}

    public static Seal of(Map<String, String> env) throws IOException {
        // as the CLI harness does: the test run's reviewer config dir unless the test names another
        Map<String, String> e = new java.util.HashMap<>(env);
        String userDir = System.getenv("MONO_AGENT_CONFIG_DIR");
        if (userDir != null) {
            e.putIfAbsent("MONO_AGENT_CONFIG_DIR", userDir);
        }
        return Seal.at(HostEnv.defaultConfigRoot(e, Path.of(System.getProperty("user.home"))));
    }

    /** Seals the whole of {@code file} (inside workspace {@code ws}) with the process user's key. */
    public static void seal(Path ws, Path file) throws IOException {
        seal(ws, file, System.getenv());
    }

    public static void seal(Path ws, Path file, Map<String, String> env) throws IOException {
        byte[] b = Files.readAllBytes(file);
        of(env).seal(file, Seal.label(ws, file), b, 0, b.length);
    }
}
