package dev.monoagent.agent;

import java.nio.file.Path;
import java.util.Map;

/**
 * The window started without a workspace (from the app menu): a start page with the recent workspaces, "Open
 * folder…" and, for a folder without a config, "Set up for review". Registered for {@code ServiceLoader} by the
 * window module, so the CLI's {@code workbench} command reaches it without depending on JavaFX.
 */
public interface StartPage {
    /**
     * Shows the start page (with {@code suggested} selected when not null) and runs until the window closes.
     *
     * @return the process exit code
     */
    int run(Path suggested, Map<String, String> env) throws Exception;
}
