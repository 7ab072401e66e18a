package dev.monoagent.host;

import java.nio.file.Path;
import java.util.Map;

/**
 * The reviewer's per-user config dir: {@code MONO_AGENT_CONFIG_DIR}, else {@code ~/Library/Application
 * Support/mono-agent} on macOS, else {@code ${XDG_CONFIG_HOME:-~/.config}/mono-agent}. It holds the sign-in, the
 * user-level config ({@code config.json}) and the trust records, so it is located from the exported environment only:
 * a workspace {@code .env} never moves it.
 */
public final class UserConfigRoot {
    /** The user-level config file inside the dir: the reviewer's own settings, under the workspace's. */
    public static final String USER_CONFIG_FILE = "config.json";

    private UserConfigRoot() {}

    /** The dir for the exported environment {@code env} and home {@code home} on this OS. */
    public static Path of(Map<String, String> env, Path home) {
        return of(env, home, System.getProperty("os.name", "").startsWith("Mac"));
    }

    /** As {@link #of(Map, Path)} for macOS ({@code mac}) or another Unix. */
    public static Path of(Map<String, String> env, Path home, boolean mac) {
        String override = env.get("MONO_AGENT_CONFIG_DIR");
        if (override != null && !override.isBlank()) {
            return Path.of(override).toAbsolutePath().normalize();
        }
        if (mac) {
            return home.resolve("Library/Application Support/mono-agent");
        }
        String xdg = env.get("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : home.resolve(".config");
        return base.resolve("mono-agent");
    }
}
