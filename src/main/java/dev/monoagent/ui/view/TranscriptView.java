package dev.monoagent.ui.view;

import dev.monoagent.common.Violation;
import dev.monoagent.ui.model.ViolationsModel;
import dev.monoagent.ui.model.MessageEntry;
import dev.monoagent.ui.model.ToolCard;
import dev.monoagent.ui.model.TranscriptEntry;
import dev.monoagent.ui.model.TranscriptModel;
import java.util.Locale;
import java.util.function.Consumer;
import javafx.beans.binding.Bindings;
import javafx.beans.value.ChangeListener;
import javafx.collections.ListChangeListener;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ToggleButton;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.kordamp.ikonli.materialdesign2.MaterialDesignA;
import org.kordamp.ikonli.materialdesign2.MaterialDesignC;
import org.kordamp.ikonli.materialdesign2.MaterialDesignL;

/**
 * The transcript: a virtualised list of messages and tool-call cards. A card shows the tool, its arguments, a status
 * chip, the duration, one red marker per violation (clicking selects it in the inspector), and its output in a nested
 * virtualised list (collapsible), so a card with a million lines costs only the visible rows.
 */
public final class TranscriptView extends ListView<TranscriptEntry> {
    /** Height of the output list of an expanded card. */
    static final double OUTPUT_HEIGHT = 220;

    public TranscriptView(TranscriptModel model, java.nio.file.Path workspace, Consumer<Violation> onViolation) {
        super(model.entries());
        getStyleClass().add("transcript");
        setCellFactory(lv -> new EntryCell(workspace, onViolation));
        // streamed text is laid out in the runnable that showed it, not at the next pulse (when the tab is showing):
        // the block's own label when its height stays (most deltas), the list when it grew a line or is new
        model.layoutWith(m -> {
            if (!showing()) {
                return;
            }
            EntryCell cell = cellOf(m);
            if (cell != null && cell.getWidth() > 0 && cell.getGraphic() instanceof Label) {
                double h = cell.prefHeight(cell.getWidth());
                if (Math.abs(h - cell.getHeight()) < 0.5) {
                    // same row height (most deltas: the streaming row grows a line into its blank space): only
                    // the row's label changed, nothing else on screen moves
                    cell.layout();
                    return;
                }
                if (!stepStreaming && isLast(m) && followingTail()
                        && lookup(".virtual-flow") instanceof javafx.scene.control.skin.VirtualFlow<?> flow) {
                    // the benchmark's baseline, the per-line scroll this replaced: grow the cell, scroll by that
                    double grow = h - cell.getHeight();
                    cell.resize(cell.getWidth(), h);
                    cell.layout();
                    flow.scrollPixels(grow);
                    return;
                }
            }
            // a new block, or the streaming row grew a step (once per several lines): the list lays out, and its end
            // is scrolled into view (growing the cell in place and scrolling the flow by the growth is not enough: the
            // flow's estimate of its length lags, and at either end of the list it does not scroll at all)
            applyCss();
            layout();
            if (isLast(m) && followingTail()
                    && lookup(".virtual-flow") instanceof javafx.scene.control.skin.VirtualFlow<?> flow) {
                flow.scrollTo(getItems().size() - 1);
                applyCss();
                layout();
            }
        });
        model.revealedProperty().addListener((o, a, card) -> {
            if (card != null) {
                scrollTo(card);
                getSelectionModel().select(card);
            }
        });
        // follow the tail while the reviewer is looking at the end
        model.entries().addListener((ListChangeListener<TranscriptEntry>) c -> {
            int n = model.entries().size();
            if (n > 0 && followingTail()) {
                scrollTo(n - 1);
            }
        });
    }

    /** Whether the view follows the end (nothing selected, or the selection is at the end). */
    private boolean followingTail() {
        int n = getItems().size();
        return getSelectionModel().isEmpty() || getSelectionModel().getSelectedIndex() >= n - 2;
    }

    private boolean isLast(MessageEntry m) {
        int n = getItems().size();
        return n > 0 && getItems().get(n - 1) == m;
    }

    /**
     * The visible cell showing {@code m}, or null (scrolled away, not created yet). The flow's hidden measuring cell
     * shows items too, so only a cell in a visible parent counts.
     */
    private EntryCell cellOf(MessageEntry m) {
        for (javafx.scene.Node n : lookupAll(".entry-cell")) {
            if (n instanceof EntryCell c && c.getItem() == m && c.isVisible() && c.getParent() != null
                    && c.getParent().isVisible()) {
                return c;
            }
        }
        return null;
    }

    private boolean showing() {
        if (getScene() == null || getScene().getWindow() == null || !getScene().getWindow().isShowing()) {
            return false;
        }
        for (javafx.scene.Node n = this; n != null; n = n.getParent()) {
            if (!n.isVisible()) {
                return false;
            }
        }
        return true;
    }

    /** A block continuing the previous one / a block a later one continues (one message's blocks join up). */
    private static final javafx.css.PseudoClass CONTINUATION = javafx.css.PseudoClass.getPseudoClass("continuation");
    private static final javafx.css.PseudoClass CONTINUED = javafx.css.PseudoClass.getPseudoClass("continued");

