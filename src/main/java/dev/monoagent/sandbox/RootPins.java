package dev.monoagent.sandbox;

import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where each root of a {@link Policy} really led when the policy was made. A root that did not exist then, or a path
 * on its way, can since have been made a link by a sandboxed command (inside a writable root); following the root
 * anew at each check would let the in-process file tools go wherever that link points. The tools only ever use the
 * pinned path.
 */
public final class RootPins {
    private final Map<Path, Path> real;

    private RootPins(Map<Path, Path> real) {
        this.real = Map.copyOf(real);
    }

    /** Pins every given root as it stands now. */
    static RootPins of(Collection<Path> roots) {
        Map<Path, Path> m = new LinkedHashMap<>();
        for (Path r : roots) {
            m.putIfAbsent(r, pin(r));
        }
        return new RootPins(m);
    }

    /** Where {@code root} led when the policy was made; a path the policy did not pin is resolved now. */
    public Path real(Path root) {
        Path p = real.get(root);
        return p != null ? p : pin(root);
    }

    /** A path's real location now: its longest existing prefix with every link resolved, the rest as written. */
    static Path pin(Path p) {
        return dev.monoagent.config.ConfigLoader.real(p);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RootPins other && real.equals(other.real);
    }

    @Override
    public int hashCode() {
        return real.hashCode();
    }

    @Override
    public String toString() {
        return "RootPins" + real;
    }
}
