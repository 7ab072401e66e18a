package dev.monoagent.ui;

import java.lang.management.ManagementFactory;
import javafx.application.Platform;

/**
 * Start-up measurement and AOT training: with {@code -Dmonoagent.exitWhenShown=true} the window records how long after
 * JVM start it became interactive (shown and the first event after it handled) in the system property
 * {@code monoagent.shownAfterMs}, which the CLI prints, and exits. The installer's AOT training run and the start-up
 * benchmark use it; a normal start never does.
 */
final class ReadyProbe {
    private ReadyProbe() {}

    static boolean exitWhenShown() {
        return Boolean.getBoolean("monoagent.exitWhenShown");
    }

    /** Call right after {@code stage.show()}. */
    static void shown() {
        if (!exitWhenShown()) {
            return;
        }
        Platform.runLater(() -> {
            System.setProperty("monoagent.shownAfterMs",
                    String.valueOf(ManagementFactory.getRuntimeMXBean().getUptime()));
            Platform.exit();
        });
    }
}