    /**
     * A streaming row's height is rounded up to a multiple of this share of the transcript's height, so the answer
     * grows into blank space and the list scrolls once per step, not once per line: a scroll moves every pixel of
     * the viewport, which the software pipeline repaints in 18–23 ms (vs ≈ 3 ms for the growing block alone), and a
     * repaint per line kept the render thread busy through most pulses (the UI thread waits for it). A third keeps
     * the end of the text within the viewport's last third, just above the blank space it grows into.
     */
    static final int STREAM_STEPS = 3;
    /**
     * Off: a streaming row takes its exact height and the list scrolls by each line's growth, as before the steps
     * (the benchmark's baseline only: the flow's length estimate lags, so that scroll can leave the end out of view).
     */
    private static volatile boolean stepStreaming = true;

    /** Whether streaming rows grow in steps (on in the product; {@code PromptBoxBenchmark} compares both). */
    public static void stepStreamingRows(boolean on) {
        stepStreaming = on;
    }

    private static final class EntryCell extends ListCell<TranscriptEntry> {
        private final Consumer<Violation> onViolation;
        private final java.nio.file.Path workspace;
        private ToolCard bound;
        private ChangeListener<Object> refresher;
        private ListChangeListener<Violation> violationsListener;
        private ListChangeListener<String> follower;
        private MessageEntry message;
        private ChangeListener<Boolean> continuedListener;
        private ChangeListener<Boolean> streamingListener;

        EntryCell(java.nio.file.Path workspace, Consumer<Violation> onViolation) {
            this.workspace = workspace;
            this.onViolation = onViolation;
            getStyleClass().add("entry-cell");
        }

        /** A streaming block's row is its text's height rounded up to a step (see {@link #STREAM_STEPS}). */
        @Override
        protected double computePrefHeight(double width) {
            double h = super.computePrefHeight(width);
            if (stepStreaming && message != null && message.streamingProperty().get() && getListView() != null) {
                double step = Math.floor(getListView().getHeight() / STREAM_STEPS);
                if (step >= 1) {
                    return Math.ceil(h / step) * step;
                }
            }
            return h;
        }

        @Override
        protected void updateItem(TranscriptEntry e, boolean empty) {
            super.updateItem(e, empty);
            unbind();
            setText(null);
            if (empty || e == null) {
                setGraphic(null);
                return;
            }
            if (e instanceof MessageEntry m && m.role() == MessageEntry.Role.REASONING) {
                message = m;
                setGraphic(reasoning(m));
                continuedListener = (o, a, b) -> {
                    if (message == m) {
                        setGraphic(reasoning(m));
                    }
                };
                m.expandedProperty().addListener(continuedListener);
            } else if (e instanceof MessageEntry m) {
                Label l = new Label();
                // a block that ends at a line break shows no empty last line (the next block starts the next line)
                l.textProperty().bind(Bindings.createStringBinding(() -> {
                    String t = m.textProperty().get();
                    return t.endsWith("\n") ? t.substring(0, t.length() - 1) : t;
                }, m.textProperty()));
                l.setWrapText(true);
                l.getStyleClass().addAll("message", "message-" + m.role().name().toLowerCase(Locale.ROOT));
                l.setMaxWidth(Double.MAX_VALUE);
                l.prefWidthProperty().bind(widthProperty().subtract(30));
                // the blocks of one long message read as one bubble
                message = m;
                pseudoClassStateChanged(CONTINUATION, m.continuation());
                continuedListener = (o, a, b) -> pseudoClassStateChanged(CONTINUED, b);
                m.continuedProperty().addListener(continuedListener);
                pseudoClassStateChanged(CONTINUED, m.continuedProperty().get());
                // the row takes its exact height once the block stops streaming
                streamingListener = (o, a, b) -> requestLayout();
                m.streamingProperty().addListener(streamingListener);
                setGraphic(l);
            } else if (e instanceof ToolCard c) {
                bound = c;
                setGraphic(card(c));
                refresher = (o, a, b) -> {
                    if (bound == c) {
                        setGraphic(card(c));
                    }
                };
                c.statusProperty().addListener(refresher);
                c.expandedProperty().addListener(refresher);
                violationsListener = ch -> {
                    if (bound == c) {
                        setGraphic(card(c));
                    }
                };
                c.violations().addListener(violationsListener);
            }
        }

        private void unbind() {
            if (message != null) {
                message.continuedProperty().removeListener(continuedListener);
                message.expandedProperty().removeListener(continuedListener);
                if (streamingListener != null) {
                    message.streamingProperty().removeListener(streamingListener);
                }
                message = null;
                continuedListener = null;
                streamingListener = null;
            }
            pseudoClassStateChanged(CONTINUATION, false);
            pseudoClassStateChanged(CONTINUED, false);
            if (bound != null && refresher != null) {
                bound.statusProperty().removeListener(refresher);
                bound.expandedProperty().removeListener(refresher);
                bound.violations().removeListener(violationsListener);
            }
            if (bound != null && follower != null) {
                bound.outputLines().removeListener(follower);
            }
            bound = null;
            refresher = null;
            violationsListener = null;
            follower = null;
        }

