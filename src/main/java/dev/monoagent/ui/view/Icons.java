package dev.monoagent.ui.view;

import org.kordamp.ikonli.Ikon;
import org.kordamp.ikonli.javafx.FontIcon;

/** Icon factory: one place that picks glyphs and sizes, so panels look alike. */
final class Icons {
    private Icons() {}

    static FontIcon of(Ikon ikon, String styleClass) {
        FontIcon i = new FontIcon(ikon);
        i.setIconSize(15);
        i.getStyleClass().addAll("icon", styleClass);
        return i;
    }
}
