package dev.monoagent.memory;

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

    /** What we know of a day file: its size, its line count (1 + newlines) and whether it ends with a newline. */
    private record DayState(long size, int lines, boolean endsWithNewline) {}

    private record Parsed(List<JournalEntry> entries, long size, int lines, boolean endsWithNewline) {}

    private Journal(Path dir) {
        this.dir = dir;
        this.daily = dir.resolve(DAILY);
        this.lockFile = dir.resolve("journal.lock");
    }

    /** Opens (without creating anything) the journal under a memory directory and reads every day file. */
    public static Journal open(Path memoryDir) throws IOException {
        Journal j = new Journal(memoryDir);
        j.reload();
        return j;
    }

    public Path dir() {
        return dir;
    }

    /** Re-reads every day file (picks up other processes' appends). */
    public synchronized void reload() throws IOException {
        byHash.clear();
        state.clear();
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

    /** One day's entries in order (reads the file now; empty when there is none). */
    public static List<JournalEntry> readDay(Path memoryDir, LocalDate day) throws IOException {
        return parse(memoryDir.resolve(DAILY).resolve(day + ".md"), day);
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
        if (st == null ? size != 0 : size != st.size) {
            scan(day);
        }
    }

    private void scan(LocalDate day) throws IOException {
        Parsed p = parseFile(fileOf(day), day);
        for (JournalEntry e : p.entries()) {
            byHash.putIfAbsent(e.hash(), e);
        }
        state.put(day, new DayState(p.size(), p.lines(), p.endsWithNewline()));
    }

    private List<Append> write(LocalDate day, String kind, List<String> texts, Instant t) throws IOException {
        Path f = fileOf(day);
        boolean created = !Files.exists(f);
        DayState st = state.getOrDefault(day, new DayState(0, 1, true));
        StringBuilder sb = new StringBuilder();
        int line = st.lines;
        if (!st.endsWithNewline) {
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
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer buf = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
            state.put(day, new DayState(ch.size(), line, true));
        }
        if (created) {
            fsyncDir(daily);
            fsyncDir(dir);
        }
        byHash.putAll(fresh);
        return out;
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

    /** The complete entries of one day file; torn or foreign text is skipped. */
    static List<JournalEntry> parse(Path f, LocalDate day) throws IOException {
        return parseFile(f, day).entries();
    }

    private static Parsed parseFile(Path f, LocalDate day) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
            return new Parsed(List.of(), 0, 1, true);
        }
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
        List<JournalEntry> out = new ArrayList<>();
        Matcher open = null;
        int openLine = 0;
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            Matcher h = HEADER.matcher(l);
            if (h.matches()) {
                open = h;
                openLine = i + 1;
                body.setLength(0);
            } else if (open != null && l.equals("<!-- end " + open.group(3) + " -->")) {
                // Identity is the content actually on disk, so a hand-edited entry stays findable and deduplicated.
                String text = body.toString();
                out.add(new JournalEntry(MemoryText.hash(open.group(2), text), Instant.parse(open.group(1)),
                        open.group(2), text, day, openLine));
                open = null;
            } else if (open != null) {
                if (i > openLine) {
                    body.append('\n');
                }
                body.append(unescape(l));
            }
        }
        boolean nl = bytes.length == 0 || bytes[bytes.length - 1] == '\n';
        return new Parsed(out, bytes.length, lines.length, nl);
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
