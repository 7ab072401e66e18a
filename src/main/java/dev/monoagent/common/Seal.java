package dev.monoagent.common;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proof that a file under {@code .mono-agent/} was written by mono-agent on this machine, for this user. A repository
 * under review can carry a {@code .mono-agent/} of its own (memory that would be recalled as the reviewer's, run logs
 * that would list as clean runs); nothing in a workspace can tell the two apart, so the product seals what it writes
 * and reads back only what is sealed.
 *
 * <p>The key is 32 random bytes in {@code seal.key} in the user's config dir (outside every workspace, created 0600 on
 * first use; the sandbox policy denies reading that dir). A seal is a sidecar {@code <file>.seal} listing byte
 * ranges of the file, each with an HMAC-SHA256 over the file's workspace-relative path, the range's start and its
 * bytes:
 *
 * <pre>
 * v1 &lt;from&gt; &lt;to&gt; &lt;hex mac&gt;
 * </pre>
 *
 * Ranges let an append-only writer seal what it appended (a run log sealed as it goes, a journal day that another
 * process or a crash left partly unsealed) without ever vouching for bytes it did not write. A reader keeps only
 * content inside valid ranges ({@link Check}); a range whose MAC fails marks the whole file tampered.
 */
public final class Seal {
    /** The key's file name in the user config dir. */
    public static final String KEY_FILE = "seal.key";
    /** The sidecar's suffix. */
    public static final String SUFFIX = ".seal";
    private static final int KEY_BYTES = 32;
    private static final String ALGO = "HmacSHA256";
    private static final Map<Path, Seal> CACHE = new ConcurrentHashMap<>();

    private final Path keyFile;
    private final SecretKeySpec key;

    private Seal(Path keyFile, byte[] key) {
        this.keyFile = keyFile;
        this.key = new SecretKeySpec(key, ALGO);
    }

    /**
     * The seal of the user whose config dir is {@code configRoot}, creating its key (0600, in a 0700 dir) on first use.
     *
     * @throws IOException when the key cannot be read or made (names the file)
     */
    public static Seal at(Path configRoot) throws IOException {
        Path f = configRoot.toAbsolutePath().normalize().resolve(KEY_FILE);
        Seal s = CACHE.get(f);
        if (s == null) {
            s = new Seal(f, loadOrCreate(f));
            Seal prev = CACHE.putIfAbsent(f, s);
            s = prev != null ? prev : s;
        }
        return s;
    }

    public Path keyFile() {
        return keyFile;
    }

