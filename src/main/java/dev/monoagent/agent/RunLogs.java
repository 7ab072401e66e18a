package dev.monoagent.agent;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.Seal;
import dev.monoagent.common.Violation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The run log, as an event-bus consumer: one append-only JSONL file per run at
 * {@code <ws>/.mono-agent/runs/<runId>/events.jsonl}, one {@link EventJson#line} per event. A run's file is created on
 * its first event and starts with a {@link Event.RunHeader} (policy in force, engine fingerprint, last self-check).
 * Events that carry no run id (sandbox state changes, self-checks) go to every open run, except allowed traffic that no
 * command could be named for: that stays in the workspace's violation record alone, never a line in runs that did not
 * make it. The file is fsynced on every violation and when the run finishes ({@link Event.RunFinished}) or the service
 * closes; written by the host only ({@code .mono-agent/} is write-denied inside the sandbox).
 *
 * <p>What this class writes is sealed ({@link Seal}, the {@code events.jsonl.seal} sidecar): each time the log is
 * opened a new range starts at the file's end and is sealed after the header, every finished tool call, every
 * violation, a failure, and when the run finishes or the service closes. {@link RunRecords} counts only sealed lines,
 * so a run log that came with the repository is never listed as a run of this machine.
 */
final class RunLogs implements EventSink, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RunLogs.class.getName());

    private final Path workspace;
    private final Function<String, Event.RunHeader> header;
    private final Map<String, FileChannel> open = new LinkedHashMap<>();
    private final Map<String, Seal.Chain> chains = new LinkedHashMap<>();
    /** The user's seal, or null when its key cannot be had (the logs are then written unsealed, and say so). */
    private final Seal seal;
    /**
     * Runs this process finished. An event that arrives for one afterwards (a violation the engine's feed reports
     * late) is appended after its {@code RunFinished} as it is — never dropped, and without a second header.
     */
    private final java.util.Set<String> finished = new java.util.HashSet<>();

    /** {@code header} makes the first line for a run id; {@code seal} seals what is written (null: nothing is). */
    RunLogs(Path workspace, Function<String, Event.RunHeader> header, Seal seal) {
        this.workspace = workspace;
        this.header = header;
        this.seal = seal;
    }

    /** The log file of a run. */
    static Path file(Path workspace, String runId) {
        return workspace.resolve(".mono-agent").resolve("runs").resolve(safe(runId)).resolve("events.jsonl");
    }

    /** Every run log of a workspace (oldest first by modification time). */
    static List<Path> all(Path workspace) {
        Path dir = workspace.resolve(".mono-agent").resolve("runs");
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (var runs = Files.list(dir)) {
            runs.map(r -> r.resolve("events.jsonl")).filter(Files::isRegularFile).forEach(out::add);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot list run logs: " + e.getMessage());
        }
        out.sort(java.util.Comparator.comparing(p -> p.toFile().lastModified()));
        return out;
    }

    @Override
    public void accept(Event e) {
        if (e instanceof Event.RunHeader) {
            return; // written by this class itself
        }
        String runId = Event.runIdOf(e);
        if (e instanceof Event.RunStarted && runId != null) {
            synchronized (this) {
                finished.remove(runId); // the same id started again: a new session of the log, with its own header
            }
        }
        // the header reads the sandbox state; make it outside this lock (the engine publishes while holding its own)
        Event.RunHeader h = runId != null && !isOpen(runId) && !isFinished(runId) ? header.apply(runId) : null;
        synchronized (this) {
            if (runId == null) {
                if (e instanceof Event.NetworkAllowed) {
                    return; // no run made it: kept once in the engine's record, never put on every open run
                }
                for (String id : List.copyOf(open.keySet())) {
                    append(id, e, null);
                }
                return;
            }
            boolean late = finished.contains(runId);
            append(runId, e, h);
            if (e instanceof Event.RunFinished) {
                finished.add(runId);
            }
            if (late || e instanceof Event.RunFinished) {
                closeRun(runId);
            }
        }
    }

    /** The runs whose log this process opened and that have not finished. */
    synchronized List<String> openRuns() {
        return open.keySet().stream().filter(id -> !finished.contains(id)).toList();
    }

    private synchronized boolean isFinished(String runId) {
        return finished.contains(runId);
    }

    private synchronized boolean isOpen(String runId) {
        return open.containsKey(runId);
    }

    private void append(String runId, Event e, Event.RunHeader h) {
        // a publisher that was interrupted (a stopped tool call reporting its end) would make the channel close
        // itself on write or force (ClosedByInterruptException) and lose the rest of the run's log: write with the
        // flag cleared, then restore it
        boolean interrupted = Thread.interrupted();
        try {
            FileChannel ch = open.get(runId);
            if (ch == null) {
                Path f = file(workspace, runId);
                Files.createDirectories(f.getParent());
                ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND);
                open.put(runId, ch);
                if (seal != null) {
                    chains.put(runId, seal.chain(Seal.label(workspace, f), ch.size()));
                }
                if (!finished.contains(runId)) {
                    write(runId, ch, h != null ? h : header.apply(runId));
                    seal(runId);
                }
            }
            write(runId, ch, e);
            if (e instanceof Event.ViolationObserved) {
                ch.force(false);
            }
            if (e instanceof Event.ViolationObserved || e instanceof Event.ToolCallFinished
                    || e instanceof Event.RunFailed) {
                seal(runId);
            }
        } catch (IOException | RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, "run log " + runId + ": " + ex.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void write(String runId, FileChannel ch, Event e) throws IOException {
        byte[] bytes = (EventJson.line(e) + "\n").getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            ch.write(b);
        }
        Seal.Chain c = chains.get(runId);
        if (c != null) {
            c.update(bytes);
        }
    }

    /** Records the run's sealed range so far in its sidecar. */
    private void seal(String runId) {
        Seal.Chain c = chains.get(runId);
        if (c != null) {
            try {
                c.write(file(workspace, runId));
            } catch (IOException | RuntimeException ex) {
                LOG.log(System.Logger.Level.WARNING, "run log " + runId + ": cannot seal: " + ex.getMessage());
            }
        }
    }

    private void closeRun(String runId) {
        FileChannel ch = open.remove(runId);
        if (ch != null) {
            try (ch) {
                ch.force(false);
            } catch (IOException ex) {
                LOG.log(System.Logger.Level.WARNING, "run log " + runId + ": " + ex.getMessage());
            }
            seal(runId);
        }
        chains.remove(runId);
    }

    /**
     * Every violation recorded in the workspace's run logs by this machine (sealed lines only), oldest first;
     * unreadable lines are skipped.
     */
    static List<Violation> violations(Path workspace, Seal seal) {
        List<Violation> out = new ArrayList<>();
        for (Path f : all(workspace)) {
            try {
                out.addAll(RunRecords.parse(f.getParent().getFileName().toString(), f, workspace, seal).violations());
            } catch (java.io.UncheckedIOException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot read run log " + f + ": " + e.getMessage());
            }
        }
        out.sort(java.util.Comparator.comparing(Violation::time));
        return out;
    }

    private static String safe(String id) {
        return id == null ? "unknown" : id.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    @Override
    public synchronized void close() {
        for (String id : List.copyOf(open.keySet())) {
            closeRun(id);
        }
    }
}
