package dev.monoagent.host;

import java.util.Locale;

/**
 * The host operating system as the sandbox sees it: which engine path srt takes (bubblewrap + seccomp on Linux,
 * sandbox-exec with a Seatbelt profile on macOS), which probe set proves it, and where the private cache and the user
 * config live. Decided once from {@code os.name}; code that depends on it takes a {@code Platform} argument so the
 * macOS branches can be exercised on Linux without pretending to run there.
 */
public enum Platform {
    LINUX, MACOS, OTHER;

    private static final Platform CURRENT = of(System.getProperty("os.name", ""));

    /** The platform this JVM runs on. */
    public static Platform current() {
        return CURRENT;
    }

    /** The platform named by an {@code os.name} value ({@code Linux}, {@code Mac OS X}, ...). */
    public static Platform of(String osName) {
        String n = osName.toLowerCase(Locale.ROOT);
        if (n.contains("linux")) {
            return LINUX;
        }
        if (n.contains("mac") || n.contains("darwin")) {
            return MACOS;
        }
        return OTHER;
    }
}
