package dev.monoagent.model.auth;

import dev.monoagent.common.ChildProcesses;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Opens the sign-in address in the user's browser, for the CLI and the window alike: {@code $BROWSER} (a command;
 * {@code %s} or the end of the line gets the URL), else {@code open} on macOS, else {@code xdg-open} when a display
 * is set. Never waits for the browser.
 */
public final class BrowserOpener {
    private BrowserOpener() {}

    /** Starts the browser; returns a note for the user, or null when no browser could be determined. */
    public static String open(Map<String, String> env, URI url) {
        List<String> cmd = new ArrayList<>();
        String browser = env.get("BROWSER");
        if (browser != null && !browser.isBlank()) {
            String first = browser.split(":")[0].strip();
            for (String part : first.split("\\s+")) {
                cmd.add(part.equals("%s") ? url.toString() : part);
            }
            if (!first.contains("%s")) {
                cmd.add(url.toString());
            }
        } else if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac")) {
            cmd.addAll(List.of("open", url.toString()));
        } else if (env.containsKey("DISPLAY") || env.containsKey("WAYLAND_DISPLAY")) {
            cmd.addAll(List.of("xdg-open", url.toString()));
        } else {
            return null;
        }
        try {
            ChildProcesses.builder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            return "Opened the browser (" + cmd.get(0) + ").";
        } catch (IOException e) {
            return "Could not start a browser (" + cmd.get(0) + "); open the address yourself.";
        }
    }
}