        /**
         * A reasoning summary: a muted, italic line with a toggle; collapsed it shows the summary's first line,
         * opened the whole text (it streams in either way).
         */
        private VBox reasoning(MessageEntry m) {
            boolean open = m.expandedProperty().get();
            ToggleButton toggle = new ToggleButton(open ? "Hide" : "Show");
            toggle.setSelected(open);
            toggle.getStyleClass().add("reasoning-toggle");
            toggle.setOnAction(ev -> m.expandedProperty().set(toggle.isSelected()));
            Label title = new Label("Reasoning summary");
            title.getStyleClass().add("reasoning-title");
            Label body = new Label();
            body.getStyleClass().add("reasoning-text");
            body.setMaxWidth(Double.MAX_VALUE);
            if (open) {
                body.textProperty().bind(m.textProperty());
                body.setWrapText(true);
                body.prefWidthProperty().bind(widthProperty().subtract(40));
            } else {
                body.textProperty().bind(Bindings.createStringBinding(() -> m.textProperty().get().strip().lines()
                        .findFirst().orElse(""), m.textProperty()));
                body.setTextOverrun(javafx.scene.control.OverrunStyle.ELLIPSIS);
            }
            Region spacer = new Region();
            HBox.setHgrow(spacer, Priority.ALWAYS);
            HBox header = new HBox(8, title, spacer, toggle);
            header.getStyleClass().add("reasoning-header");
            VBox box = new VBox(2, header, body);
            box.getStyleClass().addAll("message", "message-reasoning");
            box.setMaxWidth(Double.MAX_VALUE);
            box.prefWidthProperty().bind(widthProperty().subtract(30));
            return box;
        }

        private VBox card(ToolCard c) {
            String status = c.statusProperty().get();
            Label tool = new Label(c.tool(), Icons.of("NodeRepl".equals(c.tool())
                    ? MaterialDesignL.LANGUAGE_JAVASCRIPT : MaterialDesignC.CONSOLE, "tool-icon"));
            tool.getStyleClass().add("card-tool");
            Label args = new Label(c.args());
            args.getStyleClass().add("card-args");
            args.setMaxWidth(600);
            Label chip = new Label(status);
            chip.getStyleClass().addAll("status-chip", ToolCard.RUNNING.equals(status) ? "running"
                    : "ok".equals(status) ? "ok" : "failed");
            long ms = c.durationMsProperty().get();
            Label dur = new Label(ms < 0 ? "" : ms + " ms");
            dur.getStyleClass().add("card-duration");
            Region spacer = new Region();
            HBox.setHgrow(spacer, Priority.ALWAYS);
            ToggleButton toggle = new ToggleButton(c.expandedProperty().get() ? "Hide output" : "Show output");
            toggle.setSelected(c.expandedProperty().get());
            toggle.setOnAction(ev -> c.expandedProperty().set(toggle.isSelected()));
            Label count = new Label();
            count.textProperty().bind(Bindings.size(c.outputLines()).asString("%,d lines"));
            count.getStyleClass().add("card-duration");
            HBox header = new HBox(8, tool, args, spacer, count, dur, chip, toggle);
            header.getStyleClass().add("card-header");
            VBox box = new VBox(4, header);
            box.getStyleClass().add("tool-card");
            box.setUserData(c.callId());
            if (!c.violations().isEmpty()) {
                FlowPane markers = new FlowPane(6, 4);
                for (Violation v : c.violations()) {
                    String what = v.kind().name().toLowerCase(Locale.ROOT) + " denied: "
                            + ViolationsModel.targetText(v, t -> ViolationsView.relative(workspace, t));
                    Button b = new Button(what,
                            Icons.of(MaterialDesignA.ALERT_OCTAGON, "violation-icon"));
                    b.getStyleClass().add("violation-marker");
                    b.setOnAction(ev -> onViolation.accept(v));
                    markers.getChildren().add(b);
                }
                box.getChildren().add(markers);
            }
            if (!status.equals("ok") && !status.equals(ToolCard.RUNNING) && !c.resultTextProperty().get().isEmpty()) {
                Label err = new Label(c.resultTextProperty().get());
                err.getStyleClass().add("card-error");
                err.setWrapText(true);
                box.getChildren().add(err);
            }
            if (c.expandedProperty().get()) {
                ListView<String> out = new ListView<>(c.outputLines());
                out.getStyleClass().add("card-output");
                out.setFixedCellSize(18);
                out.prefHeightProperty().bind(Bindings.min(OUTPUT_HEIGHT,
                        Bindings.size(c.outputLines()).multiply(18).add(20)));
                out.setMinHeight(Region.USE_PREF_SIZE);
                box.getChildren().add(out);
                if (follower != null) {
                    c.outputLines().removeListener(follower);
                    follower = null;
                }
                if (ToolCard.RUNNING.equals(status)) {
                    follower = TailFollower.follow(out, c.outputLines());
                }
            }
            Label callId = new Label(c.callId());
            callId.getStyleClass().add("card-callid");
            header.getChildren().add(1, callId);
            return box;
        }
    }
}
