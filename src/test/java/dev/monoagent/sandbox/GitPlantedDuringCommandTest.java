package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repository planted <em>during</em> a long command must not be live to host git until the command ends (were the
 * after-command scan to move it only then, the reviewer's {@code git status} in that dir meanwhile would run the
 * agent's {@code core.fsmonitor} on the host). The watch sees the layout appear, the host stops the
 * command, moves the repository out (by descriptor) and records it on the call, then lets the command go on. Here
 * each layout is planted by a command that then sleeps; from one second after it appeared, host git runs in that
 * directory again and again while the command still sleeps, and the fsmonitor marker must never be written.
 */
class GitPlantedDuringCommandTest {
    @TempDir
    Path tmp;

    @Test
    void aRepositoryPlantedWhileACommandRunsIsNeutralisedBeforeHostGitCanObeyIt() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-ran");
        String fsm = "echo ran >> " + marker + "; false";
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // a nested repository made with git itself
            plantAndProbe(sb, ws, "git init -q sub && git -C sub config core.fsmonitor '" + fsm + "'",
                    ws.resolve("sub"), marker, "call-ea-1");
            // a bare layout written by hand (config + HEAD + objects + refs), HEAD last
            plantAndProbe(sb, ws, "mkdir -p bare/objects bare/refs && printf '[core]\\n\\tfsmonitor = %s\\n' \""
                    + fsm + "\" > bare/config && echo 'ref: refs/heads/main' > bare/HEAD",
                    ws.resolve("bare"), marker, "call-ea-2");
            // a repository built in the session temp dir and moved in whole
            plantAndProbe(sb, ws, "git init -q \"$TMPDIR/r\" && git -C \"$TMPDIR/r\" config core.fsmonitor '" + fsm
                    + "' && mkdir -p moved && mv \"$TMPDIR/r/.git\" moved/.git",
                    ws.resolve("moved"), marker, "call-ea-3");
        }
    }

    @Test
    void aRepositoryPlantedByALongLivedProcessMidEvaluationIsNeutralisedAndRecordedOnThatEvaluation()
            throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-ran-repl");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // what a NodeRepl evaluation (or a detached child of the REPL) does while it runs
            SandboxProcess p = TestEngine.longLived(sb, ws, "(setsid sh -c \"git init -q bg && git -C bg "
                    + "config core.fsmonitor 'echo ran >> " + marker + "; false'; touch bg-done\" &); sleep 30",
                    "run-ea", "call-repl", Duration.ofSeconds(60));
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!Files.exists(ws.resolve("bg-done")) && System.nanoTime() < deadline && p.isAlive()) {
                    Thread.sleep(10);
                }
                Thread.sleep(1000);
                for (int i = 0; i < 10; i++) {
                    Process git = new ProcessBuilder("git", "-C", ws.resolve("bg").toString(), "status")
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                    assertTrue(git.waitFor(20, TimeUnit.SECONDS));
                    assertFalse(Files.exists(marker), "host git ran the fsmonitor planted by a running process");
                    Thread.sleep(100);
                }
                assertTrue(p.isAlive(), () -> "the process must still run: the repository was handled while it ran; "
                        + "bg-done " + Files.exists(ws.resolve("bg-done")) + ", recorded at exit: "
                        + p.violations().completeOnTimeout(List.of(), 5, TimeUnit.SECONDS).join());
                // the evaluation ends: the record carries its callId
                List<Violation> vs = p.checkpoint("call-eval-7");
                assertTrue(vs.stream().anyMatch(v -> "call-eval-7".equals(v.callId())
                        && v.reason().contains("while the command ran") && v.target() != null
                        && v.target().endsWith("bg/.git")),
                        vs.toString());
            } finally {
                p.destroy();
            }
        }
    }

    /**
     * A repository that appears while a long-lived process runs unfrozen may be its doing, also when the next Bash
     * command has started since: the intervention is judged from the earliest start among the running commands. It
     * used to be judged from the Bash command's start, which already held the repository, so nothing moved and host
     * git obeyed the planted config until the long-lived process ended; whether that happened depended on whether the
     * watch's trigger ran before or after the Bash command was live. Here the trigger is taken from the watch and the
     * intervention run while both are live, the order the old judgement missed.
     */
    @Test
    void aRepositoryThatAppearedWhileALongLivedProcessRanIsJudgedFromItsStartWhenALaterCommandRuns()
            throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-ran-late");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            ne.watch().onRepository(null);
            SandboxProcess p = TestEngine.longLived(sb, ws, "sleep 60", "run-late", "call-repl",
                    Duration.ofSeconds(90));
            try {
                // what the running process could have written (the host cannot tell who did)
                Path git = Files.createDirectories(ws.resolve("late/.git"));
                Files.createDirectories(git.resolve("objects"));
                Files.createDirectories(git.resolve("refs"));
                Files.writeString(git.resolve("HEAD"), "ref: refs/heads/main\n");
                Files.writeString(git.resolve("config"), "[core]\n\tfsmonitor = echo ran >> " + marker
                        + "; false\n");
                CompletableFuture<ExecOutcome.Completed> bash = CompletableFuture.supplyAsync(() -> TestEngine.bash(
                        sb, ws, "touch b-started; sleep 3", "run-late", "call-b", Duration.ofSeconds(60)));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!Files.exists(ws.resolve("b-started")) && System.nanoTime() < deadline && !bash.isDone()) {
                    Thread.sleep(10);
                }
                assertTrue(Files.exists(ws.resolve("b-started")) && !bash.isDone(), "the Bash command runs");
                ne.intervene();
                assertFalse(Files.exists(ws.resolve("late/.git"), java.nio.file.LinkOption.NOFOLLOW_LINKS),
                        "the repository stayed in host git's sight beside the long-lived process");
                Process hostGit = new ProcessBuilder("git", "-C", ws.resolve("late").toString(), "status")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                assertTrue(hostGit.waitFor(20, TimeUnit.SECONDS));
                assertFalse(Files.exists(marker), "host git ran the planted fsmonitor");
                ExecOutcome.Completed b = bash.get(60, TimeUnit.SECONDS);
                // not recorded on the Bash command: the repository was there when it started
                assertTrue(b.violations().stream().noneMatch(v -> v.target() != null
                        && v.target().contains("late/.git")), b.violations().toString());
                // but on the long-lived process's evaluation, which could have made it
                List<Violation> vs = p.checkpoint("call-eval-late");
                assertTrue(vs.stream().anyMatch(v -> "call-eval-late".equals(v.callId())
                        && v.reason().contains("while the command ran") && v.target() != null
                        && v.target().endsWith("late/.git")), vs.toString());
            } finally {
                p.destroy();
            }
        }
    }

    /**
     * A repository appearing the moment a long-lived process starts: the host stops every sandboxed process before it
     * judges the repository, and a process spawned a moment ago is still entering its control group (its host-side
     * wrapper's first step). That freeze failed its verification ("outside its control group") and the process was
     * killed, so what the human had just made was judged as its doing and quarantined (the reproducer in
     * {@code SrtScanCoverageTest}). The freeze now waits for the process to be in its group; it runs on.
     */
    @Test
    void aProcessStoppedRightAfterItStartsIsStoppedAndRunsOnNotKilled() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            ne.watch().onRepository(null);
            for (int i = 0; i < 5; i++) {
                SandboxProcess p = TestEngine.longLived(sb, ws, "sleep 60", "run-fresh", "call-repl-" + i,
                        Duration.ofSeconds(90));
                try {
                    ne.intervene();
                    Thread.sleep(200);
                    assertTrue(p.isAlive(), "round " + i + ": the process was killed by the stop right after its start");
                    List<Violation> vs = p.checkpoint("call-eval-" + i);
                    assertTrue(vs.stream().noneMatch(v -> v.reason().contains("could not be stopped")), vs.toString());
                } finally {
                    p.destroy();
                }
            }
        }
    }

    /**
     * A {@code .git} directory without HEAD is no repository to host git: the human's hooks-only one, made beside a
     * long-lived process, stays where it is when the host stops the process for an unrelated reason (srt's own
     * placeholders {@code .git/HEAD}, {@code .git/commondir} for a second sandbox wake the watch) — it used to be moved
     * to the quarantine then, by timing, so the human's file was in place in some runs and gone in others. Once HEAD,
     * {@code objects/} and {@code refs/} make it one, the next stop moves it.
     */
    @Test
    void aGitDirectoryWithoutHeadBesideALongLivedProcessStaysUntilItIsARepository() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            ne.watch().onRepository(null);
            SandboxProcess p = TestEngine.longLived(sb, ws, "sleep 60", "run-nohead", "call-repl",
                    Duration.ofSeconds(90));
            try {
                Path hook = ws.resolve("late/repo/.git/hooks/pre-push");
                Files.createDirectories(hook.getParent());
                Files.writeString(hook, "orig\n");
                ne.intervene();
                assertTrue(Files.exists(hook), "a .git directory with no HEAD was moved out");
                Path git = ws.resolve("late/repo/.git");
                Files.createDirectories(git.resolve("objects"));
                Files.createDirectories(git.resolve("refs"));
                Files.writeString(git.resolve("HEAD"), "ref: refs/heads/main\n");
                ne.intervene();
                assertFalse(Files.exists(git, java.nio.file.LinkOption.NOFOLLOW_LINKS),
                        "the repository stayed in host git's sight beside the long-lived process");
                assertTrue(p.isAlive(), "the process runs on");
                List<Violation> vs = p.checkpoint("call-eval-nohead");
                assertTrue(vs.stream().anyMatch(v -> v.target() != null && v.target().endsWith("late/repo/.git")),
                        vs.toString());
            } finally {
                p.destroy();
            }
        }
    }

    /**
     * A bare layout whose {@code refs/} arrives as a symlink to a directory. A trigger for HEAD (no layout yet) and for
     * {@code objects}/{@code refs} directories only would let the symlink completing the layout wake nothing, and host
     * git would obey it ({@code core.bare=false} + {@code core.worktree}) while the command ran. An
     * {@code objects}/{@code refs} symlink is a trigger too.
     */
    @Test
    void aBareLayoutCompletedByASymlinkedRefsDirectoryIsNeutralisedWhileTheCommandRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-a1");
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            String plant = "mkdir -p bare/objects r/heads && printf '[core]\\n\\trepositoryformatversion = 0\\n"
                    + "\\tbare = false\\n\\tworktree = %s\\n\\tfsmonitor = \"echo ran >> %s; false\"\\n' \"$PWD\" '"
                    + marker + "' > bare/config && echo 'ref: refs/heads/main' > bare/HEAD && sleep 1 "
                    + "&& ln -s ../r bare/refs && touch planted && sleep 8";
            CompletableFuture<ExecOutcome.Completed> cmd = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb,
                    ws, plant, "run-a1", "call-a1", Duration.ofSeconds(60)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Files.exists(ws.resolve("planted")) && System.nanoTime() < deadline && !cmd.isDone()) {
                Thread.sleep(10);
            }
            Thread.sleep(1000);
            boolean ran = false;
            int probes = 0;
            for (; probes < 5 && !cmd.isDone() && !ran; probes++) {
                ran = hostGitRuns(ws.resolve("bare"), marker);
                Thread.sleep(100);
            }
            assertTrue(probes > 0, "the command ended before host git was run beside it");
            ExecOutcome.Completed r = cmd.get(60, TimeUnit.SECONDS);
            assertFalse(ran, "host git ran the agent's fsmonitor while the command ran (bare layout, refs symlink)");
            assertTrue(r.violations().stream().anyMatch(v -> v.target() != null && v.target().endsWith("/bare")
                    && v.reason().contains("while the command ran")), r.violations().toString());
        }
    }

    /**
     * HEAD renamed into a {@code .git} amid 20,000 creates in the same directory: the JDK's per-key event list
     * overflows and the rename's event is lost. An overflow that only scheduled an index rebuild (which triggers
     * nothing) would let host git obey the repository while the command ran, so an overflow wakes the engine to judge
     * the tree from a walk; the repository is out within that walk's time.
     */
    @Test
    void aHeadRenamedInAmidAnEventFloodIsStillNeutralisedWhileTheCommandRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-a9");
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            String plant = "mkdir -p sub/.git/objects sub/.git/refs sub/.git/j && printf '[core]\\n\\t"
                    + "repositoryformatversion = 0\\n\\tfsmonitor = \"echo ran >> %s; false\"\\n' '" + marker
                    + "' > sub/.git/config && sleep 1 && (cd sub/.git && echo 'ref: refs/heads/main' > j/HEAD.t && "
                    + "seq -f a%g 1 20000 | xargs touch && mv j/HEAD.t HEAD && seq -f b%g 1 20000 | xargs touch "
                    + "&& rm -f a* b*); sleep 8";
            CompletableFuture<ExecOutcome.Completed> cmd = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb,
                    ws, plant, "run-a9", "call-a9", Duration.ofSeconds(60)));
            // from three seconds after HEAD appeared, host git in sub/ again and again while the command runs. After
            // an overflow the window is not milliseconds but one walk of the flooded tree (the index is distrusted),
            // and a walk already under way when HEAD arrived goes first: 1 s failed 1 of 1 gate runs at load 2-4
            Path head = ws.resolve("sub/.git/HEAD");
            long seenAt = 0;
            long goneAfterMs = -1;
            while (!cmd.isDone()) {
                if (Files.exists(head, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    if (seenAt == 0) {
                        seenAt = System.nanoTime();
                    } else if (System.nanoTime() - seenAt > TimeUnit.SECONDS.toNanos(3)) {
                        hostGitRuns(ws.resolve("sub"), marker);
                    }
                } else if (seenAt != 0 && goneAfterMs < 0) {
                    goneAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - seenAt);
                }
                Thread.sleep(20);
            }
            ExecOutcome.Completed r = cmd.get(60, TimeUnit.SECONDS);
            assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor while the command ran (HEAD event "
                    + "lost in an overflow; HEAD seen " + (seenAt != 0) + ", gone after " + goneAfterMs + " ms)");
            // not vacuous: the layout was made, and taken out while the command ran
            assertTrue(r.violations().stream().anyMatch(v -> v.target() != null && v.target().endsWith("sub/.git")
                    && v.reason().contains("while the command ran")), r.violations().toString());
        }
    }

    /**
     * A gitdir completed through {@code commondir} — {@code x/HEAD}, {@code x/commondir} ({@code ../y}) and
     * {@code x/config.worktree}, with objects, refs and config only in {@code y}: git looks them up in the common dir,
     * so a layout check that wants them beside HEAD would let host git obey {@code x} after the command with nothing
     * recorded. HEAD with a commondir is a repository.
     */
    @Test
    void aGitdirCompletedThroughCommondirIsTakenOut() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-d1");
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed r = TestEngine.bash(sb, ws, "mkdir -p x y/objects y/refs && echo 'ref: refs/heads/"
                    + "main' > x/HEAD && echo ../y > x/commondir && printf '[core]\\n\\tbare = false\\n\\tworktree = "
                    + ".\\n' > x/config.worktree && printf '[core]\\n\\trepositoryformatversion = 1\\n\\tfsmonitor "
                    + "= \"echo ran >> " + marker + "; false\"\\n[extensions]\\n\\tworktreeConfig = true\\n' > y/config",
                    "run-d1", "call-d1", Duration.ofSeconds(30));
            if (Files.isDirectory(ws.resolve("x"))) {
                hostGitRuns(ws.resolve("x"), marker);
            }
            assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor; recorded: " + r.violations());
            assertFalse(Files.exists(ws.resolve("x/HEAD"), java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    "the gitdir stayed in host git's sight");
            assertTrue(r.violations().stream().anyMatch(v -> v.target() != null && v.target().endsWith("/x")),
                    r.violations().toString());
        }
    }

    /**
     * {@code objects} a dangling symlink when the layout's last name appears ({@code ln -s ../o0 x/objects}), its
     * target made half a second later: a trigger that followed the link would find no repository then, and
     * {@code mkdir o0} wakes nothing, so host git would obey {@code x} mid-command. An entry counts without following
     * links.
     */
    @Test
    void aLayoutWhoseObjectsLinkDanglesWhenItAppearsIsTakenOutWhileTheCommandRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path marker = tmp.toRealPath().resolve("fsmonitor-d2");
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            String plant = "mkdir -p x/refs && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false"
                    + "\\n\\tworktree = .\\n\\tfsmonitor = \"echo ran >> " + marker + "; false\"\\n' > x/config && "
                    + "echo 'ref: refs/heads/main' > x/HEAD && ln -s ../o0 x/objects && sleep 0.5 && mkdir o0 && "
                    + "touch planted; sleep 6";
            CompletableFuture<ExecOutcome.Completed> cmd = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb,
                    ws, plant, "run-d2", "call-d2", Duration.ofSeconds(60)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Files.exists(ws.resolve("planted")) && System.nanoTime() < deadline && !cmd.isDone()) {
                Thread.sleep(10);
            }
            Thread.sleep(1000);
            int probes = 0;
            for (; probes < 5 && !cmd.isDone() && !Files.exists(marker); probes++) {
                if (Files.isDirectory(ws.resolve("x"))) {
                    hostGitRuns(ws.resolve("x"), marker);
                }
                Thread.sleep(100);
            }
            assertTrue(probes > 0, "the command ended before host git was run beside it");
            ExecOutcome.Completed r = cmd.get(60, TimeUnit.SECONDS);
            assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor while the command ran");
            assertTrue(r.violations().stream().anyMatch(v -> v.target() != null && v.target().endsWith("/x")
                    && v.reason().contains("while the command ran")), r.violations().toString());
        }
    }

    private static boolean hostGitRuns(Path dir, Path marker) throws Exception {
        Process git = new ProcessBuilder("git", "-C", dir.toString(), "status").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(git.waitFor(20, TimeUnit.SECONDS));
        return Files.exists(marker);
    }

    @Test
    void aRepositoryPlantedAsTheCommandEndsIsStillTakenOutAndRecordedOnce() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // the intervention and the after-command scan race for the same repository: either may move it, never
            // neither, and it is recorded on the call (not twice as both "while running" and "created and deleted")
            for (int i = 0; i < 12; i++) {
                String sub = "end" + i;
                ExecOutcome.Completed r = TestEngine.bash(sb, ws, "mkdir -p " + sub + "/objects " + sub + "/refs; "
                        + "printf '[core]\\n' > " + sub + "/config; echo 'ref: refs/heads/main' > " + sub + "/HEAD",
                        "run-ea", "call-end" + i, Duration.ofSeconds(30));
                assertFalse(HostControl.bareLayout(ws.resolve(sub)), "bare layout left in host git's sight: " + sub);
                long recorded = r.violations().stream().filter(v -> v.target() != null
                        && v.target().startsWith(ws.resolve(sub).toString()) && v.tier() == Violation.Tier.DETECTED)
                        .count();
                assertTrue(recorded == 1, sub + " recorded " + recorded + " times: " + r.violations());
            }
        }
    }

    private static void plantAndProbe(Sandbox sb, Path ws, String plant, Path repoDir, Path marker, String callId) throws Exception {
        Path done = ws.resolve("planted-" + callId);
        CompletableFuture<ExecOutcome.Completed> cmd = CompletableFuture.supplyAsync(() -> TestEngine.bash(sb, ws,
                plant + "; touch " + done.getFileName() + "; sleep 6", "run-ea", callId, Duration.ofSeconds(60)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(done) && System.nanoTime() < deadline && !cmd.isDone()) {
            Thread.sleep(10);
        }
        // the layout was planted (it may be gone already: moved out at once); host git runs from 1 s after that
        Thread.sleep(1000);
        for (int i = 0; i < 20 && !cmd.isDone(); i++) {
            Process git = new ProcessBuilder("git", "-C", repoDir.toString(), "status").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertTrue(git.waitFor(20, TimeUnit.SECONDS));
            assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor while the command still ran ("
                    + callId + ", " + repoDir + ")");
            Thread.sleep(100);
        }
        assertFalse(cmd.isDone(), () -> "the command ended before host git was tried: nothing was shown: "
                + cmd.join().exitCode() + " " + cmd.join().stderr() + " " + cmd.join().violations());
        ExecOutcome.Completed r = cmd.get(60, TimeUnit.SECONDS);
        assertFalse(Files.exists(marker), "host git ran the agent's fsmonitor");
        List<Violation> vs = r.violations();
        assertTrue(vs.stream().anyMatch(v -> callId.equals(v.callId()) && v.tier() == Violation.Tier.DETECTED
                && v.reason().contains("repository created below the workspace while the command ran")
                && v.target() != null && v.target().startsWith(repoDir.toString())),
                "not recorded on " + callId + " as stopped mid-command: " + vs + "\n" + r.stderr());
    }
}
