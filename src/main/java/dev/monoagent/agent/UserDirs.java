package dev.monoagent.agent;

import java.nio.file.Path;
import java.util.Map;

/**
 * The per-user directories outside any workspace. The private cache (engine, pinned Node, self-check stamps) is
 * {@code sandbox.HostEnv#cacheRoot}; this is the config side: recent workspaces and the window's preferences, so an
 * uninstall leaves the user's files only in these two places. {@code $XDG_CONFIG_HOME/mono-agent} (default
 * {@code ~/.config/mono-agent}); macOS {@code ~/Library/Application Support/mono-agent}.
 */
public final class UserDirs {
    private UserDirs() {}

    /** The same dir the sign-in store uses ({@code MONO_AGENT_CONFIG_DIR} overrides), so one dir holds the user's state. */
    public static Path configDir(Map<String, String> env) {
        return dev.monoagent.host.HostEnv.defaultConfigRoot(env, Path.of(System.getProperty("user.home")));
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
