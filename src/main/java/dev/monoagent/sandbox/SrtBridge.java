package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.ChildProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The Java end of our long-lived Node bridge ({@code bridge.mjs}): one process per workspace that imports the
 * verified srt library, initialises it once (proxies and violation monitor stay up) and wraps commands on request.
 * Framing: one JSON object per line both ways, requests carry ids, replies echo them, violation events are pushed.
 * Java spawns the wrapped command itself. A dead bridge is never restarted here: the owner marks the engine
 * unavailable until it is re-proved.
 */
final class SrtBridge implements AutoCloseable {
    static final String SCRIPT_RESOURCE = "bridge.mjs";
    /** SHA-256 of {@code bridge.mjs}; the bytes passed to Node are checked against it before every start. */
    static final String SCRIPT_SHA256 = "3a01010464df4b7551af4dc1ea4595027de961b676441ecf3fe2969f1eb2c463";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A violation line from srt's store, attributed by the commandId we wrapped with. */
    record EngineEvent(String line, String commandId, Instant time) {}

    /**
     * @param errors   dependency errors reported after initialize (must be empty)
     * @param warnings dependency warnings (must be empty: srt only warns about a missing apply-seccomp)
     */
    record InitResult(boolean ok, String error, List<String> errors, List<String> warnings, List<String> globWarnings,
                      int proxyPort, int socksPort) {
        boolean clean() {
            return ok && errors.isEmpty() && warnings.isEmpty() && globWarnings.isEmpty();
        }

        String problem() {
            if (!ok) {
                return error;
            }
            List<String> all = new ArrayList<>(errors);
            all.addAll(warnings);
            globWarnings.forEach(g -> all.add("dropped glob " + g));
            return String.join("; ", all);
        }
    }

    private final Process process;
    private final OutputStream stdin;
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Consumer<EngineEvent> onViolation;
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private volatile boolean dead;

