package dev.monoagent.ui;

import java.util.List;
import java.util.function.Supplier;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;
import javafx.geometry.Rectangle2D;
import javafx.scene.control.SplitPane;
import javafx.stage.Screen;
import javafx.stage.Stage;

/**
 * Remembers window bounds, maximised state, split positions and theme between sessions (Java preferences, per user).
 * Whatever was saved, the window opens no larger than a screen's visual bounds and fully on one screen: bounds saved
 * on a bigger monitor, or on one that is gone, are shrunk and moved rather than trusted. Without saved bounds the
 * first run gets a size that fills a laptop screen and stays moderate on a large one.
 */
public final class WindowState {
    private static final System.Logger LOG = System.getLogger(WindowState.class.getName());
    /** First-run size cap on big screens: enough for every panel without a wall of empty space. */
    static final double FIRST_RUN_MAX_W = 1600;
    static final double FIRST_RUN_MAX_H = 1000;
    /** Smallest window the layout is designed for (the sandbox panel collapses to a strip below ~1100 px). */
    static final double MIN_W = 760;
    static final double MIN_H = 520;

    private final Preferences prefs;
    private final Supplier<List<Rectangle2D>> screens;

    public WindowState(Preferences prefs) {
        this(prefs, WindowState::realScreens);
    }

    /** With the screens' visual bounds given (tests simulate a laptop screen on the headless one). */
    public WindowState(Preferences prefs, Supplier<List<Rectangle2D>> screens) {
        this.prefs = prefs;
        this.screens = screens;
    }

    public static WindowState forUser() {
        return new WindowState(Preferences.userRoot().node("dev/monoagent/workbench"));
    }

    /** Visual bounds of every screen, primary first. */
    static List<Rectangle2D> realScreens() {
        List<Rectangle2D> out = new java.util.ArrayList<>();
        out.add(Screen.getPrimary().getVisualBounds());
        for (Screen s : Screen.getScreens()) {
            if (!s.equals(Screen.getPrimary())) {
                out.add(s.getVisualBounds());
            }
        }
        return out;
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

    /** The bounds the window opens with: the saved ones made to fit a screen, or the first-run size. */
    public Rectangle2D bounds() {
        Rectangle2D saved = null;
        double x = prefs.getDouble("x", Double.NaN);
        double y = prefs.getDouble("y", Double.NaN);
        double w = prefs.getDouble("w", Double.NaN);
        double h = prefs.getDouble("h", Double.NaN);
        if (!Double.isNaN(x) && !Double.isNaN(y) && w > 0 && h > 0) {
            saved = new Rectangle2D(x, y, w, h);
        }
        return fit(saved, screens.get());
    }

    /** Sizes and places the stage at {@link #bounds()} and restores the splits. */
    public void restore(Stage stage, SplitPane horizontal, SplitPane vertical) {
        List<Rectangle2D> all = screens.get();
        Rectangle2D b = bounds();
        Rectangle2D screen = all.isEmpty() ? b : screenFor(b, all);
        stage.setMinWidth(Math.min(MIN_W, screen.getWidth()));
        stage.setMinHeight(Math.min(MIN_H, screen.getHeight()));
        stage.setX(b.getMinX());
        stage.setY(b.getMinY());
        stage.setWidth(b.getWidth());
        stage.setHeight(b.getHeight());
        stage.setMaximized(prefs.getBoolean("maximized", false));
        restoreDividers(horizontal, "h");
        restoreDividers(vertical, "v");
    }

    /**
     * The bounds to open with: {@code saved} shrunk to the visual bounds of the screen it overlaps most (the first
     * screen when it overlaps none) and moved fully onto it; without saved bounds, {@link #firstRun}.
     */
    static Rectangle2D fit(Rectangle2D saved, List<Rectangle2D> screens) {
        if (screens.isEmpty()) {
            return saved != null ? saved : new Rectangle2D(0, 0, FIRST_RUN_MAX_W, FIRST_RUN_MAX_H);
        }
        if (saved == null) {
            return firstRun(screens.get(0));
        }
        Rectangle2D s = screenFor(saved, screens);
        double w = Math.min(saved.getWidth(), s.getWidth());
        double h = Math.min(saved.getHeight(), s.getHeight());
        double x = clamp(saved.getMinX(), s.getMinX(), s.getMaxX() - w);
        double y = clamp(saved.getMinY(), s.getMinY(), s.getMaxY() - h);
        return new Rectangle2D(x, y, w, h);
    }

    /** A laptop screen (up to 1600×1000 visual) is filled; a larger one gets a centred 1600×1000 window. */
    static Rectangle2D firstRun(Rectangle2D s) {
        double w = Math.min(s.getWidth(), FIRST_RUN_MAX_W);
        double h = Math.min(s.getHeight(), FIRST_RUN_MAX_H);
        return new Rectangle2D(s.getMinX() + Math.floor((s.getWidth() - w) / 2),
                s.getMinY() + Math.floor((s.getHeight() - h) / 2), w, h);
    }

    /** The screen {@code r} overlaps most, or the first one. */
    private static Rectangle2D screenFor(Rectangle2D r, List<Rectangle2D> screens) {
        Rectangle2D best = screens.get(0);
        double bestArea = 0;
        for (Rectangle2D s : screens) {
            double iw = Math.min(r.getMaxX(), s.getMaxX()) - Math.max(r.getMinX(), s.getMinX());
            double ih = Math.min(r.getMaxY(), s.getMaxY()) - Math.max(r.getMinY(), s.getMinY());
            double area = iw > 0 && ih > 0 ? iw * ih : 0;
            if (area > bestArea) {
                best = s;
                bestArea = area;
            }
        }
        return best;
    }

    private static double clamp(double v, double lo, double hi) {
        return Math.max(lo, Math.min(v, hi));
    }

    /** True when split positions were saved (otherwise the caller applies its default split). */
    public boolean hasSavedSplit() {
        return prefs.get("split-h", null) != null;
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
        try {
            for (int i = 0; i < parts.length; i++) {
                pos[i] = Double.parseDouble(parts[i]);
                if (!(pos[i] > 0 && pos[i] < 1)) {
                    return;
                }
            }
        } catch (NumberFormatException e) {
            return;
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
