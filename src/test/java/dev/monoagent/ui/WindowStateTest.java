package dev.monoagent.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import javafx.geometry.Rectangle2D;
import org.junit.jupiter.api.Test;

/** Where and how big the window opens, for saved bounds and screens of every kind (no toolkit needed). */
class WindowStateTest {
    private static final Rectangle2D LAPTOP = new Rectangle2D(0, 0, 1366, 728);
    private static final Rectangle2D RIGHT_4K = new Rectangle2D(1366, 0, 3840, 2100);

    @Test
    void firstRunFillsALaptopAndStaysModerateOnABigScreen() {
        assertEquals(LAPTOP, WindowState.fit(null, List.of(LAPTOP)));
        assertEquals(new Rectangle2D(1366 + 1120, 550, 1600, 1000), WindowState.fit(null, List.of(RIGHT_4K)));
    }

    @Test
    void boundsFromAMonitorThatIsGoneMoveOntoTheScreenThereIs() {
        Rectangle2D savedOn4k = new Rectangle2D(2000, 100, 2560, 1440);
        assertEquals(LAPTOP, WindowState.fit(savedOn4k, List.of(LAPTOP)));
    }

    @Test
    void boundsStayOnTheMonitorTheyMostlyOverlapAndAreClampedToIt() {
        Rectangle2D straddling = new Rectangle2D(1000, -50, 2000, 1200);
        assertEquals(new Rectangle2D(1366, 0, 2000, 1200), WindowState.fit(straddling, List.of(LAPTOP, RIGHT_4K)));
        Rectangle2D fits = new Rectangle2D(100, 50, 800, 600);
        assertEquals(fits, WindowState.fit(fits, List.of(LAPTOP, RIGHT_4K)));
    }

    @Test
    void offScreenBoundsComeBackFully() {
        Rectangle2D farLeft = new Rectangle2D(-5000, 300, 1200, 700);
        assertEquals(new Rectangle2D(0, 28, 1200, 700), WindowState.fit(farLeft, List.of(LAPTOP)));
    }
}
