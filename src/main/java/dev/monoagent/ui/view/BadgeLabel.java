package dev.monoagent.ui.view;

import dev.monoagent.ui.model.Badge;
import java.util.Locale;
import javafx.beans.value.ObservableValue;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Region;
import org.kordamp.ikonli.materialdesign2.MaterialDesignS;

/**
 * The sandbox badge as a label: its headline never shortens (a reviewer must always read ENFORCING / BLOCKED /
 * UNSAFE), the full sentence is its tooltip. Used in the status bar and in the compact sandbox strip.
 */
final class BadgeLabel extends Label {
    private final Tooltip tip = new Tooltip();

    BadgeLabel(ObservableValue<Badge> badge) {
        getStyleClass().add("badge");
        setMinWidth(Region.USE_PREF_SIZE);
        setTooltip(tip);
        show(badge.getValue());
        badge.addListener((o, a, b) -> show(b));
    }

    private void show(Badge b) {
        setText(b.headline());
        tip.setText(b.text());
        getStyleClass().removeIf(c -> c.startsWith("badge-"));
        getStyleClass().add("badge-" + b.level().name().toLowerCase(Locale.ROOT));
        setGraphic(Icons.of(switch (b.level()) {
            case ENFORCING -> MaterialDesignS.SHIELD_CHECK;
            case OFF -> MaterialDesignS.SHIELD_OFF;
            default -> MaterialDesignS.SHIELD_ALERT;
        }, "badge-icon"));
    }
}
