package dev.monoagent.agent;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The per-user directories outside any workspace. The private cache (engine, pinned Node, self-check stamps) is
 * {@code sandbox.HostEnv#cacheRoot}; this is the config side: recent workspaces and the window's preferences, so an
 * uninstall leaves the user's files only in these two places. {@code $XDG_CONFIG_HOME/mono-agent} (default
 * {@code ~/.config/mono-agent}); macOS {@code ~/Library/Application Support/mono-agent}.
 */
public final class UserDirs {
    private UserDirs() {}

    public static Path configDir(Map<String, String> env) {
        Path home = Path.of(System.getProperty("user.home"));
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac")) {
            return home.resolve("Library/Application Support/mono-agent");
        }
        String xdg = env.get("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : home.resolve(".config");
        return base.resolve("mono-agent");
    }

    /**
     * Points Java's per-user preferences (window bounds, theme) into {@link #configDir} instead of {@code ~/.java},
     * unless the caller chose a location. Must run before the first {@code Preferences.userRoot()}.
     */
    public static void keepPreferencesInConfigDir(Map<String, String> env) {
        if (System.getProperty("java.util.prefs.userRoot") == null) {
            System.setProperty("java.util.prefs.userRoot", configDir(env).resolve("prefs").toString());
        }
    }
}
