package dev.monoagent.sandbox;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;

/**
 * The record of violations: one {@link Event.ViolationObserved} per violation, as a line in the run log's format
 * ({@link EventJson}) in {@code <ws>/.mono-agent/violations/<date>.jsonl} (UTC date) and to the sink. srt's own store is a 100-entry ring; this file is the
 * record. Written by the host process only ({@code .mono-agent/} is write-denied inside the sandbox).
 *
 * <p>A command can make thousands of refused writes in a second, and each record is a file append, an event, a run
 * log line (fsynced) and a terminal line: recorded one by one, a flood would bury the one that matters and outrun the
 * record itself. So past {@link #KEEP} records of the same call, tier and kind, further ones are counted, not kept one
 * by one, and {@link #settle} writes one aggregated record per such group ({@link Violation#more} = how many) when
 * the call ends. Records the {@code individual} test picks (network, detected, anything naming a protected path) are
 * always kept one by one, whatever the count.
 */
final class ViolationLog {
    /** Records of one call, tier and kind kept one by one before further ones are aggregated. */
    static final int KEEP = 50;

    private final Path dir;
    private final EventSink sink;
    private final java.util.function.Predicate<Violation> individual;
    /** Records seen per group (kept or aggregated). */
    private final java.util.Map<Group, Long> seen = new java.util.HashMap<>();
    /** Aggregated since the group's last settle: count, the first and the last. */
    private final java.util.Map<Group, Tally> tallies = new java.util.LinkedHashMap<>();

    private record Group(String runId, String callId, Violation.Tier tier, Violation.Kind kind) {
        static Group of(Violation v) {
            return new Group(v.runId(), v.callId(), v.tier(), v.kind());
        }
    }

    private static final class Tally {
        long count;
        Violation first;
        Violation last;
    }

    ViolationLog(Path stateDir, EventSink sink) {
        this(stateDir, sink, v -> false);
    }

    /** {@code individual}: the records always kept one by one. */
    ViolationLog(Path stateDir, EventSink sink, java.util.function.Predicate<Violation> individual) {
        this.dir = stateDir.resolve("violations");
        this.sink = sink;
        this.individual = individual;
    }

    /**
     * Records {@code v}: one by one, or counted into its group's aggregate past {@link #KEEP} (see the class comment).
     *
     * @return whether it was recorded one by one (false: it is counted in the aggregate {@link #settle} writes)
     */
    synchronized boolean record(Violation v) {
        if (!v.aggregated() && !individual.test(v)) {
            Group g = Group.of(v);
            long n = seen.merge(g, 1L, Long::sum);
            if (n > KEEP) {
                Tally t = tallies.computeIfAbsent(g, k -> new Tally());
                t.count++;
                if (t.first == null) {
                    t.first = v;
                }
                t.last = v;
                return false;
            }
        }
        write(v);
        return true;
    }

    /**
     * Writes one aggregated record for each group of this call with records counted since its last settle, and
     * returns them (the call's result lists them with the ones kept one by one).
     */
    synchronized java.util.List<Violation> settle(String runId, String callId) {
        java.util.List<Violation> out = new java.util.ArrayList<>();
        for (var it = tallies.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Group g = e.getKey();
            if (java.util.Objects.equals(g.runId(), runId) && java.util.Objects.equals(g.callId(), callId)) {
                out.add(aggregate(g, e.getValue()));
                it.remove();
            }
        }
        out.forEach(this::write);
        return out;
    }

    /** As {@link #settle} for every call (the engine is closing). */
    synchronized java.util.List<Violation> settleAll() {
        java.util.List<Violation> out = new java.util.ArrayList<>();
        tallies.forEach((g, t) -> out.add(aggregate(g, t)));
        tallies.clear();
        out.forEach(this::write);
        return out;
    }

    private static Violation aggregate(Group g, Tally t) {
        Violation f = t.first;
        Violation l = t.last;
        String what = g.tier().name().toLowerCase(java.util.Locale.ROOT) + " "
                + g.kind().name().toLowerCase(java.util.Locale.ROOT);
        String reason = t.count + " more " + what + " records of this call were aggregated (counted, not kept one by "
                + "one, past " + KEEP + " of the same kind; records naming a protected path and network records are "
                + "always kept one by one): the first " + f.target() + " (" + f.reason() + ")"
                + (t.count > 1 ? ", the last " + l.target() + " (" + l.reason() + ")" : "");
        return new Violation(l.time(), g.tier(), g.kind(), g.runId(), g.callId(), l.tool(), l.command(), null, reason,
                t.count);
    }

    private void write(Violation v) {
        append(new Event.ViolationObserved(v.time(), v));
    }

    /** Allowed host-loopback traffic: a line of its own type in the same record file, and the event. */
    synchronized void allowed(Event.NetworkAllowed a) {
        append(a);
    }

    /**
     * One event: a line of the day's file, in the run log's format ({@link EventJson}), then to the sink. The host
     * writes here unsandboxed, so a link at the file's name (the config check refuses one that came with the
     * repository) is never followed.
     */
    private void append(Event e) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(e.time().atZone(ZoneOffset.UTC).toLocalDate() + ".jsonl");
            try (var ch = Files.newByteChannel(file, java.util.Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, java.nio.file.LinkOption.NOFOLLOW_LINKS))) {
                ch.write(java.nio.ByteBuffer.wrap((EventJson.line(e) + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        } catch (IOException ignored) {
            // the event still reaches the UI/CLI; a read-only state dir must not stop the command
        }
        sink.accept(e);
    }
}
