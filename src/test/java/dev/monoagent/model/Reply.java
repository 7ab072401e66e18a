package dev.monoagent.model;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scripted HTTP answer of the {@link FakeModelServer}: status, headers, the body in chunks written with a flush
 * (and an optional pause) between them, and how the body ends.
 *
 * @param pauseMs pause before each chunk
 */
public record Reply(int status, Map<String, String> headers, List<byte[]> chunks, long pauseMs, End end) {

    /** How the body ends. */
    public enum End {
        /** Normally. */
        CLOSE,
        /** The connection drops after the last chunk, short of the body (a broken stream). */
        DISCONNECT,
        /** The body stays open (keep-alive comments) until the client goes away. */
        HANG
    }

    public Reply {
        headers = Map.copyOf(headers);
        chunks = List.copyOf(chunks);
    }

    /** A {@code text/event-stream} body. */
    public static Reply sse(String body) {
        return new Reply(200, Map.of("content-type", "text/event-stream"), List.of(utf8(body)), 0, End.CLOSE);
    }

    /** An {@code application/x-ndjson} body. */
    public static Reply ndjson(String body) {
        return new Reply(200, Map.of("content-type", "application/x-ndjson"), List.of(utf8(body)), 0, End.CLOSE);
    }

    /** A JSON body with a status (error replies). */
    public static Reply json(int status, String body) {
        return new Reply(status, Map.of("content-type", "application/json"), List.of(utf8(body)), 0, End.CLOSE);
    }

    public Reply withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new Reply(status, h, chunks, pauseMs, end);
    }

    /** Re-chunks the body every {@code size} bytes (split reads: mid-line, mid-event, mid-UTF-8). */
    public Reply inChunksOf(int size) {
        byte[] all = bytes();
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < all.length; i += size) {
            out.add(java.util.Arrays.copyOfRange(all, i, Math.min(all.length, i + size)));
        }
        return new Reply(status, headers, out, pauseMs, end);
    }

    public Reply pausing(long ms) {
        return new Reply(status, headers, chunks, ms, end);
    }

    public Reply thenDisconnect() {
        return new Reply(status, headers, chunks, pauseMs, End.DISCONNECT);
    }

    public Reply thenHang() {
        return new Reply(status, headers, chunks, pauseMs, End.HANG);
    }

    byte[] bytes() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        chunks.forEach(b::writeBytes);
        return b.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
