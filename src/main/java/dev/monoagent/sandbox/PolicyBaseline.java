package dev.monoagent.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.EventSink;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.SandboxMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Defence in depth for issue 9, item 1: the last policy a human accepted for a workspace, kept in the state dir
 * (which the agent can never write), and the rule that a policy weaker than it is not applied without a human
 * confirming. "Weaker" means it grants more in any {@link Dimension} of the compiled policy: sandbox off, the unsafe
 * host fallback, a network grant not granted before (a mode, an allowlist host, a loopback port — removing
 * {@code localhostPorts} grants every listener), a new writable or readable root, a denyWrite glob, a protected path
 * or a read-denied path gone. Every change — accepted, refused or
 * recorded as stronger — is an event ({@link Event.PolicyChanged}) and a line in
 * {@code .mono-agent/policy-changes.jsonl}.
 */
public final class PolicyBaseline {
    /** The flag that accepts a weaker policy on the command line. */
    public static final String ACCEPT_FLAG = "--accept-policy-change";

    /** The error code printed when a weaker policy is refused. */
    public static final String WEAKER_CODE = "[sandbox_policy_weaker]";

    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyBaseline() {}

    /** How {@code now} relates to the accepted baseline. */
    public sealed interface Decision {
        /** No baseline yet (first use) or identical: nothing to confirm. */
        record Same(boolean first) implements Decision {}

        /** Different but grants nothing new (e.g. a new denyWrite glob): recorded without asking. */
        record Stronger(List<String> changes) implements Decision {}

        /** Grants more than the accepted policy: needs a human. {@code weaker} lists each widening. */
        record Weaker(List<String> weaker, List<String> changes) implements Decision {}
    }

    static Path file(Path workspace) {
        return workspace.resolve(".mono-agent").resolve("policy-accepted.json");
    }

    /** Compares {@code now} with the accepted baseline of its workspace (no baseline: {@code Same(first)}). */
    public static Decision check(Policy now) {
        JsonNode accepted = upgrade(read(now.workspace()));
        JsonNode current = shape(now);
        if (accepted == null) {
            return new Decision.Same(true);
        }
        if (accepted.equals(current)) {
            return new Decision.Same(false);
        }
        List<String> weaker = weakenings(accepted, current);
        List<String> changes = changes(accepted, current);
        return weaker.isEmpty() ? new Decision.Stronger(changes) : new Decision.Weaker(weaker, changes);
    }

    /**
     * Records {@code now} as the accepted policy and reports the change ({@code by}: "first use", "stronger",
     * "--accept-policy-change", "dialog").
     */
    public static void accept(Policy now, Decision d, String by, EventSink sink) throws IOException {
        Path f = file(now.workspace());
        Files.createDirectories(f.getParent());
        Path tmp = f.resolveSibling(f.getFileName() + ".tmp");
        Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(shape(now)) + "\n");
        Files.move(tmp, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        if (!(d instanceof Decision.Same s) || s.first()) {
            log(now, d, true, by, sink);
        }
    }

    /** Reports a refused weaker policy (nothing is applied). */
    public static void refused(Policy now, Decision.Weaker d, String by, EventSink sink) {
        log(now, d, false, by, sink);
    }

