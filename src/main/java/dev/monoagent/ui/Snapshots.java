package dev.monoagent.ui;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.Node;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;

/** Node snapshot to PNG without javafx-swing; works headless (Monocle), used for README screenshots. */
public final class Snapshots {
    private Snapshots() {}

    /** Snapshots {@code node} (UI thread) and writes it as PNG to {@code target}. */
    public static void writePng(Node node, Path target) throws IOException {
        WritableImage img = node.snapshot(null, null);
        int w = (int) img.getWidth();
        int h = (int) img.getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        PixelReader r = img.getPixelReader();
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                out.setRGB(x, y, r.getArgb(x, y));
            }
        }
        Files.createDirectories(target.toAbsolutePath().getParent());
        ImageIO.write(out, "png", target.toFile());
    }
}
