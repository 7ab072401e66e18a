package dev.monoagent.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * For tests whose workspace config is the test's own (a fake model server's baseUrl, a network mode the test needs):
 * loads it as a reviewer who accepted everything it holds back, in the test run's reviewer config dir. Tests of the
 * trust boundary itself use {@link ConfigLoader#load} and assert what waits.
 */
public final class Trusted {
    private Trusted() {}

    public static LoadedConfig load(ConfigLoader.Options o) throws ConfigException {
        Map<String, String> env = new HashMap<>(o.processEnv());
        String userDir = System.getenv("MONO_AGENT_CONFIG_DIR");
        if (userDir != null) {
            env.putIfAbsent("MONO_AGENT_CONFIG_DIR", userDir);
        }
        ConfigLoader.Options opts = new ConfigLoader.Options(o.cwd(), o.configPath(), o.envFile(), env);
        ConfigLoader.Pending p = ConfigLoader.pending(opts);
        WorkspaceTrust trust = p.trust();
        if (!trust.settled()) {
            try {
                ConfigLoader.accept(env, p.workspace(), trust);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ConfigLoader.load(opts);
    }
}
