package dev.monoagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventJson;
import dev.monoagent.common.RunStatus;
import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run log keeps what arrives after a run finished: a late violation is appended, not dropped or re-headed. */
class RunLogsTest {
    @TempDir
    Path ws;

    private List<Event> read(String runId) throws Exception {
        return Files.readAllLines(RunLogs.file(ws, runId)).stream().map(EventJson::read).toList();
    }

    private static Event.ViolationObserved violation(String runId, String callId) {
        return new Event.ViolationObserved(Instant.now(), new Violation(Instant.now(), Violation.Tier.OBSERVED,
                Violation.Kind.NETWORK, runId, callId, "Bash", "curl example.com", "example.com:443", "denied"));
    }

    @Test
    void aViolationReportedAfterRunFinishedIsAppendedWithoutASecondHeader() throws Exception {
        try (RunLogs logs = new RunLogs(ws, id -> new Event.RunHeader(Instant.now(), id, Map.of(), null, null),
                RunRecords.userSeal(Map.of()))) {
            logs.accept(new Event.RunStarted(Instant.now(), "r1", ws.toString()));
            logs.accept(violation("r1", "c1"));
            logs.accept(new Event.RunFinished(Instant.now(), "r1", RunStatus.COMPLETED));
            logs.accept(violation("r1", "c2")); // the engine's feed reported it after the run ended
            List<Event> log = read("r1");
            assertEquals(5, log.size(), log.toString());
            assertInstanceOf(Event.RunHeader.class, log.get(0));
            assertInstanceOf(Event.RunFinished.class, log.get(3));
            assertEquals("c2", assertInstanceOf(Event.ViolationObserved.class, log.get(4)).violation().callId());

            // the same id started again in this process: a new session of the log, with its own header
            logs.accept(new Event.RunStarted(Instant.now(), "r1", ws.toString()));
            List<Event> again = read("r1");
            assertInstanceOf(Event.RunHeader.class, again.get(5));
            assertInstanceOf(Event.RunStarted.class, again.get(6));
        }
    }

    @Test
    void allowedTrafficNoCommandWasNamedForGoesToNoRunLog() throws Exception {
        try (RunLogs logs = new RunLogs(ws, id -> new Event.RunHeader(Instant.now(), id, Map.of(), null, null),
                RunRecords.userSeal(Map.of()))) {
            logs.accept(new Event.RunStarted(Instant.now(), "r1", ws.toString()));
            logs.accept(new Event.RunStarted(Instant.now(), "r2", ws.toString()));
            logs.accept(new Event.NetworkAllowed(Instant.now(), null, null, "sandbox", "unattributed", "127.0.0.1",
                    8080, "java (pid 1)"));
            logs.accept(new Event.NetworkAllowed(Instant.now(), "r2", "c1", "Bash", "curl", "127.0.0.1", 8080,
                    "java (pid 1)"));
            assertEquals(List.of(), read("r1").stream().filter(Event.NetworkAllowed.class::isInstance).toList());
            assertEquals(List.of("c1"), read("r2").stream().filter(Event.NetworkAllowed.class::isInstance)
                    .map(e -> ((Event.NetworkAllowed) e).callId()).toList());
        }
    }
}
