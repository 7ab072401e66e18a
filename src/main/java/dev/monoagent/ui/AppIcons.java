package dev.monoagent.ui;

import java.io.InputStream;
import javafx.scene.image.Image;
import javafx.stage.Stage;

/** The app icon (drawn by {@code assets/IconGen.java}, copied into the jar by the build) on a window. */
final class AppIcons {
    private AppIcons() {}

    static void apply(Stage stage) {
        for (int size : new int[] {16, 32, 48, 64, 128, 256}) {
            try (InputStream in = AppIcons.class.getResourceAsStream("/dev/monoagent/ui/icons/mono-agent-" + size
                    + ".png")) {
                if (in != null) {
                    stage.getIcons().add(new Image(in));
                }
            } catch (java.io.IOException e) {
                // an icon is decoration; the window works without it
            }
        }
    }
}
