package dev.monoagent.ui;

import javafx.scene.Scene;

/** Light and dark themes: one base stylesheet plus a colour overlay per theme. */
public enum Theme {
    LIGHT("light.css"), DARK("dark.css");

    private final String sheet;

    Theme(String sheet) {
        this.sheet = sheet;
    }

    /** Replaces the scene's stylesheets with base + this theme. */
    public void apply(Scene scene) {
        scene.getStylesheets().setAll(url("workbench.css"), url(sheet));
    }

    public Theme other() {
        return this == LIGHT ? DARK : LIGHT;
    }

    private static String url(String name) {
        return Theme.class.getResource(name).toExternalForm();
    }
}
