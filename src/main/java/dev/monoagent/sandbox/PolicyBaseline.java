package dev.monoagent.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.EventSink;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Defence in depth for issue 9, item 1: the last policy a human accepted for a workspace, kept in the state dir
 * (which the agent can never write), and the rule that a policy weaker than it is not applied without a human
 * confirming. "Weaker" means it grants more: sandbox off, the unsafe host fallback, a wider network mode or allowlist,
 * a new writable or readable root, a denyWrite glob or a protected path gone. Every change — accepted, refused or
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
        JsonNode accepted = read(now.workspace());
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

    /** The comparable shape of a policy. */
    static ObjectNode shape(Policy p) {
        ObjectNode n = JSON.createObjectNode();
        n.put("mode", p.mode().name());
        n.put("unsafeHostFallback", p.unsafeAllowed());
        n.put("network", p.network().name());
        strings(n.putArray("allowlist"), p.allowlist().stream().map(String::toLowerCase).sorted().toList());
        strings(n.putArray("readableRoots"), p.readableRoots().stream().map(Path::toString).sorted().toList());
        strings(n.putArray("writableRoots"), p.writableRoots().stream().map(Path::toString).sorted().toList());
        strings(n.putArray("denyWrite"), p.denyWriteGlobs().stream().sorted().toList());
        // host facts outside the workspace (the engine cache, a hooks path under home) are not policy choices
        strings(n.putArray("protected"), p.protectedLiterals().stream().filter(l -> l.startsWith(p.workspace()))
                .map(Path::toString).sorted().toList());
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

    private static int rank(String network) {
        return switch (network) {
            case "NONE" -> 0;
            case "LOCALHOST" -> 1;
            case "ALLOWLIST" -> 2;
            default -> 3;
        };
    }

    /** Each way {@code now} grants more than {@code was}, as a sentence naming the config key. */
    static List<String> weakenings(JsonNode was, JsonNode now) {
        List<String> out = new ArrayList<>();
        if (was.path("mode").asText().equals(SandboxMode.NATIVE.name())
                && !now.path("mode").asText().equals(SandboxMode.NATIVE.name())) {
            out.add("sandbox.mode: native -> off (commands would run on the host, unsandboxed)");
        }
        if (!was.path("unsafeHostFallback").asBoolean() && now.path("unsafeHostFallback").asBoolean()) {
            out.add("sandbox.fallback: fail-closed -> unsafe-host-process (commands may run on the host)");
        }
        String wn = was.path("network").asText();
        String nn = now.path("network").asText();
        if (rank(nn) > rank(wn)) {
            out.add("sandbox.network.mode: " + wn.toLowerCase() + " -> " + nn.toLowerCase());
        }
        if (nn.equals(NetworkMode.ALLOWLIST.name()) && wn.equals(nn)) {
            for (String h : list(now, "allowlist")) {
                if (!list(was, "allowlist").contains(h)) {
                    out.add("sandbox.network.allowlist: adds " + h);
                }
            }
        }
        for (String key : List.of("writableRoots", "readableRoots")) {
            List<String> old = list(was, key);
            for (String r : list(now, key)) {
                if (old.stream().noneMatch(o -> Path.of(r).startsWith(Path.of(o)))) {
                    out.add("sandbox." + key + ": adds " + r);
                }
            }
        }
        for (String g : list(was, "denyWrite")) {
            if (!list(now, "denyWrite").contains(g)) {
                out.add("sandbox.denyWrite: no longer protects " + g);
            }
        }
        for (String lit : list(was, "protected")) {
            if (!list(now, "protected").contains(lit)) {
                out.add("protected path no longer protected: " + lit);
            }
        }
        return out;
    }

    /** Every difference (for the log), widening or not. */
    static List<String> changes(JsonNode was, JsonNode now) {
        List<String> out = new ArrayList<>(weakenings(was, now));
        List<String> reverse = weakenings(now, was);
        for (String r : reverse) {
            out.add("tightened: " + r.replace(" -> ", " <- ").replace(": adds ", ": removes ")
                    .replace("no longer protects ", "now protects ")
                    .replace("protected path no longer protected: ", "protected path added: "));
        }
        return out.isEmpty() ? List.of("policy details changed") : out;
    }
}
