package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The race tests' attacker: a host thread doing to writable directories what a sandboxed process can do to them
 * (rename a directory away, put a symlink to a host secret directory in its place, rename it back), only faster.
 * Each round first runs {@code refill} (so whatever the host under test consumed is there again).
 */
public final class Swapper implements AutoCloseable {
    /** One directory to swap: {@code dir} is parked at {@code parked} while a symlink to {@code target} stands in. */
    public record Swap(Path dir, Path parked, Path target) {}

    /** What a round does before swapping. */
    public interface Refill {
        void run() throws IOException;
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong swaps = new AtomicLong();
    private final Thread thread;

    private Swapper(List<Swap> pairs, Refill refill) {
        thread = Thread.ofPlatform().name("swapper").start(() -> {
            while (!stop.get()) {
                try {
                    refill.run();
                    for (Swap s : pairs) {
                        Files.move(s.dir(), s.parked());
                        Files.createSymbolicLink(s.dir(), s.target());
                    }
                    Thread.onSpinWait();
                    for (Swap s : pairs) {
                        Files.delete(s.dir());
                        Files.move(s.parked(), s.dir());
                    }
                    swaps.incrementAndGet();
                } catch (IOException e) {
                    restore(pairs); // the host under test moved or deleted something meanwhile
                }
            }
        });
    }

    public static Swapper start(List<Swap> pairs, Refill refill) {
        return new Swapper(pairs, refill);
    }

    private static void restore(List<Swap> pairs) {
        for (Swap s : pairs) {
            try {
                if (Files.isSymbolicLink(s.dir())) {
                    Files.delete(s.dir());
                }
                if (Files.isDirectory(s.parked(), LinkOption.NOFOLLOW_LINKS) && !Files.exists(s.dir())) {
                    Files.move(s.parked(), s.dir());
                }
            } catch (IOException ignored) {
                // next round
            }
        }
    }

    /** Completed swap rounds so far. */
    public long swaps() {
        return swaps.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
    }
}
