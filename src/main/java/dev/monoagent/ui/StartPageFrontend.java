package dev.monoagent.ui;

import dev.monoagent.agent.StartPage;
import java.nio.file.Path;
import java.util.Map;
import javafx.application.Application;

/** The start page for the CLI's {@code workbench} command (registered for {@code ServiceLoader}). */
public final class StartPageFrontend implements StartPage {
    @Override
    public int run(Path suggested, Map<String, String> env) {
        StartApp.CONTEXT = new StartApp.Context(suggested, env);
        try {
            Application.launch(StartApp.class);
        } catch (RuntimeException e) {
            throw new IllegalStateException("Cannot open the window: " + e.getMessage()
                    + " (there is no display; use the CLI: mono-agent init, sandbox setup, start --headless)", e);
        }
        return 0;
    }
}
