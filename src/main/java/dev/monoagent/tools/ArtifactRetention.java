package dev.monoagent.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Retention for spilled tool output ({@code .mono-agent/artifacts/tool-output/<run>/<call>.txt}): each spill is
 * bounded by the output caps, but their number is not, so after every spill the oldest files go until at most
 * {@link #MAX_FILES} files and {@link #MAX_BYTES} bytes remain. The file just written is always kept.
 */
final class ArtifactRetention {
    static final int MAX_FILES = 500;
    static final long MAX_BYTES = 256L << 20;

    private ArtifactRetention() {}

    record Entry(Path path, long size, long mtime) {}

    static void prune(Path root, Path keep) {
        prune(root, keep, MAX_FILES, MAX_BYTES);
    }

    static void prune(Path root, Path keep, int maxFiles, long maxBytes) {
        List<Entry> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isRegularFile()) {
                    all.add(new Entry(p, a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return; // a concurrent prune or a vanished run dir: the next spill prunes again
        }
        long total = all.stream().mapToLong(Entry::size).sum();
        all.sort(Comparator.comparingLong(Entry::mtime));
        int files = all.size();
        for (Entry e : all) {
            if (files <= maxFiles && total <= maxBytes) {
                break;
            }
            if (e.path().equals(keep)) {
                continue;
            }
            try {
                Files.deleteIfExists(e.path());
                files--;
                total -= e.size();
                Path dir = e.path().getParent();
                if (!dir.equals(root)) {
                    try (Stream<Path> left = Files.list(dir)) {
                        if (left.findAny().isEmpty()) {
                            Files.deleteIfExists(dir);
                        }
                    }
                }
            } catch (IOException ignored) {
                // in use or gone: counted as kept, the next prune tries again
            }
        }
    }
}