    private static byte[] loadOrCreate(Path f) throws IOException {
        byte[] k = read(f);
        if (k != null) {
            return k;
        }
        Path dir = f.getParent();
        boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
        if (!Files.isDirectory(dir)) {
            if (posix) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
        }
        byte[] fresh = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(fresh);
        Path tmp = dir.resolve(KEY_FILE + "." + Long.toHexString(System.nanoTime()) + ".tmp");
        FileAttribute<?>[] attrs = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        try (var ch = Files.newByteChannel(tmp, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), attrs)) {
            ch.write(java.nio.ByteBuffer.wrap(fresh));
            ((java.nio.channels.FileChannel) ch).force(true);
        }
        try {
            Files.move(tmp, f);
            return fresh;
        } catch (FileAlreadyExistsException raced) {
            // another process made it first: use theirs
            byte[] theirs = read(f);
            if (theirs == null) {
                throw new IOException("the seal key " + f + " vanished while it was being created");
            }
            return theirs;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The key's bytes, or null when there is no key file yet. */
    private static byte[] read(Path f) throws IOException {
        if (Files.isSymbolicLink(f)) {
            throw new IOException("the seal key " + f + " is a symbolic link; mono-agent keeps it as a plain file "
                    + "(move it away to make a new one)");
        }
        if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        byte[] k;
        try {
            k = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (k.length != KEY_BYTES) {
            throw new IOException("the seal key " + f + " holds " + k.length + " bytes, not " + KEY_BYTES
                    + "; move it away to make a new one (what it sealed then counts as not written here)");
        }
        return k;
    }

    /** {@code file} relative to {@code root} with {@code /} separators (absolute when outside it). */
    public static String label(Path root, Path file) {
        Path r = root.toAbsolutePath().normalize();
        Path f = file.toAbsolutePath().normalize();
        Path rel = f.startsWith(r) ? r.relativize(f) : f;
        return rel.toString().replace(java.io.File.separatorChar, '/');
    }

    /** The sidecar of {@code file}. */
    public static Path sidecar(Path file) {
        return file.resolveSibling(file.getFileName() + SUFFIX);
    }

    /** A running MAC over one range, fed as its bytes are written. */
    public final class Chain {
        private final Mac mac;
        private final String label;
        private final long from;
        private long to;
        private boolean pruned;

        private Chain(String label, long from) {
            this.mac = newMac();
            this.label = label;
            this.from = from;
            this.to = from;
            mac.update(prefix(label, from));
        }

        public void update(byte[] b) {
            update(b, 0, b.length);
        }

        public void update(byte[] b, int off, int len) {
            mac.update(b, off, len);
            to += len;
        }

        public long from() {
            return from;
        }

        public long to() {
            return to;
        }

        /** The MAC of the bytes so far (the chain goes on). */
        String value() {
            try {
                return HexFormat.of().formatHex(((Mac) mac.clone()).doFinal());
            } catch (CloneNotSupportedException e) {
                throw new IllegalStateException(ALGO + " cannot be cloned", e);
            }
        }

        /**
         * Records the range so far in {@code file}'s sidecar (atomically replacing its previous extent). The first
         * write also drops the sidecar's ranges that do not verify (a seal that came with the repository, or one made
         * with another key), so they cannot spoil the file's own.
         */
        public void write(Path file) throws IOException {
            if (!pruned) {
                byte[] content = Files.readAllBytes(file);
                writeRange(file, from, to, value(), l -> valid(l, label, content));
                pruned = true;
            } else {
                writeRange(file, from, to, value(), l -> true);
            }
        }
    }

    /** Starts a range at byte {@code from} of the file labelled {@code label}. */
    public Chain chain(String label, long from) {
        return new Chain(label, from);
    }

    /** The MAC of {@code content[from, to)} of the file labelled {@code label}. */
    public String mac(String label, byte[] content, long from, long to) {
        Mac m = newMac();
        m.update(prefix(label, from));
        m.update(content, (int) from, (int) (to - from));
        return HexFormat.of().formatHex(m.doFinal());
    }

    private Mac newMac() {
        try {
            Mac m = Mac.getInstance(ALGO);
            m.init(key);
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGO + " is not available", e);
        }
    }

    private static byte[] prefix(String label, long from) {
        return ("mono-agent seal v1\n" + label + "\n" + from + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Adds (or widens: same {@code from}) one range in {@code file}'s sidecar, keeping the other ranges that pass
     * {@code keep}, and replaces the sidecar atomically.
     */
    private static void writeRange(Path file, long from, long to, String mac,
                                   java.util.function.Predicate<String> keepLine) throws IOException {
        Path side = sidecar(file);
        List<String> keep = new ArrayList<>();
        try {
            for (String l : Files.readAllLines(side, StandardCharsets.UTF_8)) {
                String[] p = l.split(" ");
                if (p.length == 4 && p[0].equals("v1") && !p[1].equals(Long.toString(from)) && keepLine.test(l)) {
                    keep.add(l);
                }
            }
        } catch (NoSuchFileException | java.nio.charset.MalformedInputException e) {
            // none yet (or not ours): start afresh
        }
        keep.add("v1 " + from + " " + to + " " + mac);
        Path tmp = side.resolveSibling(side.getFileName() + "." + Long.toHexString(System.nanoTime()) + ".tmp");
        Files.writeString(tmp, String.join("\n", keep) + "\n", StandardCharsets.UTF_8);
        try {
            Files.move(tmp, side, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Seals {@code content[from, to)} of {@code file} (already on disk) as one range, dropping ranges that fail. */
    public void seal(Path file, String label, byte[] content, long from, long to) throws IOException {
        writeRange(file, from, to, mac(label, content, from, to), l -> valid(l, label, content));
    }

    /** True when a sidecar line is a range of {@code content} whose MAC matches. */
    private boolean valid(String line, String label, byte[] content) {
        String[] p = line.split(" ");
        try {
            long from = Long.parseLong(p[1]);
            long to = Long.parseLong(p[2]);
            return p.length == 4 && p[0].equals("v1") && from >= 0 && to >= from && to <= content.length
                    && java.security.MessageDigest.isEqual(mac(label, content, from, to)
                    .getBytes(StandardCharsets.US_ASCII), p[3].getBytes(StandardCharsets.US_ASCII));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** How far a file is sealed. */
    public enum State {
        /** Every non-blank byte lies in a valid range (an empty file counts). */
        SEALED,
        /** Some bytes are sealed, some are not: only the sealed ones count. */
        PARTIAL,
        /** No valid range: not written by mono-agent on this machine. */
        UNSEALED,
        /** A range's MAC does not match the bytes: changed after it was written; nothing in it counts. */
        TAMPERED;

        /** A short phrase for listings. */
        public String word() {
            return switch (this) {
                case SEALED -> "sealed";
                case PARTIAL -> "partly sealed";
                case UNSEALED -> "not sealed";
                case TAMPERED -> "its seal does not match (changed after it was written, or sealed elsewhere)";
            };
        }
    }

    /** One sealed byte range {@code [from, to)}. */
    public record Range(long from, long to) {}

    /**
     * What a file's sidecar vouches for.
     *
     * @param ranges   the valid ranges (empty when {@link State#TAMPERED}: nothing counts)
     * @param unsealed non-blank bytes outside every valid range
     */
    public record Check(State state, List<Range> ranges, long unsealed) {
        public Check {
            ranges = List.copyOf(ranges);
        }

        /** True when {@code [from, to)} lies inside one valid range. */
        public boolean covers(long from, long to) {
            for (Range r : ranges) {
                if (from >= r.from() && to <= r.to()) {
                    return true;
                }
            }
            return false;
        }

        public boolean trusted() {
            return state == State.SEALED;
        }
    }

    /** Checks {@code content} (the bytes of {@code file}, read by the caller) against its sidecar. */
    public Check check(Path file, String label, byte[] content) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(sidecar(file), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            lines = List.of();
        } catch (java.nio.charset.MalformedInputException e) {
            return new Check(State.TAMPERED, List.of(), nonBlank(content, 0, content.length));
        }
        List<Range> ok = new ArrayList<>();
        boolean bad = false;
        for (String l : lines) {
            if (l.isBlank()) {
                continue;
            }
            if (valid(l, label, content)) {
                String[] p = l.split(" ");
                ok.add(new Range(Long.parseLong(p[1]), Long.parseLong(p[2])));
            } else {
                bad = true;
            }
        }
        if (bad) {
            return new Check(State.TAMPERED, List.of(), nonBlank(content, 0, content.length));
        }
        ok.sort(java.util.Comparator.comparingLong(Range::from));
        long unsealed = 0;
        long at = 0;
        for (Range r : ok) {
            if (r.from() > at) {
                unsealed += nonBlank(content, at, r.from());
            }
            at = Math.max(at, r.to());
        }
        unsealed += nonBlank(content, at, content.length);
        State s = unsealed == 0 ? State.SEALED : ok.isEmpty() ? State.UNSEALED : State.PARTIAL;
        return new Check(s, ok, unsealed);
    }

    private static long nonBlank(byte[] b, long from, long to) {
        long n = 0;
        for (long i = from; i < to; i++) {
            byte c = b[(int) i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                n++;
            }
        }
        return n;
    }
}
