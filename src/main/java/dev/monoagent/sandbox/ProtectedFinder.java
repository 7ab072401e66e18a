package dev.monoagent.sandbox;

import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Lists every file in the workspace that the protection logic cares about — protected-glob matches, srt's built-in
 * dangerous names, and git control files of any (nested) repository — with no depth limit, no skipped dirs and no
 * entry cap, so there is no place to hide a secret or a hook from the deny list and the post-command scan.
 *
 * <p>ripgrep does the walk (parallel; ≈ 0.1–0.2 s on a 100k-file tree, a few ms on a normal workspace):
 * {@code --no-ignore --no-config} so agent-written {@code .gitignore}/{@code .rgignore}/{@code RIPGREP_CONFIG_PATH}
 * cannot hide anything, {@code --hidden} for dot files, and no {@code --follow} so no symlink leads outside. When rg
 * is absent or reports an error (an unreadable dir: its listing may be partial), an unbounded Java walk is used
 * instead (≈ 0.5 s per 100k entries), never a partial answer. rg does not list symlinks, fifos or devices: a
 * {@code find} pass adds them. A name that is not valid UTF-8 sends the whole listing to the Java walk, whose paths
 * keep the raw bytes (so the quarantine moves exactly that entry).
 */
final class ProtectedFinder {
    private ProtectedFinder() {}

    /**
     * Absolute paths of the interesting files under the workspace and every other writable root
     * ({@link Policy#guardedRoots}; {@code rg} null: Java walk).
     */
    static List<Path> find(Policy p, Path rg) {
        List<Path> out = new ArrayList<>();
        for (Path root : p.guardedRoots()) {
            if (Files.isDirectory(root)) {
                found(p, root, rg).stream().filter(f -> !inStateDir(p, f)).forEach(out::add);
            }
        }
        return out;
    }

    /**
     * Whether {@code f} is in the product's state dir ({@code .mono-agent/}: logs, runs, the quarantine). The whole
     * dir is denied to the sandbox, so nothing in it is the agent's doing; a quarantined file found there again would
     * be quarantined again, one level deeper per scan.
     */
    static boolean inStateDir(Policy p, Path f) {
        return f.startsWith(p.workspace().resolve(".mono-agent"));
    }

    private static List<Path> found(Policy p, Path root, Path rg) {
        if (rg != null) {
            List<Path> viaRg = ripgrep(p, root, rg);
            List<Path> specials = viaRg == null ? null : specials(p, root);
            if (viaRg != null && specials != null) {
                List<Path> all = new ArrayList<>(viaRg);
                all.addAll(specials);
                return all;
            }
        }
        return walk(p, root);
    }

    /** The rg globs for the workspace. */
    static List<String> globs(Policy p) {
        return globs(p, p.workspace());
    }

    /**
     * The rg globs below {@code root}: each protected glob and its contents, srt's dangerous names, git control files,
     * the host's own file names.
     */
    static List<String> globs(Policy p, Path root) {
        Set<String> g = new LinkedHashSet<>();
        for (String raw : p.denyWriteGlobs()) {
            String glob = raw.endsWith("/**") ? raw.substring(0, raw.length() - 3) : raw;
            if (glob.isEmpty() || Path.of(glob).isAbsolute()) {
                continue;
            }
            if (glob.contains("/")) {
                g.add("/" + glob);
                g.add("/" + glob + "/**");
            } else {
                g.add(glob);
                g.add("**/" + glob + "/**");
            }
        }
        g.add("**/.git/HEAD");
        // whole git control dirs and .git files of any repository, and bare layouts (HEAD next to objects/ refs/)
        g.add("**/.git");
        g.add("**/.git/*");
        g.add("**/HEAD");
        // protected host files (config, IDENTITY.md, env file): a new one is quarantined like a new .env.*
        for (Path lit : p.protectedLiterals()) {
            if (lit.startsWith(root) && !lit.equals(root) && !Files.isDirectory(lit)) {
                g.add("/" + root.relativize(lit));
            }
        }
        List<String> hostFiles = new ArrayList<>(Policy.HOST_FILE_NAMES);
        hostFiles.addAll(p.hostFileNames());
        for (String h : hostFiles) {
            g.add("**/" + h);
            g.add("**/" + h + "/**");
        }
        for (String h : Policy.HOST_EXECUTED) {
            g.add("**/" + h);
            g.add("**/" + h + "/**");
        }
        for (String e : Policy.GIT_CONTROL_ENTRIES) {
            g.add("**/.git/" + e);
            g.add("**/.git/" + e + "/**");
        }
        return List.copyOf(g);
    }

