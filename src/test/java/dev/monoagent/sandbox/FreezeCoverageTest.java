package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The freeze between NodeRepl evaluations is verified, not assumed: every process below the command
 * must be stopped. A long-lived command whose child is taken out of the command's freezer group (as a process that
 * escaped its group would be) must not keep running unobserved: the checkpoint fails closed and ends the command.
 * Also: a long-lived process with a ticking child really is stopped between checkpoints, and runs again after resume.
 */
class FreezeCoverageTest {
    @TempDir
    Path tmp;

    private static StartOutcome.Started start(Sandbox sb, Path ws, String script) {
        StartOutcome so = sb.start(new CommandSpec(List.of("/bin/bash", "-c", script), ws, Duration.ofSeconds(60),
                null, Map.of(), "run-fz", "call-fz", "NodeRepl", CommandSpec.DEFAULT_MAX_OUTPUT));
        return assertInstanceOf(StartOutcome.Started.class, so);
    }

    private static long size(Path f) throws Exception {
        return Files.exists(f) ? Files.size(f) : -1;
    }

    @Test
    void stoppedBetweenCheckpointsAndRunningAfterResume() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess p = start(sb, ws, "(setsid sh -c 'while :; do echo x >> tick; sleep 0.02; done' &) ; "
                    + "while :; do echo y >> tock; sleep 0.02; done").process();
            Thread.sleep(500);
            List<Violation> vs = p.checkpoint("call-fz1");
            assertTrue(vs.isEmpty(), vs.toString());
            long a = size(ws.resolve("tick"));
            long b = size(ws.resolve("tock"));
            Thread.sleep(400);
            assertEquals(a, size(ws.resolve("tick")), "a detached child ran while frozen");
            assertEquals(b, size(ws.resolve("tock")), "the process ran while frozen");
            p.resume();
            Thread.sleep(400);
            assertTrue(size(ws.resolve("tick")) > a && size(ws.resolve("tock")) > b, "resume lets it run again");
            p.checkpoint("call-fz2");
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "a frozen process can still be ended");
        }
    }

    /** With no cgroup at all (rlimits), the freeze is SIGSTOP of the whole tree, verified by each process's state. */
    @Test
    void withoutCgroupsTheTreeIsStoppedBySignal() throws Exception {
        NativeEngine.limitsFactory = Limits::rlimitsOnly;
        try {
            stoppedBetweenCheckpointsAndRunningAfterResume();
        } finally {
            NativeEngine.limitsFactory = Limits::detect;
        }
    }

    @Test
    void aProcessOutsideTheFrozenGroupEndsTheCommand() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            assumeTrue(ne != null && ne.limits().kind() != Limits.Kind.RLIMITS, "needs a cgroup freezer");
            SandboxProcess p = start(sb, ws, "sleep 300 & while :; do echo y >> tock; sleep 0.05; done").process();
            Thread.sleep(500);
            ProcessHandle sleeper = ProcessHandle.of(p.pid()).orElseThrow().descendants()
                    .filter(h -> h.info().command().orElse("").endsWith("/sleep")
                            && h.info().arguments().map(x -> x.length > 0 && x[0].equals("300")).orElse(false))
                    .findFirst().orElseThrow();
            // take it out of the command's freezer group: into the hierarchy's root group
            Path root = freezerRoot(sleeper.pid());
            assumeTrue(root != null, "the command is not in a freezer group here (SIGSTOP mode)");
            Files.writeString(root.resolve("cgroup.procs"), Long.toString(sleeper.pid()));
            List<Violation> vs = p.checkpoint("call-fz3");
            assertTrue(vs.stream().anyMatch(v -> v.reason().contains("outside its control group")), vs.toString());
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the command was ended");
            sleeper.destroyForcibly();
            assertFalse(p.isAlive());
        }
    }

    /**
     * The root of the hierarchy whose group freezes this process (v1 {@code freezer}, or the v2 tree when the
     * process sits in one of our v2 groups), or null when it is in none of our groups.
     */
    private static Path freezerRoot(long pid) throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
            String[] f = l.split(":", 3);
            if (f.length == 3 && f[2].contains("mono-agent-")) {
                if (List.of(f[1].split(",")).contains("freezer")) {
                    return Path.of("/sys/fs/cgroup/freezer");
                }
                if (f[0].equals("0") && Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"))) {
                    return Path.of("/sys/fs/cgroup");
                }
            }
        }
        return null;
    }
}