    private SrtBridge(Process process, Consumer<EngineEvent> onViolation) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.onViolation = onViolation;
        ProcessRunner.pump("srt-bridge-stdout", (Runnable) this::readLoop);
        ProcessRunner.pump("srt-bridge-stderr", (Runnable) this::stderrLoop);
    }

    static byte[] scriptBytes() throws IOException {
        try (InputStream in = SrtBridge.class.getResourceAsStream(SCRIPT_RESOURCE)) {
            if (in == null) {
                throw new IOException("bridge script resource missing");
            }
            return in.readAllBytes();
        }
    }

    /**
     * Starts the bridge with cwd = workspace (srt resolves relative paths and its dangerous-file scan there), in a
     * process group of its own ({@code setsid}, when given): srt's helpers (socat bridges) join that group, so
     * {@link #close()} can end them even when the bridge itself was killed before it could reset srt.
     */
    static SrtBridge start(HostTools tools, SrtRuntime.Resolution engine, Path workspace, Path sessionTmp,
                           HostEnv env, Path setsid, Consumer<EngineEvent> onViolation) throws IOException {
        byte[] script = scriptBytes();
        if (!TreeDigest.sha256(script).equals(SCRIPT_SHA256)) {
            throw new IOException("bridge script does not match its pinned SHA-256");
        }
        List<String> cmd = new ArrayList<>();
        if (setsid != null) {
            cmd.add(setsid.toString());
        }
        cmd.addAll(List.of(tools.node().toString(), "--input-type=module", "--eval",
                new String(script, StandardCharsets.UTF_8), engine.indexJs().toString()));
        ProcessBuilder pb = ChildProcesses.builder(cmd).directory(workspace.toFile());
        Map<String, String> e = pb.environment();
        e.clear();
        e.put("PATH", bridgePath(tools, env));
        e.put("HOME", env.home().toString());
        e.put("CLAUDE_CODE_TMPDIR", sessionTmp.toString());
        // srt puts its proxy bridge sockets in the bridge's tmpdir(); outside-home reads are denied (a tmpfs over
        // /tmp), so they live in a short per-session dir next to the session temp dir that the config re-allows
        e.put("TMPDIR", bridgeTmp(sessionTmp).toString());
        e.put("LANG", env.hostEnv().getOrDefault("LANG", "C.UTF-8"));
        Map<String, String> known = new LinkedHashMap<>();
        known.put("bash", tools.bash().toString());
        // macOS has no bwrap and needs no socat (HostTools leaves them null there)
        if (tools.bwrap() != null) {
            known.put("bwrap", tools.bwrap().toString());
        }
        if (tools.socat() != null) {
            known.put("socat", tools.socat().toString());
        }
        known.put("rg", tools.rg().toString());
        e.put("MONO_AGENT_TOOLS", JSON.writeValueAsString(known));
        e.put("MONO_AGENT_OWN_PORTS", JSON.writeValueAsString(dev.monoagent.common.OwnPorts.current()));
        return new SrtBridge(pb.start(), onViolation);
    }

    /**
     * The bridge's temp dir for {@code sessionTmp} ({@code <tmpRoot>/mono-agent-<uid>/s-N} → {@code <tmpRoot>/ma-N}):
     * short, because a unix socket path is limited to 107 bytes.
     */
    static Path bridgeTmp(Path sessionTmp) {
        String n = sessionTmp.getFileName().toString().replaceFirst("^s-", "");
        return sessionTmp.getParent().getParent().resolve("ma-" + n.substring(0, Math.min(10, n.length())));
    }

    static String bridgePath(HostTools tools, HostEnv env) {
        List<String> dirs = new ArrayList<>();
        for (Path p : java.util.Arrays.asList(tools.node(), tools.bwrap(), tools.socat(), tools.rg(), tools.bash())) {
            if (p == null) {
                continue;
            }
            String d = p.getParent().toString();
            if (!dirs.contains(d)) {
                dirs.add(d);
            }
        }
        for (String d : env.pathEntries()) {
            if (!dirs.contains(d)) {
                dirs.add(d);
            }
        }
        return String.join(":", dirs);
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return !dead && process.isAlive();
    }

    String stderrTail() {
        synchronized (stderrTail) {
            return String.join("\n", stderrTail);
        }
    }

    /** Waits for the bridge's ready line (the engine library imported). */
    void awaitReady(Duration timeout) throws IOException {
        try {
            ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("bridge did not start: " + stderrTail());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    InitResult init(Map<String, Object> config, Duration timeout) {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "init");
        req.set("config", JSON.valueToTree(config));
        JsonNode r;
        try {
            r = call(req, timeout);
        } catch (IOException e) {
            return new InitResult(false, e.getMessage(), List.of(), List.of(), List.of(), 0, 0);
        }
        if (!r.path("ok").asBoolean()) {
            return new InitResult(false, r.path("error").asText("initialize failed"), List.of(), List.of(), List.of(),
                    0, 0);
        }
        return new InitResult(true, null, strings(r.path("errors")), strings(r.path("warnings")),
                strings(r.path("globWarnings")), r.path("proxyPort").asInt(0), r.path("socksPort").asInt(0));
    }

    /** A wrapped command: run it with {@code bash -c wrapped} and the real script in {@code MONO_AGENT_CMD}. */
    record Wrapped(String commandId, String wrapped, boolean prepared) {}

    /**
     * A wrap with a fresh commandId. {@code usePrepared}: take the wrap the bridge prepared after the last cleanup
     * (only valid when the workspace layout is unchanged since); otherwise it is discarded and a fresh one made.
     */
    Wrapped wrap(boolean usePrepared, List<String> allowedDomains, Duration timeout) throws IOException {
        return wrap(usePrepared, allowedDomains, List.of(), timeout);
    }

    /**
     * As above, with literal write denies for this command only ({@code extraDenyWrite}, absolute; srt enforces
     * them like the initialised ones but does not report them). A wrap with extras is always fresh.
     */
    Wrapped wrap(boolean usePrepared, List<String> allowedDomains, List<String> extraDenyWrite, Duration timeout)
            throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "wrap");
        req.put("usePrepared", usePrepared && extraDenyWrite.isEmpty());
        if (!extraDenyWrite.isEmpty()) {
            req.set("extraDenyWrite", JSON.valueToTree(extraDenyWrite));
        }
        if (allowedDomains != null) {
            req.set("allowedDomains", JSON.valueToTree(allowedDomains));
        }
        JsonNode r = call(req, timeout);
        if (!r.path("ok").asBoolean()) {
            throw new IOException("wrap failed: " + r.path("error").asText());
        }
        return new Wrapped(r.path("commandId").asText(), r.path("wrapped").asText(), r.path("prepared").asBoolean());
    }

    /**
     * srt's macOS wrap for {@code config} (sandbox-exec with its Seatbelt profile), rendered on any host: the reply's
     * {@code wrapped}, {@code commandId} and proxy ports. Afterwards this bridge refuses init and wrap (bridge.mjs).
     */
    JsonNode renderMacos(Map<String, Object> config, Duration timeout) throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "renderMacos");
        req.set("config", JSON.valueToTree(config));
        JsonNode r = call(req, timeout);
        if (!r.path("ok").asBoolean()) {
            throw new IOException("renderMacos failed: " + r.path("error").asText());
        }
        return r;
    }

    /**
     * Drops the wrap the bridge prepared ahead (it holds one count of srt's active-sandbox counter, which would keep
     * the mount points of a sandbox that ended from being removed); the next cleanup prepares a new one.
     */
    void discard() throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "discard");
        call(req, Duration.ofSeconds(10));
    }

    /**
     * A round trip that nothing else rides on: events the bridge wrote before its reply (a proxy's connect to a granted
     * host port) have been handed to the engine when it returns.
     */
    void ping() throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "ping");
        call(req, Duration.ofSeconds(10));
    }

    /** {@link #ping} sent now and awaited later ({@link Pending#await}), so other work can run meanwhile. */
    /**
     * Tells the bridge the ports of our own host listeners, refused to the sandbox from now on (it takes effect
     * before any queued request; waits for the bridge's answer, at most {@code timeout}).
     */
    void ownPorts(java.util.Set<Integer> ports, Duration timeout) throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "ownPorts");
        var arr = req.putArray("ports");
        ports.forEach(arr::add);
        call(req, timeout);
    }

    /** As {@link #ownPorts}, without waiting for the answer. */
    void ownPortsLater(java.util.Set<Integer> ports) throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "ownPorts");
        var arr = req.putArray("ports");
        ports.forEach(arr::add);
        send(req);
    }

    Pending pingLater() throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "ping");
        return send(req);
    }

    /** A request sent, its reply not yet awaited. */
    final class Pending {
        private final long id;
        private final String op;
        private final CompletableFuture<JsonNode> reply;

        private Pending(long id, String op, CompletableFuture<JsonNode> reply) {
            this.id = id;
            this.op = op;
            this.reply = reply;
        }

        JsonNode await(Duration timeout) throws IOException {
            try {
                return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("bridge call " + op + " failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            } finally {
                pending.remove(id);
            }
        }
    }

    private Pending send(ObjectNode req) throws IOException {
        if (!alive()) {
            throw new IOException("bridge is not running");
        }
        long id = ids.incrementAndGet();
        req.put("id", id);
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        try {
            byte[] line = (JSON.writeValueAsString(req) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (stdin) {
                stdin.write(line);
                stdin.flush();
            }
        } catch (IOException | RuntimeException e) {
            pending.remove(id);
            throw e;
        }
        return new Pending(id, req.path("op").asText(), f);
    }

    void cleanup() throws IOException {
        cleanup(true);
    }

    /** As above; {@code prepareNext} false when no wrap follows (the engine is closing). */
    void cleanup(boolean prepareNext) throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("op", "cleanup");
        if (!prepareNext) {
            req.put("prepare", false);
        }
        call(req, Duration.ofSeconds(10));
    }

    private JsonNode call(ObjectNode req, Duration timeout) throws IOException {
        return send(req).await(timeout);
    }

    /**
     * The time of an engine event, as the bridge writes it ({@code Date.toISOString()}: {@code
     * 2026-12-02T07:43:16.544Z}) read directly — a few of these arrive with every warm command (srt's monitor sees the
     * shell's own user-namespace and pipe writes), and {@link Instant#parse} costs tens of microseconds each; any other
     * form goes through it.
     */
    static Instant isoTime(String s) {
        if (s.length() == 24 && "dddd-dd-ddTdd:dd:dd.dddZ".equals(shape(s))) {
            try {
                long day = java.time.LocalDate.of(num(s, 0, 4), num(s, 5, 7), num(s, 8, 10)).toEpochDay();
                int h = num(s, 11, 13);
                int m = num(s, 14, 16);
                int sec = num(s, 17, 19);
                if (h < 24 && m < 60 && sec < 60) {
                    long secs = day * 86_400 + h * 3_600L + m * 60L + sec;
                    return Instant.ofEpochSecond(secs, num(s, 20, 23) * 1_000_000L);
                }
            } catch (java.time.DateTimeException e) {
                // no such date: Instant.parse says so below
            }
        }
        return Instant.parse(s);
    }

    private static String shape(String s) {
        char[] c = s.toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (c[i] >= '0' && c[i] <= '9') {
                c[i] = 'd';
            }
        }
        return new String(c);
    }

    private static int num(String s, int from, int to) {
        return Integer.parseInt(s, from, to, 10);
    }

    /** The commandId an engine event names, or null when it names none. */
    private static String commandOf(JsonNode n) {
        JsonNode c = n.path("command");
        return c.isTextual() && !c.asText().isEmpty() ? c.asText() : null;
    }

    private static Instant timeOf(JsonNode n) {
        try {
            return isoTime(n.path("time").asText());
        } catch (RuntimeException e) {
            return Instant.now();
        }
    }

    private void readLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                JsonNode n;
                try {
                    n = JSON.readTree(line);
                } catch (IOException e) {
                    continue;
                }
                String event = n.path("event").asText("");
                if (event.equals("ready")) {
                    ready.complete(n.path("node").asText());
                } else if (event.equals("violation")) {
                    onViolation.accept(new EngineEvent(n.path("line").asText(), commandOf(n), timeOf(n)));
                } else if (event.equals("connect")) {
                    // the proxy dialled a host loopback port: reported as an allow line, attributed by the proxy
                    // username of the request that asked for it (bridge.mjs), as srt attributes its denies
                    onViolation.accept(new EngineEvent("allow network-outbound " + n.path("host").asText() + ":"
                            + n.path("port").asInt(), commandOf(n), timeOf(n)));
                } else if (n.has("id")) {
                    CompletableFuture<JsonNode> f = pending.get(n.path("id").asLong());
                    if (f != null) {
                        f.complete(n);
                    }
                }
            }
        } catch (IOException ignored) {
            // stream closed: the bridge is gone
        } finally {
            dead = true;
            ready.completeExceptionally(new IOException("bridge exited"));
            pending.values().forEach(f -> f.completeExceptionally(new IOException("bridge exited")));
        }
    }

    private void stderrLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                synchronized (stderrTail) {
                    stderrTail.addLast(line);
                    while (stderrTail.size() > 40) {
                        stderrTail.removeFirst();
                    }
                }
            }
        } catch (IOException ignored) {
            // closed with the process
        }
    }

    private static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        arr.forEach(x -> out.add(x.asText()));
        return out;
    }

    /** Asks the bridge to reset srt (removing its mount points and proxies) and exit; kills it if it lingers. */
    @Override
    public void close() {
        if (alive()) {
            try {
                ObjectNode req = JSON.createObjectNode();
                req.put("op", "shutdown");
                call(req, Duration.ofSeconds(5));
            } catch (IOException ignored) {
                // killed below
            }
        }
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already closed
        }
        try {
            if (!process.waitFor(3, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        // whatever srt left in the bridge's group (a socat whose parent died without resetting srt) ends here too
        ProcessRunner.killGroup(process, "KILL");
        dead = true;
    }
}