    private static void log(Policy now, Decision d, boolean applied, String by, EventSink sink) {
        List<String> changes = switch (d) {
            case Decision.Same s -> List.of("first policy for this workspace");
            case Decision.Stronger s -> s.changes();
            case Decision.Weaker w -> w.changes();
        };
        Event.PolicyChanged e = new Event.PolicyChanged(Instant.now(), now.workspace().toString(), changes,
                d instanceof Decision.Weaker, applied, by);
        sink.accept(e);
        try {
            Path log = now.workspace().resolve(".mono-agent").resolve("policy-changes.jsonl");
            Files.writeString(log, EventJson.line(e) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException | RuntimeException ignored) {
            // the event went to the sink; the state dir may be unwritable (reported by status elsewhere)
        }
    }

    /** The message the CLI prints when it refuses. */
    public static String refusal(Decision.Weaker w) {
        StringBuilder sb = new StringBuilder("mono-agent: " + WEAKER_CODE + " the sandbox policy is weaker than the "
                + "one last accepted for this workspace:\n");
        w.weaker().forEach(x -> sb.append("  - ").append(x).append('\n'));
        sb.append("Nothing was run. If you made this change, re-run with ").append(ACCEPT_FLAG)
                .append(" to accept it.");
        return sb.toString();
    }

    private static JsonNode read(Path ws) {
        try {
            Path f = file(ws);
            return Files.isRegularFile(f) ? JSON.readTree(Files.readString(f)) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * One way a policy can grant more. Each component of {@link Policy} belongs to exactly one dimension (or is the
     * workspace the baseline is kept for); {@link #DIMENSION_OF} is checked against the record's components when
     * this class loads, so a component added to Policy without a rule here fails every test that touches a
     * baseline instead of silently not being compared. A dimension's items are either grants (an item of the new
     * policy that no item of the accepted one covers is a widening) or protections (an accepted item that is gone is).
     */
    enum Dimension {
        MODE("sandbox.mode", true),
        HOST_FALLBACK("sandbox.fallback", true),
        NETWORK("sandbox.network", true),
        READABLE_ROOTS("sandbox.readableRoots", true),
        WRITABLE_ROOTS("sandbox.writableRoots", true),
        DENY_WRITE("sandbox.denyWrite", false),
        PROTECTED("protected path", false),
        DENY_READ("read-denied path", false);

        final String key;
        final boolean grants;

        Dimension(String key, boolean grants) {
            this.key = key;
            this.grants = grants;
        }

        /** This dimension's items in {@code p}, sorted. */
        List<String> items(Policy p) {
            List<String> out = switch (this) {
                case MODE -> p.mode() == SandboxMode.OFF ? List.of("off") : List.of();
                // the host fallback takes effect only with both switches set (Policy.unsafeAllowed)
                case HOST_FALLBACK -> p.unsafeAllowed() && p.fallback() == Fallback.UNSAFE_HOST_PROCESS
                        ? List.of("unsafe-host-process") : List.of();
                case NETWORK -> networkGrants(p);
                case READABLE_ROOTS -> p.readableRoots().stream().map(Path::toString).toList();
                case WRITABLE_ROOTS -> p.writableRoots().stream().map(Path::toString).toList();
                case DENY_WRITE -> p.denyWriteGlobs();
                // host facts outside the workspace (the engine cache, a hooks path under home) are not policy choices
                // and the config/env file names protected at any depth (--config review.json)
                case PROTECTED -> java.util.stream.Stream.concat(p.protectedLiterals().stream()
                        .filter(l -> l.startsWith(p.workspace())).map(Path::toString),
                        p.hostFileNames().stream().map(n -> "any depth: " + n)).toList();
                case DENY_READ -> java.util.stream.Stream.concat(p.denyRead().stream(), p.readSecrets().stream())
                        .map(Path::toString).toList();
            };
            return out.stream().distinct().sorted().toList();
        }

        /** Whether the grant {@code o} already grants {@code n}. */
        boolean covers(String o, String n) {
            if (o.equals(n)) {
                return true;
            }
            return switch (this) {
                case READABLE_ROOTS, WRITABLE_ROOTS -> Path.of(n).startsWith(Path.of(o));
                case NETWORK -> o.equals("all") || (o.equals("loopback:*") && n.startsWith("loopback:"))
                        || (o.startsWith("host:") && n.startsWith("host:") && hostCovers(o.substring(5), n.substring(5)));
                default -> false;
            };
        }
    }

    /** Which dimension each component of {@link Policy} is compared in ({@code null}: the workspace itself). */
    static final Map<String, Dimension> DIMENSION_OF = dimensions();

    private static Map<String, Dimension> dimensions() {
        Map<String, Dimension> m = new LinkedHashMap<>();
        m.put("workspace", null);
        m.put("mode", Dimension.MODE);
        m.put("fallback", Dimension.HOST_FALLBACK);
        m.put("unsafeAllowed", Dimension.HOST_FALLBACK);
        m.put("readableRoots", Dimension.READABLE_ROOTS);
        m.put("writableRoots", Dimension.WRITABLE_ROOTS);
        m.put("denyWriteGlobs", Dimension.DENY_WRITE);
        m.put("protectedLiterals", Dimension.PROTECTED);
        m.put("hostFileNames", Dimension.PROTECTED);
        m.put("denyRead", Dimension.DENY_READ);
        m.put("readSecrets", Dimension.DENY_READ);
        m.put("network", Dimension.NETWORK);
        m.put("allowlist", Dimension.NETWORK);
        m.put("localhostPorts", Dimension.NETWORK);
        List<String> components = java.util.Arrays.stream(Policy.class.getRecordComponents())
                .map(java.lang.reflect.RecordComponent::getName).toList();
        if (!new java.util.HashSet<>(components).equals(m.keySet())) {
            throw new IllegalStateException("PolicyBaseline compares " + m.keySet() + " but Policy has " + components
                    + ": give every component of Policy a weaker-policy dimension");
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * What the network settings let a command reach, as the engine compiles them: {@code all}; {@code loopback:*}
     * (every host loopback listener) or {@code loopback:<port>} in localhost mode; {@code host:<entry>} per
     * allowlist entry in allowlist mode (a plain entry also grants its subdomains, as srt is told).
     */
    static List<String> networkGrants(Policy p) {
        return switch (p.network()) {
            case NONE -> List.of();
            case ALL -> List.of("all");
            case LOCALHOST -> p.localhostPorts().isEmpty() ? List.of("loopback:*")
                    : p.localhostPorts().stream().map(port -> "loopback:" + port).toList();
            case ALLOWLIST -> p.allowlist().stream().map(h -> h.trim().toLowerCase()).filter(h -> !h.isEmpty())
                    .map(h -> "host:" + h).toList();
        };
    }

    /** Whether allowlist entry {@code o} grants everything entry {@code n} grants. */
    private static boolean hostCovers(String o, String n) {
        boolean oSub = o.startsWith("*.");
        String ob = oSub ? o.substring(2) : o;
        boolean nSub = n.startsWith("*.");
        String nb = nSub ? n.substring(2) : n;
        if (nb.endsWith("." + ob)) {
            return true;
        }
        // a plain entry grants itself and its subdomains; "*.x" only the subdomains
        return nb.equals(ob) && (!oSub || nSub);
    }

    /** The comparable shape of a policy: each dimension's items, derived from the compiled policy. */
    static ObjectNode shape(Policy p) {
        ObjectNode n = JSON.createObjectNode();
        n.put("version", SHAPE_VERSION);
        for (Dimension d : Dimension.values()) {
            strings(n.putArray(d.name()), d.items(p));
        }
        return n;
    }

    private static final int SHAPE_VERSION = 2;

    /**
     * A baseline written before the shape was derived per dimension, read in today's terms. It held no ports and no
     * read denies: ports read as every listener (what it granted when it was accepted unless narrowed), the read
     * denies as not recorded (no widening can be judged against them).
     */
    static JsonNode upgrade(JsonNode old) {
        if (old == null || old.path("version").asInt() == SHAPE_VERSION) {
            return old;
        }
        ObjectNode n = JSON.createObjectNode();
        n.put("version", SHAPE_VERSION);
        strings(n.putArray(Dimension.MODE.name()), old.path("mode").asText().equals("OFF") ? List.of("off") : List.of());
        strings(n.putArray(Dimension.HOST_FALLBACK.name()), old.path("unsafeHostFallback").asBoolean()
                ? List.of("unsafe-host-process") : List.of());
        List<String> net = switch (old.path("network").asText()) {
            case "ALL" -> List.of("all");
            case "LOCALHOST" -> List.of("loopback:*");
            case "ALLOWLIST" -> list(old, "allowlist").stream().map(h -> "host:" + h).toList();
            default -> List.of();
        };
        strings(n.putArray(Dimension.NETWORK.name()), net);
        strings(n.putArray(Dimension.READABLE_ROOTS.name()), list(old, "readableRoots"));
        strings(n.putArray(Dimension.WRITABLE_ROOTS.name()), list(old, "writableRoots"));
        strings(n.putArray(Dimension.DENY_WRITE.name()), list(old, "denyWrite"));
        strings(n.putArray(Dimension.PROTECTED.name()), list(old, "protected"));
        return n;
    }

    private static void strings(ArrayNode a, List<String> xs) {
        xs.forEach(a::add);
    }

    private static List<String> list(JsonNode n, String field) {
        List<String> out = new ArrayList<>();
        n.path(field).forEach(x -> out.add(x.asText()));
        return out;
    }

    /** Each way {@code now} grants more than {@code was}, as a sentence naming the config key. */
    static List<String> weakenings(JsonNode was, JsonNode now) {
        List<String> out = new ArrayList<>();
        for (Dimension d : Dimension.values()) {
            if (!was.has(d.name()) || !now.has(d.name())) {
                continue; // not recorded when this baseline was accepted: nothing to judge against
            }
            List<String> old = list(was, d.name());
            List<String> cur = list(now, d.name());
            List<String> wider = d.grants
                    ? cur.stream().filter(n -> old.stream().noneMatch(o -> d.covers(o, n))).toList()
                    : old.stream().filter(o -> !cur.contains(o)).toList();
            if (wider.isEmpty()) {
                continue;
            }
            String wn = networkMode(old);
            String nn = networkMode(cur);
            if (d == Dimension.NETWORK && !wn.equals(nn)) {
                out.add("sandbox.network.mode: " + wn + " -> " + nn);
                continue;
            }
            for (String item : wider) {
                out.add(sentence(d, item));
            }
        }
        return out;
    }

    /** The network mode a list of network grants comes from (for the sentence). */
    private static String networkMode(List<String> grants) {
        if (grants.isEmpty()) {
            return "none";
        }
        String g = grants.get(0);
        return g.equals("all") ? "all" : g.startsWith("loopback:") ? "localhost" : "allowlist";
    }

    private static String sentence(Dimension d, String item) {
        return switch (d) {
            case MODE -> "sandbox.mode: native -> off (commands would run on the host, unsandboxed)";
            case HOST_FALLBACK -> "sandbox.fallback: fail-closed -> unsafe-host-process (commands may run on the host)";
            case NETWORK -> item.equals("loopback:*")
                    ? "sandbox.network.localhostPorts: no longer narrowed (every host loopback listener is granted)"
                    : item.startsWith("loopback:")
                    ? "sandbox.network.localhostPorts: adds " + item.substring("loopback:".length())
                    : "sandbox.network.allowlist: adds " + item.substring("host:".length());
            case READABLE_ROOTS, WRITABLE_ROOTS -> d.key + ": adds " + item;
            case DENY_WRITE -> "sandbox.denyWrite: no longer protects " + item;
            case PROTECTED -> "protected path no longer protected: " + item;
            case DENY_READ -> "read-denied path no longer denied: " + item;
        };
    }

    /** Every difference (for the log), widening or not. */
    static List<String> changes(JsonNode was, JsonNode now) {
        List<String> out = new ArrayList<>(weakenings(was, now));
        List<String> reverse = weakenings(now, was);
        for (String r : reverse) {
            out.add("tightened: " + r.replace(" -> ", " <- ").replace(": adds ", ": removes ")
                    .replace("no longer protects ", "now protects ")
                    .replace("no longer narrowed (every host loopback listener is granted)",
                            "now narrowed to the listed ports")
                    .replace("read-denied path no longer denied: ", "read-denied path added: ")
                    .replace("protected path no longer protected: ", "protected path added: "));
        }
        for (Dimension d : Dimension.values()) {
            if (!was.has(d.name()) && now.has(d.name())) {
                out.add("now recorded: " + d.key);
            }
        }
        return out.isEmpty() ? List.of("policy details changed") : out;
    }
}
