package dev.monoagent.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SHA-256 digest of an installed {@code node_modules} tree, so one constant in source pins every byte the engine
 * can load. Each entry becomes one line ({@code D rel}, {@code F rel x|- sha256}, {@code L rel target}) in byte order
 * of the relative path; the digest is the SHA-256 of those lines. Permissions other than the owner-exec bit are
 * ignored because setup normalises them to owner-only. npm's own {@code node_modules/.package-lock.json} is left out:
 * it is metadata npm rewrites on its own and Node never loads it. An extra, missing or changed file changes the digest.
 */
final class TreeDigest {
    static final String EXCLUDED = ".package-lock.json";

    private TreeDigest() {}

    /**
     * Digest of {@code root} (a {@code node_modules} directory). Throws when a special file is present. The files are
     * hashed on every core: every sandbox start verifies the engine's ≈ 850 files (17 MB) before it runs any of them,
     * and the CLI's C1-only JVM hashes at ≈ 75 MB/s on one core.
     */
    static String of(Path root) throws IOException {
        Map<String, String> lines = new TreeMap<>();
        Map<String, Path> files = new TreeMap<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (!dir.equals(root)) {
                    String rel = rel(root, dir);
                    lines.put(rel, "D " + rel);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = rel(root, file);
                if (rel.equals(EXCLUDED)) {
                    return FileVisitResult.CONTINUE;
                }
                if (attrs.isSymbolicLink()) {
                    lines.put(rel, "L " + rel + " " + Files.readSymbolicLink(file));
                } else if (attrs.isRegularFile()) {
                    files.put(rel, file);
                } else {
                    throw new IOException("special file in engine tree: " + rel);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        Map<String, String> hashed = new java.util.concurrent.ConcurrentHashMap<>();
        try {
            files.entrySet().parallelStream().forEach(e -> {
                try {
                    boolean x = Files.getPosixFilePermissions(e.getValue(), LinkOption.NOFOLLOW_LINKS)
                            .contains(PosixFilePermission.OWNER_EXECUTE);
                    hashed.put(e.getKey(), "F " + e.getKey() + " " + (x ? "x" : "-") + " " + sha256(e.getValue()));
                } catch (IOException io) {
                    throw new java.io.UncheckedIOException(io);
                }
            });
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        lines.putAll(hashed);
        MessageDigest md = sha();
        for (String line : lines.values()) {
            md.update(line.getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static String sha256(Path file) throws IOException {
        MessageDigest md = sha();
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] buf = new byte[65536];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha().digest(bytes));
    }

    static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String rel(Path root, Path p) {
        return root.relativize(p).toString().replace('\\', '/');
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
