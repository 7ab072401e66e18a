package dev.monoagent.memory;

import dev.monoagent.common.Seal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The source of truth: human-readable daily Markdown files {@code daily/YYYY-MM-DD.md} (UTC days). An entry is
 *
 * <pre>
 * ### 2026-11-30T19:03:22Z remember 0123456789abcdef
 * the text, one or more lines
 * &lt;!-- end 0123456789abcdef --&gt;
 * </pre>
 *
 * Appends are whole-entry writes followed by {@code fsync} (and a directory fsync when the day file is new) under a
 * cross-process file lock; {@link #append} returns only after that, so an acknowledged entry is on disk. An entry
 * counts only with its closing line, so a write torn by a crash is ignored and never damages the entries before it;
 * nothing is ever truncated or rewritten. Identical content (same {@link MemoryText#hash}) is stored once.
 *
 * <p>Every append is sealed ({@link Seal}: the day file's {@code .seal} sidecar covers the bytes this journal wrote)
 * after its fsync, and only entries inside sealed bytes count: a day file that arrived with the repository, or text
 * added to one by anything but this journal, is never read as the reviewer's memory. Such files are listed by
 * {@link #foreign()} so the frontends can say they are ignored.
 */
public final class Journal {
    static final String DAILY = "daily";
    private static final Pattern HEADER =
            Pattern.compile("^### (\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ) ([a-z]+) ([0-9a-f]{16})$");
    private static final Pattern DAY_FILE = Pattern.compile("^(\\d{4}-\\d\\d-\\d\\d)\\.md$");

    /** What an append did. */
    public record Append(JournalEntry entry, boolean added) {}

    private final Path dir;
    private final Path daily;
    private final Path lockFile;
    private final Map<String, JournalEntry> byHash = new LinkedHashMap<>();
    private final Map<LocalDate, DayState> state = new HashMap<>();
    private final Map<LocalDate, Seal.State> foreign = new TreeMap<>();
    private final Seal seal;
    private final Path root;

    /**
     * What we know of a day file: its size, its line count (1 + newlines), whether it ends with a newline, its last
     * sealed range when that range reaches the end of the file (appends extend it), or null, and that range's running
     * seal once an append has needed it.
     */
    private record DayState(long size, int lines, boolean endsWithNewline, Seal.Range tail, Seal.Chain chain) {}

    private record Parsed(List<JournalEntry> entries, long size, int lines, boolean endsWithNewline,
                          Seal.Check check, Seal.Range tail) {}

    private Journal(Path dir, Seal seal) {
        this.dir = dir;
        this.daily = dir.resolve(DAILY);
        this.lockFile = dir.resolve("journal.lock");
        this.seal = seal;
        this.root = workspaceOf(dir);
    }

    /**
     * Opens (without creating anything) the journal under a memory directory and reads every day file, keeping only
     * the entries {@code seal} vouches for.
     */
    public static Journal open(Path memoryDir, Seal seal) throws IOException {
        Journal j = new Journal(memoryDir, seal);
        j.reload();
        return j;
    }

    /** The workspace a memory dir belongs to (the parent of its {@code .mono-agent}), for seal labels. */
    static Path workspaceOf(Path memoryDir) {
        for (Path p = memoryDir.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
            if (p.getFileName() != null && p.getFileName().toString().equals(".mono-agent") && p.getParent() != null) {
                return p.getParent();
            }
        }
        return memoryDir.toAbsolutePath().normalize();
    }

    /**
     * The day files holding text this journal did not seal (it arrived with the repository, was added by hand, was
     * changed after it was written, or a crash struck between a write and its seal), with how: that text is ignored.
     */
    public synchronized Map<LocalDate, Seal.State> foreign() {
        return Map.copyOf(foreign);
    }

    /** A day file's path relative to the workspace (as the seal labels it and as reports name it). */
    public String label(LocalDate day) {
        return Seal.label(root, fileOf(day));
    }

    public Path dir() {
        return dir;
    }

    /** Re-reads every day file (picks up other processes' appends). */
    public synchronized void reload() throws IOException {
        byHash.clear();
        state.clear();
        foreign.clear();
        for (LocalDate d : days()) {
            scan(d);
        }
    }

    /** The days that have a file, oldest first. */
    public List<LocalDate> days() throws IOException {
        List<LocalDate> out = new ArrayList<>();
        if (!Files.isDirectory(daily)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(daily)) {
            for (Path p : ds) {
                Matcher m = DAY_FILE.matcher(p.getFileName().toString());
                if (m.matches() && Files.isRegularFile(p)) {
                    try {
                        out.add(LocalDate.parse(m.group(1)));
                    } catch (DateTimeParseException ignored) {
                        // not a real date (2026-13-40.md): not a day file
                    }
                }
            }
        }
        out.sort(null);
        return out;
    }

    public Path fileOf(LocalDate day) {
        return daily.resolve(day + ".md");
    }

    /** Every complete entry, in file order, oldest day first. */
    public synchronized List<JournalEntry> entries() {
        List<JournalEntry> all = new ArrayList<>(byHash.values());
        all.sort((a, b) -> a.date().equals(b.date()) ? Integer.compare(a.line(), b.line())
                : a.date().compareTo(b.date()));
        return all;
    }

    public synchronized int size() {
        return byHash.size();
    }

    public synchronized JournalEntry find(String hash) {
        return byHash.get(hash);
    }

    /** One day's sealed entries in order (reads the file now; empty when there is none). */
    public List<JournalEntry> readDay(LocalDate day) throws IOException {
        return parseFile(fileOf(day), day).entries();
    }

    /**
     * Appends {@code text} (already normalized) unless an entry with the same content hash exists. Returns after the
     * entry is fsynced.
     */
    public Append append(String kind, String text, Instant now) throws IOException {
        return appendAll(kind, List.of(text), now).get(0);
    }

    /**
     * Appends several texts with one write and one fsync (group commit); every returned entry is on disk. Texts whose
     * hash exists (or repeats within the batch) come back with {@code added == false}.
     */
    public List<Append> appendAll(String kind, List<String> texts, Instant now) throws IOException {
        Instant t = now.truncatedTo(ChronoUnit.SECONDS);
        LocalDate day = LocalDate.ofInstant(t, ZoneOffset.UTC);
        synchronized (this) {
            Files.createDirectories(daily);
            try (FileChannel lockCh = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = lockCh.lock()) {
                catchUp(day);
                return write(day, kind, texts, t);
            }
        }
    }

    /** Under the lock: re-reads {@code day} when another process grew it since we looked. */
    private void catchUp(LocalDate day) throws IOException {
        Path f = fileOf(day);
        long size = Files.exists(f) ? Files.size(f) : 0;
        DayState st = state.get(day);
        if (st == null ? size != 0 : size != st.size()) {
            scan(day);
        }
    }

    private void scan(LocalDate day) throws IOException {
        Parsed p = parseFile(fileOf(day), day);
        for (JournalEntry e : p.entries()) {
            byHash.putIfAbsent(e.hash(), e);
        }
        if (p.check().state() == Seal.State.SEALED) {
            foreign.remove(day);
        } else {
            foreign.put(day, p.check().state());
        }
        state.put(day, new DayState(p.size(), p.lines(), p.endsWithNewline(), p.tail(), null));
    }

    private List<Append> write(LocalDate day, String kind, List<String> texts, Instant t) throws IOException {
        Path f = fileOf(day);
        boolean created = !Files.exists(f);
        DayState st = state.getOrDefault(day, new DayState(0, 1, true, null, null));
        StringBuilder sb = new StringBuilder();
        int line = st.lines();
        if (!st.endsWithNewline()) {
            sb.append('\n');
            line++;
        }
        List<Append> out = new ArrayList<>();
        Map<String, JournalEntry> fresh = new LinkedHashMap<>();
        for (String text : texts) {
            String hash = MemoryText.hash(kind, text);
            JournalEntry known = byHash.containsKey(hash) ? byHash.get(hash) : fresh.get(hash);
            if (known != null) {
                out.add(new Append(known, false));
                continue;
            }
            JournalEntry e = new JournalEntry(hash, t, kind, text, day, line);
            sb.append("### ").append(t).append(' ').append(kind).append(' ').append(hash).append('\n');
            line++;
            for (String l : text.split("\n", -1)) {
                sb.append(escape(l)).append('\n');
                line++;
            }
            sb.append("<!-- end ").append(hash).append(" -->\n\n");
            line += 2;
            fresh.put(hash, e);
            out.add(new Append(e, true));
        }
        if (fresh.isEmpty()) {
            return out;
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        // extend the day's sealed range when it reaches the end of the file; otherwise (a new day, or text not ours
        // before this point) start a new range here, so the seal never covers bytes this journal did not write
        Seal.Chain chain = chainFor(f, st);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
            chain.update(bytes);
            chain.write(f);
            state.put(day, new DayState(ch.size(), line, true, null, chain));
        }
        if (created) {
            fsyncDir(daily);
            fsyncDir(dir);
        }
        byHash.putAll(fresh);
        return out;
    }

    /** The running seal an append to {@code f} extends (built from the file once per day and process), or a new one. */
    private Seal.Chain chainFor(Path f, DayState st) throws IOException {
        if (st.chain() != null && st.chain().to() == st.size()) {
            return st.chain();
        }
        String label = Seal.label(root, f);
        Seal.Range tail = st.tail();
        if (tail != null && tail.to() == st.size()) {
            byte[] b = Files.readAllBytes(f);
            if (b.length == st.size() && seal.check(f, label, b).covers(tail.from(), tail.to())) {
                Seal.Chain c = seal.chain(label, tail.from());
                c.update(b, (int) tail.from(), (int) (tail.to() - tail.from()));
                return c;
            }
        }
        return seal.chain(label, st.size());
    }

    private static void fsyncDir(Path d) {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems cannot open a directory for sync; the file's own fsync still happened.
        }
    }

    /** Body lines that could be read as our own markup get a leading backslash (removed on read). */
    private static String escape(String l) {
        return l.startsWith("###") || l.startsWith("<!--") || l.startsWith("\\") ? "\\" + l : l;
    }

    private static String unescape(String l) {
        return l.startsWith("\\") ? l.substring(1) : l;
    }

    /**
     * The complete, sealed entries of one day file; torn text, and text outside the sealed ranges (or in a file whose
     * seal does not match), is skipped.
     */
    private Parsed parseFile(Path f, LocalDate day) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
            return new Parsed(List.of(), 0, 1, true, new Seal.Check(Seal.State.SEALED, List.of(), 0), null);
        }
        String label = Seal.label(root, f);
        Seal.Check check = seal.check(f, label, bytes);
        Seal.Range tail = null;
        if (!check.ranges().isEmpty()) {
            Seal.Range last = check.ranges().get(check.ranges().size() - 1);
            tail = last.to() == bytes.length ? last : null;
        }
        List<String> lines = new ArrayList<>();
        List<Long> starts = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                starts.add((long) from);
                lines.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
                from = i + 1;
            }
        }
        List<JournalEntry> out = new ArrayList<>();
        Matcher open = null;
        int openLine = 0;
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            Matcher h = HEADER.matcher(l);
            if (h.matches()) {
                open = h;
                openLine = i + 1;
                body.setLength(0);
            } else if (open != null && l.equals("<!-- end " + open.group(3) + " -->")) {
                long end = i + 1 < starts.size() ? starts.get(i + 1) : bytes.length;
                if (check.covers(starts.get(openLine - 1), end)) {
                    // Identity is the content actually on disk, so an entry stays findable and deduplicated.
                    String text = body.toString();
                    out.add(new JournalEntry(MemoryText.hash(open.group(2), text), Instant.parse(open.group(1)),
                            open.group(2), text, day, openLine));
                }
                open = null;
            } else if (open != null) {
                if (i > openLine) {
                    body.append('\n');
                }
                body.append(unescape(l));
            }
        }
        boolean nl = bytes.length == 0 || bytes[bytes.length - 1] == '\n';
        return new Parsed(out, bytes.length, lines.size(), nl, check, tail);
    }

    /** Entries per day (for stats). */
    public synchronized Map<LocalDate, Integer> countsByDay() {
        Map<LocalDate, Integer> m = new TreeMap<>();
        byHash.values().forEach(e -> m.merge(e.date(), 1, Integer::sum));
        return m;
    }

    static UncheckedIOException unchecked(IOException e) {
        return new UncheckedIOException(e.getMessage(), e);
    }
}
