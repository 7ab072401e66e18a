package dev.monoagent.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where the control socket of a workspace's instance lives, computed the same way by server and client.
 *
 * <p>{@code $XDG_RUNTIME_DIR/mono-agent/<hash>.sock}, or {@code <java.io.tmpdir>/mono-agent-control-<user>/<hash>.sock} without
 * a runtime dir, in an owner-only (0700) directory; the hash is of the workspace's absolute path. Never in the
 * workspace: the socket accepts any peer of the same uid ({@code SO_PEERCRED}), and a sandbox sees the workspace.
 * Inside the sandbox {@code /run} and {@code /tmp} are private tmpfs, so no path there names this socket; srt's
 * seccomp filter refuses AF_UNIX sockets to sandboxed commands besides, but srt's own helpers (socat, bwrap,
 * apply-seccomp) run without that filter. The lock file stays in the workspace's write-protected state directory.
 */
public final class ControlEndpoint {
    /** Longest socket path the kernel accepts (sun_path is 108 bytes including the NUL). */
    static final int MAX_SOCKET_PATH = 107;

    private ControlEndpoint() {}

    /** The instance lock file; held (OS file lock) for as long as the instance lives. */
    public static Path lockFile(Path workspace) {
        return controlDir(workspace).resolve("instance.lock");
    }

    /** The directory holding the lock. */
    public static Path controlDir(Path workspace) {
        return workspace.toAbsolutePath().normalize().resolve(".mono-agent").resolve("control");
    }

    /** The socket path for a workspace: outside it, in a directory no sandbox sees (see the class comment). */
    public static Path socketPath(Path workspace) {
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        Path base = runtime != null && !runtime.isBlank()
                ? Path.of(runtime, "mono-agent")
                : Path.of(System.getProperty("java.io.tmpdir"), "mono-agent-control-" + System.getProperty("user.name"));
        return base.resolve(hash(workspace.toAbsolutePath().normalize().toString()) + ".sock");
    }

    /** Creates {@code dir} (and parents) and makes it owner-only. */
    static void ensurePrivateDir(Path dir) throws IOException {
        Files.createDirectories(dir);
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // non-POSIX file system: the peer-uid check still guards the endpoint
        }
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