    /** srt's dangerous names, matched in any letter case as srt's own scan does ({@code --iglob}). */
    static List<String> iglobs() {
        List<String> g = new ArrayList<>(Policy.ENGINE_DANGEROUS_FILES);
        for (String d : Policy.ENGINE_DANGEROUS_DIRS) {
            g.add("**/" + d + "/**");
        }
        return List.copyOf(g);
    }

    private static List<Path> ripgrep(Policy p, Path root, Path rg) {
        List<String> cmd = new ArrayList<>(List.of(rg.toString(), "--files", "--hidden", "--no-ignore",
                "--no-config", "--no-messages", "--null"));
        for (String g : globs(p, root)) {
            cmd.add("-g");
            cmd.add(g);
        }
        for (String g : iglobs()) {
            cmd.add("--iglob");
            cmd.add(g);
        }
        // rg exits 1 when nothing matched
        byte[] bytes = listing(cmd, root, 1);
        return bytes == null ? null : bytes.length == 0 ? List.of() : decode(root, bytes);
    }

    /**
     * Runs a listing command in {@code dir} with an empty environment (bounded); its stdout, empty for exit code
     * {@code emptyExit}, or null on any other failure.
     */
    private static byte[] listing(List<String> cmd, Path dir, int emptyExit) {
        try {
            ProcessBuilder pb = ChildProcesses.builder(cmd).directory(dir.toFile());
            pb.environment().clear();
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            Process proc = pb.start();
            proc.getOutputStream().close();
            Future<byte[]> out = ProcessRunner.pump("rg-protected", () -> readAll(proc.getInputStream())).future();
            if (!proc.waitFor(60, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                return null;
            }
            byte[] bytes = out.get(10, TimeUnit.SECONDS);
            if (proc.exitValue() == emptyExit) {
                return new byte[0];
            }
            return proc.exitValue() == 0 ? bytes : null;
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * NUL-separated relative names → absolute paths, or null when one is not valid UTF-8: such a name cannot be
     * rebuilt from a String byte-exact, so the caller falls back to the Java walk, whose paths keep the raw bytes.
     */
    static List<Path> decode(Path ws, byte[] bytes) {
        List<Path> hits = new ArrayList<>();
        java.nio.charset.CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == 0) {
                if (i > start) {
                    String rel;
                    try {
                        rel = dec.decode(java.nio.ByteBuffer.wrap(bytes, start, i - start)).toString();
                    } catch (java.nio.charset.CharacterCodingException e) {
                        return null;
                    }
                    hits.add(ws.resolve(rel.startsWith("./") ? rel.substring(2) : rel).normalize());
                }
                start = i + 1;
            }
        }
        return hits;
    }

    /**
     * The entries rg never lists — symlinks, fifos, sockets, devices — that a protection rule selects ({@code find},
     * no symlink following); null when find is missing or fails, or a name is not valid UTF-8.
     */
    static List<Path> specials(Policy p, Path root) {
        Path find = Path.of("/usr/bin/find");
        if (!Files.isExecutable(find)) {
            find = Path.of("/bin/find");
        }
        List<String> cmd = List.of(find.toString(), "-P", ".", "-mindepth", "1", "(", "-type", "l", "-o", "-type", "p",
                "-o", "-type", "s", "-o", "-type", "b", "-o", "-type", "c", ")", "-print0");
        byte[] bytes = listing(cmd, root, -1);
        List<Path> all = bytes == null ? null : decode(root, bytes);
        return all == null ? null : all.stream().filter(f -> interesting(p, f)).toList();
    }

    private static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    /** Whether a file is one {@link #globs} selects (the same rule, for the Java walk). */
    static boolean interesting(Policy p, Path f) {
        Path root = p.rootOf(f);
        if (root == null) {
            return false;
        }
        String name = f.getFileName().toString();
        if (p.protectedGlob(f) != null || Policy.engineDangerousFile(name) || name.equals("HEAD")
                || p.protectedLiterals().contains(f)
                || name.equals(".git") || HostControl.hostExecuted(p, f) != null) {
            return true;
        }
        Path rel = root.relativize(f);
        for (int i = 0; i < rel.getNameCount(); i++) {
            String seg = rel.getName(i).toString();
            if (ProtectedScan.srtDangerous(seg) && !seg.equals(".git") && i < rel.getNameCount() - 1) {
                return true;
            }
            if (seg.equals(".git") && i < rel.getNameCount() - 1) {
                String next = rel.getName(i + 1).toString();
                return i == rel.getNameCount() - 2 || Policy.GIT_CONTROL_ENTRIES.contains(next);
            }
        }
        return false;
    }

    private static List<Path> walk(Policy p, Path root) {
        List<Path> hits = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                    if (interesting(p, f)) {
                        hits.add(f);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException ignored) {
            // walkFileTree reports per-entry failures above; the root itself vanished
        }
        return hits;
    }
}
