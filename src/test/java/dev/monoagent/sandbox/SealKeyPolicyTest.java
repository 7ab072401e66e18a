package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.monoagent.common.Seal;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.LoadedConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seal key lives in the user config dir, which the compiled policy denies reading wherever it is (under home, or
 * moved elsewhere by {@code MONO_AGENT_CONFIG_DIR}); {@code CredentialIsolationTest} proves that denial with real
 * commands against the same directory.
 */
class SealKeyPolicyTest {
    @TempDir
    Path tmp;

    @Test
    void theSealKeyIsReadDeniedUnderHomeAndElsewhere() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path elsewhere = tmp.resolve("elsewhere/mono-agent");
        LoadedConfig plain = TestEngine.config(ws, NetworkMode.NONE, List.of());
        for (Map<String, String> env : List.of(Map.<String, String>of(),
                Map.of("MONO_AGENT_CONFIG_DIR", elsewhere.toString()))) {
            LoadedConfig lc = new LoadedConfig(plain.configPath(), false, ws, plain.config(), Map.of(), List.of(),
                    env);
            Policy p = PolicyCompiler.compile(lc, home, tmp.resolve("cache"));
            Path key = HostEnv.defaultConfigRoot(env, home).resolve(Seal.KEY_FILE);
            assertNotNull(p.readDenial(key), "the sandbox may read " + key);
        }
    }
}
