package dev.monoagent.model.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The owner-only token store: {@code <dir>/auth.json} (mode 0600 in a 0700 dir), one entry per provider, written
 * atomically (temp file + rename) so a crash never leaves half a token. {@link #locked} serialises read-modify-write
 * across threads (a lock per store) and across processes ({@code auth.lock}, an OS file lock): refresh tokens are
 * single-use, so two refreshers must never send the same one.
 */
public final class AuthStore {
    static final String FILE = "auth.json";
    static final String LOCK = "auth.lock";
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** FileChannel.lock is per process: threads of one JVM queue on this first. */
    private static final Map<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

    private final Path dir;

    public AuthStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    public Path dir() {
        return dir;
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    /** Work that runs while holding the store lock. */
    @FunctionalInterface
    public interface LockedWork<T, E extends Exception> {
        T run() throws E;
    }

    /** Runs {@code work} holding the in-process and the cross-process lock of this store. */
    public <T, E extends Exception> T locked(LockedWork<T, E> work) throws E {
        ReentrantLock local = IN_PROCESS.computeIfAbsent(dir, d -> new ReentrantLock());
        local.lock();
        try {
            ensureDir();
            Path lockFile = dir.resolve(LOCK);
            try (FileChannel ch = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                    ownerOnly(OWNER_FILE));
                 FileLock ignored = ch.lock()) {
                return work.run();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot lock " + lockFile + ": " + e.getMessage(), e);
            }
        } finally {
            local.unlock();
        }
    }

    /** The stored sign-in for {@code provider}; empty when there is none. A corrupt file is an error, not "missing". */
    public Optional<CodexTokens> read(String provider) {
        JsonNode root = readRoot();
        JsonNode e = root.path(provider);
        if (!e.isObject()) {
            return Optional.empty();
        }
        return Optional.of(new CodexTokens(text(e, "id_token"), text(e, "access_token"), text(e, "refresh_token"),
                text(e, "account_id"), text(e, "email"), text(e, "plan"), instant(e, "expires_at"),
                instant(e, "last_refresh"), text(e, "origin"), text(e, "invalid_reason")));
    }

    public void write(String provider, CodexTokens t) {
        ObjectNode root = readRoot().deepCopy();
        ObjectNode e = root.putObject(provider);
        e.put("type", "oauth");
        put(e, "id_token", t.idToken());
        put(e, "access_token", t.accessToken());
        put(e, "refresh_token", t.refreshToken());
        put(e, "account_id", t.accountId());
        put(e, "email", t.email());
        put(e, "plan", t.plan());
        put(e, "expires_at", t.expiresAt() == null ? null : t.expiresAt().toString());
        put(e, "last_refresh", t.lastRefresh() == null ? null : t.lastRefresh().toString());
        put(e, "origin", t.origin());
        put(e, "invalid_reason", t.invalidReason());
        writeRoot(root);
    }

    /** Removes {@code provider}'s entry; true when there was one. The file goes when it holds nothing else. */
    public boolean delete(String provider) {
        ObjectNode root = readRoot().deepCopy();
        if (root.remove(provider) == null) {
            return false;
        }
        if (root.isEmpty()) {
            try {
                Files.deleteIfExists(file());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + file() + ": " + e.getMessage(), e);
            }
        } else {
            writeRoot(root);
        }
        return true;
    }

    private JsonNode readRoot() {
        Path f = file();
        if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
            return JSON.createObjectNode();
        }
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            throw new UncheckedIOException(new IOException(f + " is not a regular file; refusing to read credentials "
                    + "through it"));
        }
        try {
            tighten(f, OWNER_FILE);
            JsonNode n = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
            if (n == null || !n.isObject()) {
                throw new IOException("not a JSON object");
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the credential store " + f + ": " + e.getMessage()
                    + " (remove it and sign in again)", e);
        }
    }

    private void writeRoot(ObjectNode root) {
        ensureDir();
        Path tmp = dir.resolve(FILE + "." + ProcessHandle.current().pid() + "." + Thread.currentThread().getId()
                + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, ownerOnly(OWNER_FILE));
            Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root),
                    StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file(), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the credential store " + file() + ": " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // best effort: a leftover temp file is owner-only
            }
        }
    }

    private void ensureDir() {
        try {
            if (Files.isSymbolicLink(dir)) {
                throw new IOException(dir + " is a symbolic link; refusing to keep credentials through it");
            }
            if (!Files.isDirectory(dir)) {
                try {
                    Files.createDirectories(dir.getParent());
                    Files.createDirectory(dir, ownerOnly(OWNER_DIR));
                } catch (FileAlreadyExistsException race) {
                    // another process made it first
                }
            }
            tighten(dir, OWNER_DIR);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the credential dir " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void tighten(Path p, Set<PosixFilePermission> perms) throws IOException {
        try {
            if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(perms)) {
                Files.setPosixFilePermissions(p, perms);
            }
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system (Windows): the user profile's ACLs apply
        }
    }

    private static FileAttribute<?>[] ownerOnly(Set<PosixFilePermission> perms) {
        boolean posix = java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        return posix ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)} : new FileAttribute<?>[0];
    }

    private static void put(ObjectNode n, String k, String v) {
        if (v != null) {
            n.put(k, v);
        }
    }

    private static String text(JsonNode n, String k) {
        JsonNode v = n.path(k);
        return v.isTextual() ? v.asText() : null;
    }

    private static Instant instant(JsonNode n, String k) {
        String s = text(n, k);
        if (s == null) {
            return null;
        }
        try {
            return Instant.parse(s);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }
}
