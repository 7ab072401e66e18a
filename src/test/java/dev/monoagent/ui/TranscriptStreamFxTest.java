package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.ui.model.MessageEntry;
import dev.monoagent.ui.model.TranscriptEntry;
import dev.monoagent.ui.port.AgentPort;
import dev.monoagent.ui.task.FxTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A long answer streaming into the window, headless on Monocle: in every frame the end of the text is inside the
 * transcript's viewport; the list scrolls in steps (the streaming row grows into blank space), far less often than
 * the text gains a line; when the answer ends its last row takes its text's exact height, with the end still in view
 * and no blank space left under it.
 */
@ExtendWith(ApplicationExtension.class)
class TranscriptStreamFxTest {
    static {
        System.setProperty("headless.geometry", "1280x800-32");
    }

    private FxTaskExecutor executor;
    private Workbench wb;

    @Start
    void start(Stage stage) throws Exception {
        Path ws = Files.createTempDirectory("mono-ui-stream-").toRealPath();
        executor = new FxTaskExecutor();
        wb = WorkbenchRobot.openWithoutEngine(stage, ws, AgentPort.NONE, executor);
    }

    @AfterEach
    void tearDown() {
        if (wb != null) {
            wb.close();
        }
        if (executor != null) {
            executor.shutdown();
        }
        WorkbenchRobot.closeStages();
    }

    /** What one frame showed of the answer's last block (scene coordinates). */
    record Frame(Label label, double top, double bottom, double viewTop, double viewBottom) {}

    @Test
    void theEndOfAStreamingAnswerStaysInViewAndTheListScrollsInSteps() throws Exception {
        Node transcript = WaitForAsyncUtils.asyncFx(() -> wb.scene().getRoot().lookup(".transcript")).get();
        List<Frame> frames = new CopyOnWriteArrayList<>();
        AtomicReference<MessageEntry> last = new AtomicReference<>();
        Runnable pulse = () -> {
            MessageEntry m = last.get();
            if (m == null) {
                return;
            }
            for (Node n : transcript.lookupAll(".message-assistant")) {
                if (n instanceof Label l && l.getParent() instanceof ListCell<?> c && c.getItem() == m
                        && c.isVisible() && c.getParent() != null && c.getParent().isVisible()) {
                    Bounds b = l.localToScene(l.getLayoutBounds());
                    Bounds v = transcript.localToScene(transcript.getLayoutBounds());
                    frames.add(new Frame(l, b.getMinY(), b.getMaxY(), v.getMinY(), v.getMaxY()));
                    return;
                }
            }
            frames.add(new Frame(null, 0, 0, 0, 0)); // the streaming block is on no visible row
        };
        WaitForAsyncUtils.asyncFx(() -> {
            wb.scene().addPostLayoutPulseListener(pulse);
            wb.model().transcript().entries().addListener(
                    (javafx.collections.ListChangeListener<TranscriptEntry>) c -> {
                        while (c.next()) {
                            for (TranscriptEntry e : c.getAddedSubList()) {
                                if (e instanceof MessageEntry m && m.role() == MessageEntry.Role.ASSISTANT) {
                                    last.set(m);
                                }
                            }
                        }
                    });
        }).get();
        var sink = wb.model().events();
        sink.accept(new Event.UserMessage(Instant.now(), "r", "explain the repo"));
        // ~5 KB in words, a paragraph break now and then: more lines than the viewport holds, and several blocks
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 900; i++) {
            String d = (i % 97 == 96 ? "end.\n\n" : "word" + (i % 10) + " ");
            all.append(d);
            sink.accept(new Event.AssistantDelta(Instant.now(), "r", d));
            Thread.sleep(2);
        }
        WaitForAsyncUtils.waitForFxEvents();
        Thread.sleep(200); // a few frames
        WaitForAsyncUtils.waitForFxEvents();

        List<Frame> streamed = new ArrayList<>(frames);
        assertTrue(streamed.size() > 20, "frames seen while streaming: " + streamed.size());
        int lines = 0;
        int scrolls = 0;
        for (int i = 0; i < streamed.size(); i++) {
            Frame f = streamed.get(i);
            assertTrue(f.label() != null, "frame " + i + ": the streaming block is on no visible row");
            assertTrue(f.bottom() <= f.viewBottom() + 0.5 && f.bottom() > f.viewTop(),
                    "frame " + i + ": the answer's end is out of view: " + f);
            Frame p = i == 0 ? null : streamed.get(i - 1);
            if (p != null && p.label() == f.label()) {
                lines += Math.abs((f.bottom() - f.top()) - (p.bottom() - p.top())) > 0.5 ? 1 : 0;
                scrolls += Math.abs(f.top() - p.top()) > 0.5 ? 1 : 0;
            }
        }
        assertTrue(lines >= 20, "the text gained lines in " + lines + " frames");
        // per-line scrolling would scroll in about as many frames as gained a line; steps of a third of the viewport
        // hold about six lines each
        assertTrue(scrolls * 3 <= lines, scrolls + " scrolls for " + lines + " frames that gained a line");

        // the answer ends: exact height, the end still in view and at the viewport's bottom
        frames.clear();
        sink.accept(new Event.AssistantMessage(Instant.now(), "r", all.toString(), true));
        WaitForAsyncUtils.waitForFxEvents();
        Thread.sleep(100);
        WaitForAsyncUtils.waitForFxEvents();
        double[] gap = WaitForAsyncUtils.asyncFx(() -> {
            Frame f = frames.get(frames.size() - 1);
            ListCell<?> cell = (ListCell<?>) f.label().getParent();
            double exact = f.label().getHeight() + cell.snappedTopInset() + cell.snappedBottomInset();
            return new double[] {cell.getHeight() - exact, f.viewBottom() - f.bottom(), f.bottom() - f.viewTop()};
        }).get();
        assertEquals(0, gap[0], 1.0, "the ended answer's last row is taller than its text");
        assertTrue(gap[2] > 0 && gap[1] >= -0.5, "the ended answer's end is out of view");
        assertTrue(gap[1] < 30, "blank space under the ended answer: " + gap[1] + " px");
        String shown = WaitForAsyncUtils.asyncFx(() -> wb.model().transcript().entries().stream()
                .filter(e -> e instanceof MessageEntry m && m.role() == MessageEntry.Role.ASSISTANT)
                .map(e -> ((MessageEntry) e).textProperty().get()).reduce("", String::concat)).get();
        assertEquals(all.toString(), shown, "the whole answer, nothing hidden");
    }
}
