package dev.monoagent.sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;

/**
 * The record of violations: one JSON line per violation in {@code <ws>/.mono-agent/violations/<date>.jsonl} (UTC
 * date), and an {@link Event.ViolationObserved} to the sink. srt's own store is a 100-entry ring; this file is the
 * record. Written by the host process only ({@code .mono-agent/} is write-denied inside the sandbox).
 */
final class ViolationLog {
    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private final Path dir;
    private final EventSink sink;

    ViolationLog(Path stateDir, EventSink sink) {
        this.dir = stateDir.resolve("violations");
        this.sink = sink;
    }

    synchronized void record(Violation v) {
        try {
            Files.createDirectories(dir);
            ObjectNode n = JSON.createObjectNode();
            n.put("time", v.time().toString());
            n.put("tier", v.tier().name());
            n.put("kind", v.kind().name());
            n.put("runId", v.runId());
            n.put("callId", v.callId());
            n.put("tool", v.tool());
            n.put("command", v.command());
            n.put("target", v.target());
            n.put("reason", v.reason());
            Path file = dir.resolve(v.time().atZone(ZoneOffset.UTC).toLocalDate() + ".jsonl");
            Files.writeString(file, JSON.writeValueAsString(n) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the event below still reaches the UI/CLI; a read-only state dir must not stop the command
        }
        sink.accept(new Event.ViolationObserved(v.time(), v));
    }

    /** Allowed host-loopback traffic: a line of its own type in the same record file, and the event. */
    synchronized void allowed(Event.NetworkAllowed a) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(a.time().atZone(ZoneOffset.UTC).toLocalDate() + ".jsonl");
            Files.writeString(file, dev.monoagent.common.EventJson.line(a) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // as above
        }
        sink.accept(a);
    }
}
