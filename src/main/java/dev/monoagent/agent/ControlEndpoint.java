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
 * <p>Normally {@code <ws>/.mono-agent/control/instance.sock} in an owner-only (0700) directory. AF_UNIX paths are
 * limited to about 107 bytes, so a deep workspace uses {@code $XDG_RUNTIME_DIR/mono-agent/<hash>.sock} (or
 * {@code /tmp/mono-agent-<user>/<hash>.sock}) instead, also in a 0700 directory. The sandbox cannot reach either:
 * srt's seccomp filter refuses AF_UNIX sockets inside the sandbox and the state directory is write-protected; the
 * server additionally checks the peer's uid ({@code SO_PEERCRED}).
 */
public final class ControlEndpoint {
    /** Longest socket path the kernel accepts (sun_path is 108 bytes including the NUL). */
    static final int MAX_SOCKET_PATH = 107;

    private ControlEndpoint() {}

    /** The instance lock file; held (OS file lock) for as long as the instance lives. */
    public static Path lockFile(Path workspace) {
        return controlDir(workspace).resolve("instance.lock");
    }

    /** The directory holding the lock (and normally the socket). */
    public static Path controlDir(Path workspace) {
        return workspace.toAbsolutePath().normalize().resolve(".mono-agent").resolve("control");
    }

    /** The socket path for a workspace. */
    public static Path socketPath(Path workspace) {
        Path inWs = controlDir(workspace).resolve("instance.sock");
        if (inWs.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH) {
            return inWs;
        }
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        Path base = runtime != null && !runtime.isBlank()
                ? Path.of(runtime, "mono-agent")
                : Path.of(System.getProperty("java.io.tmpdir"), "mono-agent-" + System.getProperty("user.name"));
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
