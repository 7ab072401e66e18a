package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.monoagent.common.Seal;
import dev.monoagent.model.Item;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One conversation as the model sees it (user turns without their recall blocks, assistant text, tool calls and
 * their outputs, opaque reasoning), persisted as {@code .mono-agent/sessions/<id>.jsonl}: a header line, then one
 * item per line. A run rewrites the whole file when it ends (temp file, fsync, atomic rename), so a crash leaves the
 * previous complete conversation, never a torn one. The directory is under the state dir the agent's tools cannot
 * write.
 *
 * <p>Each save is sealed ({@link Seal}, a {@code .seal} sidecar made with the user's key). Only sealed conversations
 * are listed, loaded or continued: a conversation file that came with the repository would otherwise be shown as the
 * reviewer's history and, continued, be sent to the model as the reviewer's own earlier turns.
 */
public final class Conversation {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC);

    private final Path file;
    private final String id;
    private final Instant created;
    /** When it was last saved (its creation before the first save). */
    private Instant updated;
    private final List<Item> items;
    private final List<String> runs;
    private final Path workspace;
    private final Seal seal;

    private Conversation(Path workspace, Seal seal, Path file, String id, Instant created, List<Item> items,
                         List<String> runs) {
        this.workspace = workspace;
        this.seal = seal;
        this.file = file;
        this.id = id;
        this.created = created;
        this.updated = created;
        this.items = items;
        this.runs = runs;
    }

    /** The sessions directory of a workspace. */
    public static Path dir(Path workspace) {
        return workspace.resolve(".mono-agent").resolve("sessions");
    }

    /** As {@link #create(Path, Map)} with the process environment. */
    public static Conversation create(Path workspace) {
        return create(workspace, System.getenv());
    }

    /** A new, empty conversation (written when its first run ends), sealed with the key {@code env} locates. */
    public static Conversation create(Path workspace, Map<String, String> env) {
        Instant now = Instant.now();
        String id = "conv-" + ID_TIME.format(now) + "-"
                + Integer.toHexString(0x10000 + ThreadLocalRandom.current().nextInt(0xf0000)).substring(1);
        return new Conversation(workspace, RunRecords.userSeal(env), dir(workspace).resolve(id + ".jsonl"), id, now,
                new ArrayList<>(), new ArrayList<>());
    }

    /**
     * A conversation as the window's history lists it.
     *
     * @param firstPrompt the first user turn (null when it has none)
     * @param updated     when its last run saved it
     * @param turns       its user turns (one per run)
     */
    public record Summary(String id, String firstPrompt, Instant updated, int turns) {}

    /**
     * The workspace's conversations, newest first (by their header's {@code updated}); a file that cannot be read is
     * left out (the history shows what it can).
     */
    public static List<Summary> list(Path workspace) throws IOException {
        return list(workspace, System.getenv());
    }

    /** As {@link #list(Path)}, sealed conversations only, with the key {@code env} locates. */
    public static List<Summary> list(Path workspace, Map<String, String> env) throws IOException {
        Seal seal = RunRecords.userSeal(env);
        List<Summary> out = new ArrayList<>();
        for (Path f : files(workspace)) {
            try {
                Conversation c = read(workspace, seal, f);
                String first = null;
                int turns = 0;
                for (Item i : c.items) {
                    if (i instanceof Item.UserText u) {
                        first = first == null ? u.text() : first;
                        turns++;
                    }
                }
                out.add(new Summary(c.id, first, c.updated, turns));
            } catch (IOException | RuntimeException e) {
                // torn, foreign or not sealed here: not listed
            }
        }
        out.sort(Comparator.comparing(Summary::updated).reversed().thenComparing(Summary::id,
                Comparator.reverseOrder()));
        return out;
    }

    /** The workspace's conversation files (none when it has no sessions directory). */
    private static List<Path> files(Path workspace) throws IOException {
        Path d = dir(workspace);
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (var s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".jsonl")).toList();
        }
    }

    /** As {@link #latest(Path, Map)} with the process environment. */
    public static Optional<Conversation> latest(Path workspace) throws IOException {
        return latest(workspace, System.getenv());
    }

    /** The most recently updated conversation of the workspace sealed on this machine, if any. */
    public static Optional<Conversation> latest(Path workspace, Map<String, String> env) throws IOException {
        Seal seal = RunRecords.userSeal(env);
        List<Path> files = new ArrayList<>(files(workspace));
        files.sort(Comparator.comparing((Path p) -> {
            try {
                return Files.getLastModifiedTime(p).toInstant();
            } catch (IOException e) {
                return Instant.EPOCH;
            }
        }).thenComparing(p -> p.getFileName().toString()).reversed());
        IOException first = null;
        for (Path f : files) {
            try {
                return Optional.of(read(workspace, seal, f));
            } catch (NotSealed e) {
                // not this machine's: never continued
            } catch (IOException e) {
                first = first == null ? e : first;
                break;
            }
        }
        if (first != null) {
            throw first;
        }
        return Optional.empty();
    }

    /** A conversation file this machine did not write (or that changed since): it is ignored. */
    static final class NotSealed extends IOException {
        private static final long serialVersionUID = 1L;

        NotSealed(String message) {
            super(message);
        }
    }

    /**
     * The conversation with this id.
     *
     * @throws IOException when there is none or it cannot be read
     */
    public static Conversation load(Path workspace, String id) throws IOException {
        return load(workspace, id, System.getenv());
    }

    /** As {@link #load(Path, String)}, with the key {@code env} locates; one not sealed here is refused. */
    public static Conversation load(Path workspace, String id, Map<String, String> env) throws IOException {
        if (!id.matches("[A-Za-z0-9._-]+")) {
            throw new IOException("not a conversation id: " + id);
        }
        Path f = dir(workspace).resolve(id + ".jsonl");
        if (!Files.isRegularFile(f)) {
            throw new IOException("no conversation " + id + " in " + dir(workspace));
        }
        return read(workspace, RunRecords.userSeal(env), f);
    }

    private static Conversation read(Path workspace, Seal seal, Path f) throws IOException {
        byte[] bytes = Files.readAllBytes(f);
        Seal.State state = seal == null ? Seal.State.UNSEALED
                : seal.check(f, Seal.label(workspace, f), bytes).state();
        if (state != Seal.State.SEALED || bytes.length == 0 && seal != null) {
            throw new NotSealed("conversation " + f.getFileName() + " was not written by mono-agent on this machine ("
                    + (bytes.length == 0 ? "empty" : state.word()) + "); it is ignored");
        }
        List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
        if (lines.isEmpty()) {
            throw new IOException("empty conversation file " + f);
        }
        JsonNode head = JSON.readTree(lines.get(0));
        if (!"conversation".equals(head.path("type").asText())) {
            throw new IOException("not a conversation file (no header line): " + f);
        }
        List<String> runs = new ArrayList<>();
        head.path("runs").forEach(r -> runs.add(r.asText()));
        List<Item> items = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (!line.isBlank()) {
                items.add(item(JSON.readTree(line)));
            }
        }
        Conversation c = new Conversation(workspace, seal, f, head.path("id").asText(),
                Instant.parse(head.path("created").asText()), items, runs);
        if (head.hasNonNull("updated")) {
            c.updated = Instant.parse(head.path("updated").asText());
        }
        return c;
    }

    public String id() {
        return id;
    }

    public Path file() {
        return file;
    }

    /** The items, oldest first (a live, mutable list owned by the run using it). */
    public List<Item> items() {
        return items;
    }

    /** When it was last saved. */
    public Instant updated() {
        return updated;
    }

    /** The runs that added to this conversation, oldest first. */
    public List<String> runs() {
        return List.copyOf(runs);
    }

    /** Whether the conversation already holds turns. */
    public boolean hasTurns() {
        return !items.isEmpty();
    }

    /** Writes the conversation after {@code runId} (temp file, fsync, atomic rename). */
    public synchronized void save(String runId) {
        if (runId != null && !runs.contains(runId)) {
            runs.add(runId);
        }
        try {
            Files.createDirectories(file.getParent());
            StringBuilder sb = new StringBuilder();
            updated = Instant.now();
            ObjectNode head = JSON.createObjectNode().put("type", "conversation").put("id", id)
                    .put("created", created.toString()).put("updated", updated.toString());
            runs.forEach(head.putArray("runs")::add);
            sb.append(head).append('\n');
            for (Item i : items) {
                sb.append(json(i)).append('\n');
            }
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                var buf = java.nio.ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            if (seal != null) {
                byte[] b = Files.readAllBytes(file);
                seal.seal(file, Seal.label(workspace, file), b, 0, b.length);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save conversation " + id + ": " + e.getMessage(), e);
        }
    }

    static ObjectNode json(Item i) {
        ObjectNode n = JSON.createObjectNode();
        switch (i) {
            case Item.UserText u -> n.put("type", "user").put("text", u.text());
            case Item.AssistantText a -> n.put("type", "assistant").put("text", a.text());
            case Item.ToolCall c -> n.put("type", "tool_call").put("callId", c.callId()).put("name", c.name())
                    .put("arguments", c.arguments());
            case Item.ToolOutput o -> n.put("type", "tool_output").put("callId", o.callId()).put("output", o.output())
                    .put("isError", o.isError());
            case Item.Reasoning r -> n.put("type", "reasoning").put("wire", r.wire()).put("json", r.json());
        }
        return n;
    }

    static Item item(JsonNode n) throws IOException {
        return switch (n.path("type").asText()) {
            case "user" -> new Item.UserText(n.path("text").asText());
            case "assistant" -> new Item.AssistantText(n.path("text").asText());
            case "tool_call" -> new Item.ToolCall(n.path("callId").asText(), n.path("name").asText(),
                    n.path("arguments").asText());
            case "tool_output" -> new Item.ToolOutput(n.path("callId").asText(), n.path("output").asText(),
                    n.path("isError").asBoolean());
            case "reasoning" -> new Item.Reasoning(n.path("wire").asText(), n.path("json").asText());
            default -> throw new IOException("unknown conversation item type: " + n.path("type").asText());
        };
    }
}
