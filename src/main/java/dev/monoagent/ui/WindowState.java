package dev.monoagent.ui;

import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;
import javafx.scene.control.SplitPane;
import javafx.stage.Screen;
import javafx.stage.Stage;

/**
 * Remembers window bounds, maximised state, split positions and theme between sessions (Java preferences, per user).
 * Bounds are only restored when they still fit on a screen.
 */
public final class WindowState {
    private static final System.Logger LOG = System.getLogger(WindowState.class.getName());
    private final Preferences prefs;

    public WindowState(Preferences prefs) {
        this.prefs = prefs;
    }

    public static WindowState forUser() {
        return new WindowState(Preferences.userRoot().node("dev/monoagent/workbench"));
    }

    public Theme theme() {
        try {
            return Theme.valueOf(prefs.get("theme", Theme.LIGHT.name()));
        } catch (IllegalArgumentException e) {
            return Theme.LIGHT;
        }
    }

    public void theme(Theme t) {
        prefs.put("theme", t.name());
    }

    public void restore(Stage stage, SplitPane horizontal, SplitPane vertical) {
        double x = prefs.getDouble("x", Double.NaN);
        double y = prefs.getDouble("y", Double.NaN);
        javafx.geometry.Rectangle2D screen = Screen.getPrimary().getVisualBounds();
        double w = Math.min(prefs.getDouble("w", 1440), screen.getWidth());
        double h = Math.min(prefs.getDouble("h", 900), screen.getHeight());
        stage.setWidth(w);
        stage.setHeight(h);
        if (!Double.isNaN(x) && !Screen.getScreensForRectangle(x, y, w, h).isEmpty()) {
            stage.setX(x);
            stage.setY(y);
        }
        stage.setMaximized(prefs.getBoolean("maximized", false));
        restoreDividers(horizontal, "h");
        restoreDividers(vertical, "v");
    }

    public void save(Stage stage, SplitPane horizontal, SplitPane vertical) {
        prefs.putBoolean("maximized", stage.isMaximized());
        if (!stage.isMaximized()) {
            prefs.putDouble("x", stage.getX());
            prefs.putDouble("y", stage.getY());
            prefs.putDouble("w", stage.getWidth());
            prefs.putDouble("h", stage.getHeight());
        }
        saveDividers(horizontal, "h");
        saveDividers(vertical, "v");
        try {
            prefs.flush();
        } catch (BackingStoreException e) {
            LOG.log(System.Logger.Level.DEBUG, "window state not saved: " + e.getMessage());
        }
    }

    private void restoreDividers(SplitPane p, String key) {
        String s = prefs.get("split-" + key, null);
        if (s == null) {
            return;
        }
        String[] parts = s.split(",");
        if (parts.length != p.getDividers().size()) {
            return;
        }
        double[] pos = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            pos[i] = Double.parseDouble(parts[i]);
        }
        p.setDividerPositions(pos);
    }

    private void saveDividers(SplitPane p, String key) {
        StringBuilder sb = new StringBuilder();
        for (double d : p.getDividerPositions()) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(d);
        }
        prefs.put("split-" + key, sb.toString());
    }
}
