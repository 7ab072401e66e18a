package dev.monoagent.sandbox;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The host end of one run's warm shell ({@code warm-shell.js}): a sandboxed server — itself the command srt wrapped —
 * that runs the run's commands one at a time, each in a user namespace and process group of its own, and kills
 * whatever a command left behind before it reports the command done. Requests and replies are authenticated with a
 * per-process key the commands never see (ADR 0021); any frame that fails, any byte outside a frame, a dead server or
 * a failed sweep is a doubt: the shell is killed, and the engine runs later commands on fresh per-command sandboxes.
 * After each command the host also checks, from outside, that only the processes present at ready remain.
 */
final class WarmShell implements AutoCloseable {
    static final String SCRIPT_RESOURCE = "warm-shell.js";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern HEAD = Pattern.compile("\u0001W ([rsoed]) ([0-9]{1,18}) ([0-9]{1,9}) ([0-9a-f]{64})");
    private static final int MAX_FRAME = 1 << 20;
    private static final Object EOF = new Object();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] FORK = "{\"op\":\"fork\"}".getBytes(StandardCharsets.US_ASCII);

    /** What became of one command sent to the shell. */
    sealed interface Outcome {
        /** It ran. {@code doubt}: why the shell must not be used again (null: it may). */
        record Ran(ProcessRunner.Result result, String doubt) implements Outcome {}

        /** Nothing of it ran (the shell failed before spawning it): the caller runs it on a fresh sandbox. */
        record NotRun(String why) implements Outcome {}
    }

    private record Frame(char kind, long id, byte[] body) {}

    /** When a command started and the key its engine events are filed under (srt only knows the shell's wrap). */
    private record Window(Instant start, String callKey) {}

    private final Process process;
    private final Limits.Slot slot;
    private final String wrapId;
    private final List<Integer> ports;
    private final long generation;
    private final List<String> denied;
    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
    private final BlockingQueue<Object> frames = new LinkedBlockingQueue<>();
    private final Map<Long, String> nonces = new ConcurrentHashMap<>();
    private final Deque<Window> windows = new ArrayDeque<>();
    private final AtomicBoolean busy = new AtomicBoolean();
    private final StringBuilder stderr = new StringBuilder();
    private volatile String broken;
    /**
     * The sandbox's processes when the shell became ready, each with its {@code /proc/<pid>/stat} held open since: a
     * read of that descriptor succeeds only while that very process exists (a pid reused by another process reads
     * ESRCH through it), so the check after each sweep reads one held descriptor per process.
     */
    private volatile Map<Long, RandomAccessFile> baseline = Map.of();
    private volatile String layout = "";
    private long nextId = 1;

    private WarmShell(Process process, Limits.Slot slot, String wrapId, List<Integer> ports, long generation,
                      List<String> denied, byte[] key) {
        this.process = process;
        this.slot = slot;
        this.wrapId = wrapId;
        this.ports = List.copyOf(ports);
        this.generation = generation;
        this.denied = List.copyOf(denied);
        this.key = new SecretKeySpec(key, "HmacSHA256");
        ProcessRunner.pump("warm-shell-frames", (Runnable) this::readLoop);
        ProcessRunner.pump("warm-shell-stderr", (Runnable) this::stderrLoop);
    }

    static String script() throws IOException {
        try (InputStream in = WarmShell.class.getResourceAsStream(SCRIPT_RESOURCE)) {
            if (in == null) {
                throw new IOException("warm shell script resource missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Hands the freshly spawned server its key and waits for its ready frame; then records, from outside, which
     * processes the sandbox holds (srt's, the server's and its ancestors'): only those may outlive a command.
     */
    static WarmShell handshake(Process p, Limits.Slot slot, String wrapId, List<Integer> ports, long generation,
                               List<String> denied, Duration timeout) throws IOException {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        WarmShell s = new WarmShell(p, slot, wrapId, ports, generation, denied, key);
        try {
            OutputStream in = p.getOutputStream();
            in.write(("KEY " + HexFormat.of().formatHex(key) + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            s.kill();
            throw new IOException("warm shell did not start: " + e.getMessage());
        }
        java.util.Arrays.fill(key, (byte) 0);
        Object o;
        try {
            o = s.frames.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            o = null;
        }
        if (!(o instanceof Frame f) || f.kind() != 'r') {
            String why = s.broken != null ? s.broken : o == null ? "no ready frame in " + timeout.toMillis() + " ms"
                    : "the server exited";
            s.kill();
            throw new IOException("warm shell did not start: " + why + s.stderrTail());
        }
        s.baseline = s.hold();
        // its first command's process, forked while the engine finishes starting the shell
        s.forkAhead();
        return s;
    }

    String wrapId() {
        return wrapId;
    }

    /** The shell's control group slot (its commands are frozen with it) and its server's process. */
    Limits.Slot slot() {
        return slot;
    }

    Process process() {
        return process;
    }

    /** The protected layout the shell's mounts fit (set by the engine right after its start). */
    String layout() {
        return layout;
    }

    void layout(String l) {
        layout = l;
    }

    List<Integer> ports() {
        return ports;
    }

    long generation() {
        return generation;
    }

    /** The per-wrap denies its wrap was given (protected paths the initialised set did not cover then). */
    List<String> denied() {
        return denied;
    }

    /** Usable for another command: alive, never doubted. */
    boolean usable() {
        return broken == null && process.isAlive();
    }

    boolean tryAcquire() {
        return busy.compareAndSet(false, true);
    }

    void release() {
        busy.set(false);
    }

    /** The call an engine event at {@code t} belongs to: the latest command started at or before it, else null. */
    String callAt(Instant t) {
        synchronized (windows) {
            for (var it = windows.descendingIterator(); it.hasNext(); ) {
                Window w = it.next();
                if (!w.start().isAfter(t)) {
                    return w.callKey();
                }
            }
        }
        return null;
    }

    /**
     * Tells the shell a command follows: it forks that command's process now (in its own session and user namespace,
     * waiting for its request), so the fork is done while the host does other work. Only between commands: once the
     * shell is ready (its baseline taken) and once each command was swept and checked; a failure here is a doubt like
     * any other.
     */
    private void forkAhead() {
        if (!usable()) {
            return;
        }
        try {
            send(FORK);
        } catch (IOException e) {
            doubt("the warm shell's request channel failed: " + e.getMessage());
        }
    }

    private void send(byte[] body) throws IOException {
        byte[] head = (body.length + " " + HexFormat.of().formatHex(hmac("req\n", body)) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        OutputStream in = process.getOutputStream();
        synchronized (in) {
            in.write(head);
            in.write(body);
            in.flush();
        }
    }

    /**
     * Runs one command, binding {@code marks} (srt's placeholders for it) read-only in the shell first. {@code env} is
     * the whole sandbox environment for it (srt's own variables are added inside);
     * output is bounded per stream at {@code maxBytes}, the timeout ends its process group (SIGTERM, SIGKILL a second
     * later) and the sweep everything else it started.
     */
    Outcome run(String callKey, List<String> argv, Map<String, String> env, Path cwd, String stdin, Duration timeout,
                long maxBytes, OutputListener live, List<SrtMountPoints.Mark> marks) {
        if (!usable()) {
            return new Outcome.NotRun(broken == null ? "the warm shell exited" : broken);
        }
        for (Object stale; (stale = frames.poll()) != null; ) {
            // between commands the server sends nothing: anything queued now is not a reply to what follows
            doubt(stale == EOF ? "the warm shell exited" : "a frame arrived between commands");
            return new Outcome.NotRun(broken);
        }
        long id = nextId++;
        String nonce = HexFormat.of().formatHex(randomBytes(16));
        nonces.put(id, nonce);
        long t0 = System.nanoTime();
        synchronized (windows) {
            windows.addLast(new Window(Instant.now(), callKey));
            while (windows.size() > 64) {
                windows.removeFirst();
            }
        }
        try {
            send(runRequest(id, nonce, cwd, timeout, maxBytes, argv, env, marks, stdin));
        } catch (IOException e) {
            doubt("the warm shell's request channel failed: " + e.getMessage());
            return new Outcome.NotRun(broken);
        }
        ProcessRunner.Utf8Chunks liveOut = new ProcessRunner.Utf8Chunks(false, live);
        ProcessRunner.Utf8Chunks liveErr = new ProcessRunner.Utf8Chunks(true, live);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        boolean truncated = false;
        boolean started = false;
        // the server ends the command at the timeout and sweeps within seconds; past this it is not answering
        long deadline = t0 + timeout.toNanos() + TimeUnit.SECONDS.toNanos(10);
        try {
            for (;;) {
                long left = deadline - System.nanoTime();
                Object o = left <= 0 ? null : frames.poll(left, TimeUnit.NANOSECONDS);
                if (o == null || o == EOF) {
                    doubt(o == null ? "the warm shell did not finish a command in time" : broken != null ? broken
                            : "the warm shell exited" + stderrTail());
                    if (!started) {
                        return new Outcome.NotRun(broken);
                    }
                    kill();
                    err.writeBytes(("\nmono-agent: " + broken + "; the command was killed and its output may be "
                            + "incomplete\n").getBytes(StandardCharsets.UTF_8));
                    return new Outcome.Ran(result(137, 9, out, err, truncated, o == null, t0), broken);
                }
                Frame f = (Frame) o;
                if (f.id() != id || (!started && f.kind() != 's') || (started && f.kind() == 's')) {
                    doubt("a frame out of order (" + f.kind() + " for " + f.id() + ")");
                    if (!started) {
                        return new Outcome.NotRun(broken);
                    }
                    kill();
                    return new Outcome.Ran(result(137, 9, out, err, truncated, false, t0), broken);
                }
                switch (f.kind()) {
                    case 's' -> started = true;
                    case 'o', 'e' -> {
                        ByteArrayOutputStream to = f.kind() == 'o' ? out : err;
                        long room = maxBytes - to.size();
                        if (room > 0) {
                            to.write(f.body(), 0, (int) Math.min(room, f.body().length));
                        }
                        if (f.body().length > room) {
                            truncated = true;
                        }
                        (f.kind() == 'o' ? liveOut : liveErr).accept(f.body(), f.body().length);
                    }
                    case 'd' -> {
                        JsonNode d = JSON.readTree(f.body());
                        String doubt = d.path("sweepOk").asBoolean(false) ? null
                                : "the warm shell could not kill what a command left behind";
                        if (doubt == null) {
                            doubt = verifySwept();
                        }
                        if (doubt != null) {
                            doubt(doubt);
                            kill();
                        } else {
                            // swept and checked: the next command's process can be forked now, while the host
                            // finishes this one and the agent decides on the next
                            forkAhead();
                        }
                        return new Outcome.Ran(result(d.path("exit").asInt(1), d.path("signal").asInt(0), out, err,
                                truncated || d.path("truncated").asBoolean(), d.path("timedOut").asBoolean(), t0),
                                doubt);
                    }
                    default -> {
                        doubt("an unexpected frame kind " + f.kind());
                        kill();
                        return new Outcome.Ran(result(137, 9, out, err, truncated, false, t0), broken);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            doubt("interrupted");
            kill();
            return started ? new Outcome.Ran(result(137, 9, out, err, truncated, false, t0), broken)
                    : new Outcome.NotRun(broken);
        } catch (IOException e) {
            doubt("a done frame that is not JSON");
            kill();
            return new Outcome.Ran(result(137, 9, out, err, truncated, false, t0), broken);
        } finally {
            nonces.remove(id);
        }
    }

    /** The run request's JSON, written straight to bytes (no tree of the environment built first). */
    private static byte[] runRequest(long id, String nonce, Path cwd, Duration timeout, long maxBytes,
                                     List<String> argv, Map<String, String> env, List<SrtMountPoints.Mark> marks,
                                     String stdin) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = JSON.getFactory().createGenerator(buf)) {
            g.writeStartObject();
            g.writeStringField("op", "run");
            g.writeNumberField("id", id);
            g.writeStringField("nonce", nonce);
            g.writeStringField("cwd", cwd.toString());
            g.writeNumberField("timeoutMs", Math.max(1, timeout.toMillis()));
            g.writeNumberField("maxBytes", maxBytes);
            g.writeArrayFieldStart("argv");
            for (String a : argv) {
                g.writeString(a);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("env");
            for (Map.Entry<String, String> e : env.entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("marks");
            for (SrtMountPoints.Mark m : marks) {
                g.writeStartObject();
                g.writeStringField("p", m.path().toString());
                g.writeBooleanField("d", m.dir());
                g.writeEndObject();
            }
            g.writeEndArray();
            if (stdin != null) {
                g.writeStringField("stdin", stdin);
            }
            g.writeEndObject();
        }
        return buf.toByteArray();
    }

    private static ProcessRunner.Result result(int exit, int signal, ByteArrayOutputStream out,
                                               ByteArrayOutputStream err, boolean truncated, boolean timedOut,
                                               long t0) {
        return new ProcessRunner.Result(exit, signal, out.toByteArray(), err.toByteArray(), truncated, timedOut,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * The host's own check after the server's sweep: the processes of the sandbox now are exactly those present at
     * ready (the same processes, not only the same pids). Anything else is killed here and makes the shell doubtful.
     */
    private String verifySwept() {
        List<Long> extra = new ArrayList<>();
        byte[] buf = new byte[64];
        Map<Long, RandomAccessFile> ready = baseline;
        for (long pid : members()) {
            RandomAccessFile held = ready.get(pid);
            // a process the sweep killed may not be reaped yet: one whose every thread exited runs nothing
            if ((held == null || !lives(held, buf)) && !Freezer.gone(pid)) {
                extra.add(pid);
            }
        }
        if (extra.isEmpty()) {
            return null;
        }
        for (long pid : extra) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        return extra.size() + " process(es) were still in the sandbox after the warm shell's sweep";
    }

    /** The sandbox's processes: its control group's, else the server process tree's. */
    private List<Long> members() {
        List<Long> group = slot.members();
        return group != null ? group : Freezer.tree(process.toHandle()).stream().map(ProcessHandle::pid).toList();
    }

    /** Each process of the sandbox now, with its {@code /proc/<pid>/stat} opened (see {@link #baseline}). */
    private Map<Long, RandomAccessFile> hold() {
        Map<Long, RandomAccessFile> out = new java.util.HashMap<>();
        for (long pid : members()) {
            try {
                out.put(pid, heldStat(pid));
            } catch (IOException e) {
                // gone already: not part of the sandbox any more
            }
        }
        return out;
    }

    /** {@code /proc/<pid>/stat} opened, to be read with {@link #lives} for as long as the process is wanted. */
    static RandomAccessFile heldStat(long pid) throws IOException {
        // not a FileChannel: an interrupt of a thread reading one closes it for good
        return new RandomAccessFile("/proc/" + pid + "/stat", "r");
    }

    /**
     * Whether the process {@code held} is the stat of still exists: procfs answers a read through the descriptor from
     * the process it was opened for, and with ESRCH once that one is reaped (whether another process has its pid or not).
     */
    static boolean lives(RandomAccessFile held, byte[] buf) {
        try {
            held.seek(0);
            return held.read(buf) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    private byte[] hmac(String prefix, byte[] body) {
        // one keyed Mac per thread that uses it (the caller sending, the reader checking): looking the algorithm up
        // and keying it cost more than the MAC itself, several times per command
        Mac m = macs.get();
        m.update(prefix.getBytes(StandardCharsets.UTF_8));
        return m.doFinal(body); // doFinal resets it for the next message, keyed as before
    }

    private Mac newMac() {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(key);
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    private void doubt(String why) {
        if (broken == null) {
            broken = why;
        }
    }

    /** Why the shell is unusable (null: it is usable). */
    String broken() {
        return broken;
    }

    private void readLoop() {
        try (InputStream in = new BufferedInputStream(process.getInputStream(), 1 << 16)) {
            for (;;) {
                String head = readHead(in);
                if (head == null) {
                    break;
                }
                Matcher m = HEAD.matcher(head);
                if (!m.matches()) {
                    doubt("output from the warm shell outside its frames");
                    break;
                }
                int len = Integer.parseInt(m.group(3));
                if (len > MAX_FRAME) {
                    doubt("an oversized frame from the warm shell");
                    break;
                }
                byte[] body = in.readNBytes(len);
                if (body.length < len) {
                    doubt("a truncated frame from the warm shell");
                    break;
                }
                long id = Long.parseLong(m.group(2));
                String nonce = id == 0 ? "ready" : nonces.get(id);
                if (nonce == null) {
                    doubt("a frame for no request (" + m.group(1) + " " + id + ")");
                    break;
                }
                if (!MessageDigest.isEqual(hmac(m.group(1) + " " + id + " " + nonce + "\n", body),
                        HexFormat.of().parseHex(m.group(4)))) {
                    doubt("a frame that failed authentication (forged or corrupted)");
                    break;
                }
                frames.add(new Frame(m.group(1).charAt(0), id, body));
            }
        } catch (IOException e) {
            // the server is gone
        } finally {
            if (broken != null) {
                kill();
            }
            frames.add(EOF);
        }
    }

    /** One frame head line (without the newline), null at a clean end of stream; at most 160 bytes. */
    private String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (;;) {
            int b = in.read();
            if (b < 0) {
                if (!sb.isEmpty()) {
                    doubt("a truncated frame head from the warm shell");
                }
                return null;
            }
            if (b == '\n') {
                return sb.toString();
            }
            if (sb.length() >= 160) {
                doubt("output from the warm shell outside its frames");
                return null;
            }
            sb.append((char) b);
        }
    }

    private void stderrLoop() {
        byte[] b = new byte[8192];
        try (InputStream err = process.getErrorStream()) {
            for (int n; (n = err.read(b)) > 0; ) {
                synchronized (stderr) {
                    if (stderr.length() < 8192) {
                        stderr.append(new String(b, 0, n, StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (IOException ignored) {
            // closed with the process
        }
    }

    private String stderrTail() {
        synchronized (stderr) {
            String s = stderr.toString().strip();
            return s.isEmpty() ? "" : " (" + (s.length() > 400 ? s.substring(s.length() - 400) : s) + ")";
        }
    }

    /** Kills every process of the shell's sandbox (its group and control group); the slot is released. */
    void kill() {
        if (broken == null) {
            broken = "closed";
        }
        ProcessRunner.killGroup(process, "KILL");
        slot.release();
        for (RandomAccessFile c : baseline.values()) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing a procfs read descriptor
            }
        }
        try {
            process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        kill();
    }
}
