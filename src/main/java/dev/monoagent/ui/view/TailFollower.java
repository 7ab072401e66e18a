package dev.monoagent.ui.view;

import javafx.application.Platform;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollBar;

/**
 * Keeps a virtualised list scrolled to its end while lines stream in, at most once per pulse and without
 * {@link ListView#scrollTo(int)}, which costs O(n) per call (≈ 150 ms at a million rows): it moves the vertical
 * scroll bar to its maximum instead, which the virtual flow maps to a position in O(1).
 */
final class TailFollower<T> implements ListChangeListener<T> {
    private final ListView<T> list;
    private boolean pending;

    private TailFollower(ListView<T> list) {
        this.list = list;
    }

    /** Follows {@code items}' tail in {@code list}; returns the listener so the caller can remove it. */
    static <T> TailFollower<T> follow(ListView<T> list, ObservableList<T> items) {
        TailFollower<T> f = new TailFollower<>(list);
        items.addListener(f);
        return f;
    }

    @Override
    public void onChanged(Change<? extends T> c) {
        if (pending) {
            return;
        }
        pending = true;
        Platform.runLater(() -> {
            pending = false;
            ScrollBar bar = verticalBar();
            if (bar != null) {
                bar.setValue(bar.getMax());
            } else if (!list.getItems().isEmpty()) {
                list.scrollTo(list.getItems().size() - 1);
            }
        });
    }

    private ScrollBar verticalBar() {
        for (Node n : list.lookupAll(".scroll-bar")) {
            if (n instanceof ScrollBar b && b.getOrientation() == Orientation.VERTICAL) {
                return b;
            }
        }
        return null;
    }
}
