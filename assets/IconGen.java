import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.GeneralPath;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws the app icon (a shield around a shell prompt: "commands run inside a proven sandbox") and writes it in the
 * sizes each OS wants: PNGs for the Linux hicolor theme and jpackage, an .ico for Windows and an .icns for macOS.
 * Run from the repository root with a JDK: {@code java -Djava.awt.headless=true assets/IconGen.java}. The outputs are
 * committed; rerun only when the artwork changes.
 */
public class IconGen {
    static final int[] PNG_SIZES = {16, 24, 32, 48, 64, 128, 256, 512};

    public static void main(String[] args) throws IOException {
        Path out = Path.of("assets/icons");
        Files.createDirectories(out);
        Map<Integer, byte[]> png = new LinkedHashMap<>();
        for (int s : new int[] {16, 24, 32, 48, 64, 128, 256, 512, 1024}) {
            png.put(s, encode(draw(s)));
        }
        for (int s : PNG_SIZES) {
            Files.write(out.resolve("mono-agent-" + s + ".png"), png.get(s));
        }
        Files.write(out.resolve("mono-agent.png"), png.get(256));
        Files.write(out.resolve("mono-agent.ico"), ico(png, new int[] {16, 24, 32, 48, 64, 128, 256}));
        Files.write(out.resolve("mono-agent.icns"), icns(png));
    }

    static BufferedImage draw(int size) {
        BufferedImage img = new BufferedImage(size, size, BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        double u = size / 64.0;
        GeneralPath shield = new GeneralPath();
        shield.moveTo(32 * u, 3 * u);
        shield.lineTo(57 * u, 11 * u);
        shield.curveTo(57 * u, 36 * u, 48 * u, 52 * u, 32 * u, 61 * u);
        shield.curveTo(16 * u, 52 * u, 7 * u, 36 * u, 7 * u, 11 * u);
        shield.closePath();
        g.setPaint(new GradientPaint(0, 0, new Color(0x2E7D5B), 0, size, new Color(0x134E3A)));
        g.fill(shield);
        g.setColor(new Color(0x0B2E22));
        g.setStroke(new BasicStroke((float) Math.max(1, 2 * u)));
        g.draw(shield);
        g.setColor(new Color(0xF2F7F4));
        g.setStroke(new BasicStroke((float) Math.max(1.2, 5 * u), BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        GeneralPath chevron = new GeneralPath();
        chevron.moveTo(19 * u, 22 * u);
        chevron.lineTo(29 * u, 31 * u);
        chevron.lineTo(19 * u, 40 * u);
        g.draw(chevron);
        g.drawLine((int) Math.round(33 * u), (int) Math.round(41 * u), (int) Math.round(45 * u), (int) Math.round(41 * u));
        g.dispose();
        return img;
    }

    static byte[] encode(BufferedImage img) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ImageIO.write(img, "png", b);
        return b.toByteArray();
    }

    /** ICO with PNG-compressed entries (Vista and later). */
    static byte[] ico(Map<Integer, byte[]> png, int[] sizes) {
        int header = 6 + 16 * sizes.length;
        int total = header;
        for (int s : sizes) {
            total += png.get(s).length;
        }
        ByteBuffer bb = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        bb.putShort((short) 0).putShort((short) 1).putShort((short) sizes.length);
        int offset = header;
        for (int s : sizes) {
            byte[] data = png.get(s);
            bb.put((byte) (s >= 256 ? 0 : s)).put((byte) (s >= 256 ? 0 : s)).put((byte) 0).put((byte) 0);
            bb.putShort((short) 1).putShort((short) 32).putInt(data.length).putInt(offset);
            offset += data.length;
        }
        for (int s : sizes) {
            bb.put(png.get(s));
        }
        return bb.array();
    }

    /** ICNS with PNG entries: ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x), ic11 32 (16@2x), ic12 64 (32@2x). */
    static byte[] icns(Map<Integer, byte[]> png) throws IOException {
        Map<String, Integer> types = new LinkedHashMap<>();
        types.put("ic11", 32);
        types.put("ic12", 64);
        types.put("ic07", 128);
        types.put("ic08", 256);
        types.put("ic09", 512);
        types.put("ic10", 1024);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(body);
        for (Map.Entry<String, Integer> e : types.entrySet()) {
            byte[] data = png.get(e.getValue());
            d.writeBytes(e.getKey());
            d.writeInt(8 + data.length);
            d.write(data);
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        DataOutputStream a = new DataOutputStream(all);
        a.writeBytes("icns");
        a.writeInt(8 + body.size());
        a.write(body.toByteArray());
        return all.toByteArray();
    }
}
