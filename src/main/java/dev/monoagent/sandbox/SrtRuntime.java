package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The pinned srt engine: where it lives, whether its bytes are the ones we pinned, and how to (re)install it.
 *
 * <p>Resolution order (the contract's): a managed install in the private user cache, verified against
 * {@link #TREE_DIGEST}; a present-but-corrupt managed install is quarantined and a marker keeps the state
 * {@code corrupt} until {@code setup} repairs it, so it can never fall back to a PATH {@code srt}. Only when no managed
 * install exists is an {@code srt} on PATH considered, resolved to an absolute path and pinned (path + size +
 * SHA-256) once it has passed the self-check; a later replacement is {@code corrupt}.
 */
public final class SrtRuntime {
    public static final String PACKAGE = "@anthropic-ai/sandbox-runtime";
    public static final String VERSION = "0.0.78";
    /** SHA-256 tree digest of the installed {@code node_modules} (see {@link TreeDigest}); computed from a real install. */
    public static final String TREE_DIGEST = "2930b44d67f37b303ce1e5e10e1e84b12aa3ac25cc505d649d770ddb06720eb9";
    /** The vendored {@code apply-seccomp} helper of 0.0.78, per architecture. */
    static final Map<String, String> APPLY_SECCOMP_SHA256 = Map.of(
            "x64", "a6fdbdbe5875d32183754f1895c6e550300808e6297a07b569664b8beb2c5f17",
            "arm64", "f0028e7f699652428d7dd7f9ac1f03b383c7b2edddd2966f9bf473526b66a338");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwx------");

    /** Where the engine came from. */
    public enum Source {
        MANAGED("managed"), EXTERNAL("external"), ABSENT("absent"), CORRUPT("corrupt"), UNSUPPORTED("unsupported");
        private final String wire;
        Source(String w) { wire = w; }
        public String wire() { return wire; }
    }

    /**
     * The engine that would be used.
     *
     * @param source      managed, external, absent, corrupt or unsupported
     * @param installRoot the managed dir or the external package dir, or null
     * @param packageDir  the {@code @anthropic-ai/sandbox-runtime} package dir, or null
     * @param digest      the verified tree digest (managed) or the pinned cli SHA-256 (external), or null
     * @param detail      why not usable, or a one-line description
     * @param pinPending  an external srt that has not been pinned yet (pinned after its self-check passes)
     * @param verifiedAt  when the bytes were last verified, or null
     */
    public record Resolution(Source source, Path installRoot, Path packageDir, String digest, String detail,
                             boolean pinPending, Instant verifiedAt) {
        public boolean usable() {
            return source == Source.MANAGED || source == Source.EXTERNAL;
        }

        /** {@code srt (present)}, {@code srt (absent)}, {@code srt (corrupt: detail)}, ... */
        public String engineLine() {
            return switch (source) {
                case MANAGED, EXTERNAL -> "srt (present)";
                case ABSENT -> "srt (absent)";
                case CORRUPT -> "srt (corrupt: " + detail + ")";
                case UNSUPPORTED -> "srt (unsupported: " + detail + ")";
            };
        }

        Path indexJs() {
            return packageDir.resolve("dist/index.js");
        }

        Path cliJs() {
            return packageDir.resolve("dist/cli.js");
        }

        Path applySeccomp() {
            return packageDir.resolve("vendor/seccomp/" + arch() + "/apply-seccomp");
        }
    }

    private final HostEnv env;

    public SrtRuntime(HostEnv env) {
        this.env = env;
    }

    public Path versionDir() {
        return env.cacheRoot().resolve("tools/srt/" + VERSION);
    }

    /** {@code <cache>/tools/srt/0.0.78/<digest16>}: the managed install root. */
    public Path managedDir() {
        return versionDir().resolve(TREE_DIGEST.substring(0, 16));
    }

    Path quarantineDir() {
        return versionDir().resolve("quarantine");
    }

    private Path corruptMarker() {
        return versionDir().resolve("CORRUPT");
    }

    private Path stampFile() {
        return versionDir().resolve("verified.json");
    }

    Path externalPinFile() {
        return env.cacheRoot().resolve("tools/srt/external-pin.json");
    }

    static String arch() {
        String a = System.getProperty("os.arch", "");
        return a.equals("aarch64") || a.equals("arm64") ? "arm64" : "x64";
    }

    /**
     * Status without hashing anything (for {@code mono-agent status}): what is installed and when it was last
     * verified. Never used to decide that a command may run.
     */
    public Resolution cheapStatus() {
        if (Files.exists(corruptMarker())) {
            return new Resolution(Source.CORRUPT, managedDir(), null, null, readMarker(), false, null);
        }
        Path dir = managedDir();
        if (Files.isDirectory(dir)) {
            return new Resolution(Source.MANAGED, dir, dir.resolve("node_modules/" + PACKAGE), TREE_DIGEST,
                    "Managed SRT " + VERSION + " (last verified " + stampTime() + ").", false, stampTime());
        }
        return external(false);
    }

    /** Verifies the bytes and returns the engine to use. A corrupt managed tree is quarantined here. */
    public Resolution resolve() {
        if (Files.exists(corruptMarker())) {
            return new Resolution(Source.CORRUPT, managedDir(), null, null, readMarker(), false, null);
        }
        Path dir = managedDir();
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            String why = verifyManaged(dir);
            if (why == null) {
                Instant now = Instant.now();
                writeStamp(now);
                return new Resolution(Source.MANAGED, dir, dir.resolve("node_modules/" + PACKAGE), TREE_DIGEST,
                        "Managed SRT " + VERSION + " is integrity-verified.", false, now);
            }
            quarantine(dir, why);
            return new Resolution(Source.CORRUPT, dir, null, null, why, false, null);
        }
        return external(true);
    }

    /** Null when the managed tree matches the pin, else what is wrong. */
    String verifyManaged(Path dir) {
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                return "managed install root is not a directory";
            }
            Path nm = dir.resolve("node_modules");
            if (!Files.isDirectory(nm, LinkOption.NOFOLLOW_LINKS)) {
                return "node_modules missing";
            }
            String digest = TreeDigest.of(nm);
            if (!digest.equals(TREE_DIGEST)) {
                return "tree digest " + digest.substring(0, 12) + " does not match pinned " + TREE_DIGEST.substring(0, 12);
            }
            return null;
        } catch (IOException | UncheckedIOException e) {
            return "cannot verify tree: " + e.getMessage();
        }
    }

    private Resolution external(boolean hash) {
        Path srt = env.which("srt");
        if (srt == null) {
            return new Resolution(Source.ABSENT, null, null, null, "no managed install and no srt on PATH", false, null);
        }
        try {
            Path cli = srt.toRealPath();
            Path pkg = cli.getParent() == null ? null : cli.getParent().getParent();
            if (pkg == null || !Files.isRegularFile(pkg.resolve("package.json"))) {
                return new Resolution(Source.UNSUPPORTED, cli, null, null, "srt at " + cli + " is not an npm package",
                        false, null);
            }
            JsonNode pj = JSON.readTree(pkg.resolve("package.json").toFile());
            String version = pj.path("version").asText();
            if (!PACKAGE.equals(pj.path("name").asText()) || !VERSION.equals(version)) {
                return new Resolution(Source.UNSUPPORTED, pkg, pkg, null,
                        "srt at " + cli + " is " + version + ", mono-agent needs " + VERSION, false, null);
            }
            if (!hash) {
                return new Resolution(Source.EXTERNAL, pkg, pkg, null, "External srt at " + cli + ".", false, null);
            }
            long size = Files.size(cli);
            String sha = TreeDigest.sha256(cli);
            Path apply = pkg.resolve("vendor/seccomp/" + arch() + "/apply-seccomp");
            if (!Files.isRegularFile(apply) || !APPLY_SECCOMP_SHA256.get(arch()).equals(TreeDigest.sha256(apply))) {
                return new Resolution(Source.UNSUPPORTED, pkg, pkg, null,
                        "apply-seccomp of the external srt is missing or not the pinned binary", false, null);
            }
            Path pinFile = externalPinFile();
            if (Files.exists(pinFile)) {
                JsonNode pin = JSON.readTree(pinFile.toFile());
                if (!pin.path("path").asText().equals(cli.toString()) || pin.path("size").asLong() != size
                        || !pin.path("sha256").asText().equals(sha)) {
                    return new Resolution(Source.CORRUPT, pkg, pkg, null,
                            "external srt changed since it was pinned (" + pin.path("path").asText() + ")", false, null);
                }
                return new Resolution(Source.EXTERNAL, pkg, pkg, sha, "External srt " + cli + " matches its pin.",
                        false, Instant.now());
            }
            return new Resolution(Source.EXTERNAL, pkg, pkg, sha, "External srt " + cli + " (not yet pinned).", true,
                    Instant.now());
        } catch (IOException e) {
            return new Resolution(Source.UNSUPPORTED, null, null, null, "cannot inspect srt on PATH: " + e.getMessage(),
                    false, null);
        }
    }

    /** Records an external srt's identity after it passed the self-check; later changes are {@code corrupt}. */
    void pinExternal(Resolution r) throws IOException {
        Path cli = r.cliJs().toRealPath();
        Map<String, Object> pin = new LinkedHashMap<>();
        pin.put("path", cli.toString());
        pin.put("size", Files.size(cli));
        pin.put("sha256", TreeDigest.sha256(cli));
        pin.put("pinnedAt", Instant.now().toString());
        mkdirsPrivate(externalPinFile().getParent());
        Files.writeString(externalPinFile(), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(pin));
    }

    /**
     * Installs the pinned engine: {@code npm ci --ignore-scripts} into a staging dir, verify the tree digest, move
     * any corrupt install to quarantine, rename the staging dir into place. No PATH, global npm or system changes
     * (npm's cache is redirected into our cache dir).
     */
    public Resolution setup(HostTools tools, Consumer<String> progress) {
        Path vdir = versionDir();
        Path staging = vdir.resolve(".staging-" + UUID.randomUUID());
        try {
            mkdirsPrivate(vdir);
            Path current = managedDir();
            if (Files.exists(current) && !Files.exists(corruptMarker()) && verifyManaged(current) == null) {
                progress.accept("Managed SRT " + VERSION + " already installed and verified.");
                return resolve();
            }
            mkdirsPrivate(staging);
            for (String name : List.of("package.json", "package-lock.json")) {
                try (InputStream in = SrtRuntime.class.getResourceAsStream("engine/" + name)) {
                    if (in == null) {
                        throw new IOException("missing resource engine/" + name);
                    }
                    Files.write(staging.resolve(name), in.readAllBytes());
                }
            }
            Path npm = env.which("npm");
            progress.accept("Installing " + PACKAGE + "@" + VERSION + " into " + current + " ...");
            String err = npm != null ? npmCi(npm, tools, staging) : LockfileInstall.install(env, staging, progress);
            if (err != null) {
                return fail(staging, err);
            }
            privatize(staging);
            progress.accept("Verifying tree digest ...");
            String why = verifyManaged(staging);
            if (why != null) {
                return fail(staging, "fresh install does not match the pin: " + why);
            }
            if (Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
                quarantine(current, "replaced by setup");
            }
            try {
                Files.move(staging, current, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                return fail(staging, "cannot rename staging dir into place atomically");
            }
            Files.deleteIfExists(corruptMarker());
            progress.accept("Managed SRT " + VERSION + " is integrity-verified.");
            return resolve();
        } catch (IOException e) {
            return fail(staging, "setup failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(staging, "setup interrupted");
        }
    }

    /** {@code npm ci --ignore-scripts} in {@code staging} with the host's npm; null on success, else why not. */
    private String npmCi(Path npm, HostTools tools, Path staging) throws IOException, InterruptedException {
        List<String> cmd = List.of(npm.toString(), "ci", "--ignore-scripts", "--no-audit", "--no-fund",
                "--loglevel=error");
        ProcessBuilder pb = ChildProcesses.builder(cmd).directory(staging.toFile()).redirectErrorStream(true);
        Map<String, String> penv = pb.environment();
        penv.clear();
        penv.put("PATH", tools.node().getParent() + ":" + env.path());
        penv.put("HOME", env.home().toString());
        penv.put("npm_config_cache", env.cacheRoot().resolve("npm-cache").toString());
        penv.put("npm_config_update_notifier", "false");
        penv.put("npm_config_fund", "false");
        for (String k : List.of("npm_config_registry", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy",
                "http_proxy", "no_proxy", "LANG")) {
            String v = env.hostEnv().get(k);
            if (v != null) {
                penv.put(k, v);
            }
        }
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return "npm ci timed out";
        }
        if (p.exitValue() != 0) {
            String text = new String(out, StandardCharsets.UTF_8).trim();
            return "npm ci failed (exit " + p.exitValue() + "): "
                    + text.substring(0, Math.min(400, text.length()));
        }
        return null;
    }

    private Resolution fail(Path staging, String why) {
        deleteTree(staging);
        Resolution now = resolve();
        if (now.usable()) {
            return now;
        }
        return new Resolution(now.source() == Source.CORRUPT ? Source.CORRUPT : Source.ABSENT, managedDir(), null,
                null, why, false, null);
    }

    /** Moves a bad tree aside (nothing deleted) and leaves a marker so the state stays {@code corrupt}. */
    private void quarantine(Path dir, String why) {
        quarantine(versionDir(), dir, why);
    }

    /**
     * Moves {@code dir} into {@code <versionDir>/quarantine/} and, unless it is merely being replaced by setup, writes
     * {@code <versionDir>/CORRUPT} so the install stays {@code corrupt} until setup repairs it (shared by the managed
     * engine and the managed Node). When the move fails the marker still goes down: the tree is then rejected again
     * on every resolve.
     */
    static void quarantine(Path versionDir, Path dir, String why) {
        Path marker = versionDir.resolve("CORRUPT");
        try {
            Path q = versionDir.resolve("quarantine");
            mkdirsPrivate(q);
            Path dest = q.resolve(dir.getFileName() + "-" + System.currentTimeMillis());
            Files.move(dir, dest, StandardCopyOption.ATOMIC_MOVE);
            if (!why.equals("replaced by setup")) {
                Files.writeString(marker, why + " (quarantined to " + dest + ")");
            }
        } catch (IOException e) {
            try {
                Files.writeString(marker, why + " (quarantine failed: " + e.getMessage() + ")");
            } catch (IOException ignored) {
                // the tree stays in place and is re-verified (and rejected) on every resolve
            }
        }
    }

    /** The reason recorded in {@code <versionDir>/CORRUPT}, or {@code fallback}. */
    static String readMarker(Path versionDir, String fallback) {
        try {
            return Files.readString(versionDir.resolve("CORRUPT")).trim();
        } catch (IOException e) {
            return fallback;
        }
    }

    private String readMarker() {
        return readMarker(versionDir(), "managed install is corrupt");
    }

    private void writeStamp(Instant t) {
        try {
            Files.writeString(stampFile(), "{\"verifiedAt\":\"" + t + "\",\"digest\":\"" + TREE_DIGEST + "\"}");
        } catch (IOException ignored) {
            // the stamp only feeds the cheap status line
        }
    }

    private Instant stampTime() {
        try {
            return Instant.parse(JSON.readTree(stampFile().toFile()).path("verifiedAt").asText());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static void mkdirsPrivate(Path dir) throws IOException {
        List<Path> created = new ArrayList<>();
        for (Path p = dir; p != null && !Files.exists(p); p = p.getParent()) {
            created.add(p);
        }
        Files.createDirectories(dir);
        for (Path p : created) {
            Files.setPosixFilePermissions(p, DIR_PERMS);
        }
        // an existing dir (e.g. /tmp/mono-agent-<uid> in a shared /tmp) may have been planted by another user, or be
        // a symlink to one: session temp dirs and caches must live only in a real dir that we own, private to us
        BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw new IOException(dir + " is not a real directory (symlink or file)");
        }
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != HostTools.currentUid()) {
            throw new IOException(dir + " is owned by uid " + owner + ", not by us");
        }
        if (!Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(DIR_PERMS)) {
            Files.setPosixFilePermissions(dir, DIR_PERMS);
        }
    }

    /** Owner-only permissions over the whole tree (dirs 0700, files 0600 or 0700 when owner-executable). */
    static void privatize(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                Files.setPosixFilePermissions(d, DIR_PERMS);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                if (a.isRegularFile()) {
                    boolean x = Files.getPosixFilePermissions(f).contains(PosixFilePermission.OWNER_EXECUTE);
                    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(x ? "rwx------" : "rw-------"));
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        // two passes, never stopping at the first failure: a sandbox that just exited may still be releasing files
        for (int pass = 0; pass < 2 && Files.exists(root, LinkOption.NOFOLLOW_LINKS); pass++) {
            try {
                Files.walkFileTree(root, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                        return deleteOrRetryLater(f);
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path f, IOException e) {
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e) {
                        return deleteOrRetryLater(d);
                    }
                });
            } catch (IOException ignored) {
                // best effort for our own staging/temp dirs
            }
        }
    }

    /** Deletes a file or (empty) dir; a failure (still in use, not empty yet) is left for the next pass. */
    private static FileVisitResult deleteOrRetryLater(Path p) {
        try {
            Files.delete(p);
        } catch (IOException ignored) {
            // retried in the next pass
        }
        return FileVisitResult.CONTINUE;
    }
}
