package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm shell (the default) against the real srt + bubblewrap: srt's placeholders for absent denied paths (an empty
 * read-only {@code .env.local}, {@code .bashrc}, {@code .vscode}, an empty {@code .git} in a repository-less
 * workspace, …) exist on the host only while a command runs, and while it runs nothing it tries makes a denied name
 * writable: unmounting them (directly, lazily, from a user namespace of its own), binding a writable file over one,
 * removing, renaming or hard-linking one, a background process waiting for the command to end, or reaching the process
 * that binds them. Each attempt is judged on the host: the denied name absent (or empty) after the command, nothing
 * it wrote anywhere that counts.
 */
class WarmPlaceholderTest {
    @TempDir
    static Path tmp;
    static Sandbox sb;
    static Path ws;

    static TestEngine.Warm warm;

    /** Absent protected names in a repository-less workspace (ours and srt's own). */
    static final List<String> ABSENT = List.of(".env", ".env.local", ".bashrc", ".gitconfig", ".mcp.json", ".vscode",
            ".idea", ".claude", ".git");

    @BeforeAll
    static void open() throws Exception {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        warm = TestEngine.openWarm(ws, new TestEngine.Events());
        sb = warm.sandbox();
    }

    @AfterAll
    static void close() {
        if (warm != null) {
            warm.close();
        }
    }

    private static ExecOutcome.Completed bash(String run, String call, String cmd) {
        return TestEngine.bash(sb, ws, cmd, run, call, Duration.ofSeconds(60));
    }

    private static List<String> hostNames() throws Exception {
        try (Stream<Path> s = Files.list(ws)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".mono-agent")).sorted().toList();
        }
    }

    private static void assertNoDeniedNameOnHost(String context) throws Exception {
        for (String n : ABSENT) {
            assertFalse(Files.exists(ws.resolve(n), LinkOption.NOFOLLOW_LINKS), n + " is on the host " + context
                    + "; workspace: " + hostNames());
        }
    }

    @Test
    void placeholdersAreOnTheHostOnlyWhileACommandRuns() throws Exception {
        String run = "run-" + UUID.randomUUID();
        var during = bash(run, "see", "readlink /proc/self/ns/pid; ls -A");
        assertEquals(0, during.exitCode(), during.stderr());
        for (String n : ABSENT) {
            assertTrue(during.stdout().lines().anyMatch(n::equals), "inside, " + n + " is a placeholder while the "
                    + "command runs: " + during.stdout());
        }
        // between commands the run's shell lives on, and the workspace holds none of them (on the old code they
        // stayed for as long as the shell: .env.local, .bashrc, .vscode, an empty .git, ...)
        assertNoDeniedNameOnHost("between two commands of a live warm shell");
        var again = bash(run, "again", "readlink /proc/self/ns/pid; ls -A .vscode .git 2>&1; "
                + "echo x > .env.local; echo rc=$?; mkdir -p .vscode/x; echo rc=$?; "
                + "mkdir -p .claude/commands && echo pwn > .claude/commands/x.md; echo rc=$?; "
                + "mkdir -p .git/hooks && echo pwn > .git/hooks/pre-commit; echo rc=$?");
        assertEquals(during.stdout().lines().findFirst(), again.stdout().lines().findFirst(),
                "the same warm shell ran both");
        assertFalse(again.stdout().contains("rc=0"), again.stdout() + again.stderr());
        assertNoDeniedNameOnHost("after writes to the placeholders were tried");
    }

    @Test
    void aPlaceholderMadeOrRemovedOnTheHostBetweenCommandsIsBoundForTheNextCommand() throws Exception {
        String run = "run-" + UUID.randomUUID();
        for (int round = 0; round < 3; round++) {
            bash(run, "first" + round, "true");
            // the human makes an empty read-only file where a placeholder goes (as a leftover would look) or none: the
            // next command must not find the name writable either way
            Path p0 = ws.resolve(".env.local");
            Files.deleteIfExists(p0);
            if (round == 1) {
                Files.createFile(p0);
                p0.toFile().setReadOnly();
            }
            Files.deleteIfExists(ws.resolve(".bashrc"));
            var r = bash(run, "second" + round, "echo pwn > .env.local; echo rc=$?; echo pwn >> .bashrc; echo rc=$?");
            assertFalse(r.stdout().contains("rc=0"), "round " + round + ": " + r.stdout() + r.stderr());
            for (String n : List.of(".env.local", ".bashrc")) {
                Path p = ws.resolve(n);
                assertFalse(Files.exists(p, LinkOption.NOFOLLOW_LINKS) && Files.size(p) > 0, n + " written: "
                        + hostNames());
            }
        }
        Files.deleteIfExists(ws.resolve(".env.local"));
        assertNoDeniedNameOnHost("after the rounds");
    }

    @Test
    void unmountingOrCoveringAPlaceholderFromInsideWritesNothingThatCounts() throws Exception {
        String run = "run-" + UUID.randomUUID();
        Files.writeString(ws.resolve("decoy.txt"), "decoy\n");
        String tries = String.join("\n",
                "umount .env.local 2>/dev/null; umount -l .env.local 2>/dev/null; echo a > .env.local",
                // a user and mount namespace of its own: the shell's mounts come in locked
                "unshare --user --map-root-user --mount sh -c 'umount .env.local; umount -l .env.local; "
                        + "echo b > .env.local; umount -l .git; mkdir -p .git/hooks; echo b > .git/hooks/pre-commit; "
                        + "mount --bind decoy.txt .bashrc && echo covered >> .bashrc' 2>/dev/null",
                "rm -f .env.local; mv .env.local moved 2>/dev/null; ln .env.local linked 2>/dev/null; "
                        + "rmdir .vscode 2>/dev/null; mv .git gone 2>/dev/null",
                "chmod u+w .env.local 2>/dev/null; echo c >> .env.local",
                // the read-only templates every placeholder is bound from (the sandbox's private /dev/shm)
                // a twin of a template in the workspace would pass the shell's "bound already" check (the template's
                // device and inode): a hard link cannot cross from the private /dev/shm
                "for t in /dev/shm/.mono-agent-warm-tpl-*; do ln $t/f twin; ln $t/d twin-dir; done 2>/dev/null",
                "for t in /dev/shm/.mono-agent-warm-tpl-*; do echo pwn > $t/f; chmod u+w $t/f; echo pwn >> $t/f; "
                        + "touch $t/d/x; mv $t/f $t/g; rm -rf $t/d; mv $t $t.x; done 2>/dev/null",
                // outlive the command, to write once the host has taken the placeholders away
                "( sleep 1.5; echo late > .env.local; mkdir -p .vscode; echo late > .vscode/settings.json ) "
                        + "</dev/null >/dev/null 2>&1 &",
                "setsid sh -c 'sleep 1.5; echo late > .bashrc' </dev/null >/dev/null 2>&1 &",
                "echo done");
        var r = bash(run, "attack", tries);
        assertTrue(r.stdout().contains("done"), r.stdout() + r.stderr());
        Thread.sleep(2500);
        assertNoDeniedNameOnHost("after unmount/cover/remove/link tries and late writers");
        for (String n : List.of("moved", "linked", "gone", "twin", "twin-dir")) {
            assertFalse(Files.exists(ws.resolve(n), LinkOption.NOFOLLOW_LINKS), n + " made from a placeholder: "
                    + hostNames());
        }
        // the bind over .bashrc (if it held at all) stayed in the command's own namespace: its write went to decoy
        String decoy = Files.readString(ws.resolve("decoy.txt"));
        assertTrue(decoy.equals("decoy\n") || decoy.equals("decoy\ncovered\n"), decoy);
        var next = bash(run, "next", "readlink /proc/self/ns/pid; ls -A .claude | wc -l; "
                + "cat .env.local .bashrc .vscode | wc -c");
        assertEquals(List.of("0", "0"), next.stdout().lines().skip(1).map(String::strip).toList(),
                "the next command's placeholders are empty (the templates unchanged): " + next.stdout()
                        + next.stderr());
        assertEquals("", next.stderr(), "and readable, in the same warm shell (no fallback to a fresh sandbox)");
        assertNoDeniedNameOnHost("after the next command");
    }

    @Test
    void theStashIsOutOfReachAndLosingItCostsNoProtection() throws Exception {
        String run = "run-" + UUID.randomUUID();
        bash(run, "one", "true");
        // between commands the placeholders wait in the state dir, numbered (after the engine's own prefix), never
        // under a denied name
        Path stash = ws.resolve(".mono-agent/warm-stash");
        List<String> held;
        try (Stream<Path> s = Files.list(stash)) {
            held = s.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertFalse(held.isEmpty(), "the stash holds the placeholders between commands");
        assertTrue(held.stream().allMatch(n -> n.matches("[0-9a-f]{12}-[0-9]+")), held.toString());
        // while the shell is idle its placeholders sit there; a long-lived sandboxed process (a NodeRepl's kind)
        // runs meanwhile and goes at them: the state dir is read-only in every sandbox
        StartOutcome so = sb.start(new CommandSpec(List.of("/bin/bash", "-c", "n=0; for f in .mono-agent/warm-stash/*; "
                + "do n=$((n+1)); (echo x > $f) 2>/dev/null && echo WROTE; mv $f .env.local 2>/dev/null && echo MOVED; "
                + "rm -rf $f 2>/dev/null; [ -e $f ] || echo REMOVED; done; mkdir .mono-agent/warm-stash/x 2>/dev/null "
                + "&& echo MADE; echo \"seen=$n\""), ws, Duration.ofSeconds(60), null, java.util.Map.of(), run, "poke",
                "NodeRepl", CommandSpec.DEFAULT_MAX_OUTPUT));
        SandboxProcess poke = ((StartOutcome.Started) so).process();
        String out = new String(poke.stdout().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(poke.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals("seen=" + held.size() + "\n", out, "nothing of the stash changed from inside");
        try (Stream<Path> s = Files.list(stash)) {
            assertEquals(held, s.map(p -> p.getFileName().toString()).sorted().toList());
        }
        // the human loses the stash between commands: the next command gets fresh placeholders, refused alike
        NoFollowFs.deleteTree(stash);
        var w = bash(run, "after", "echo pwn > .env.local; echo rc=$?; mkdir -p .git/hooks 2>/dev/null && echo HOOKS; "
                + "echo x >> .bashrc; echo rc=$?");
        assertFalse(w.stdout().contains("rc=0") || w.stdout().contains("HOOKS"), w.stdout() + w.stderr());
        assertNoDeniedNameOnHost("after the stash was lost");
        // and when the engine closes, the stash goes with it
        Path ws2 = Files.createDirectories(tmp.resolve("ws2")).toRealPath();
        try (Sandbox other = Sandbox.open(TestEngine.config(ws2, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                TestEngine.env())) {
            assertEquals("ready", other.status().state(), String.valueOf(other.status().reason()));
            TestEngine.bash(other, ws2, "true", "run-x", "x", Duration.ofSeconds(60));
            assertTrue(Files.isDirectory(ws2.resolve(".mono-agent/warm-stash")));
        }
        assertFalse(Files.exists(ws2.resolve(".mono-agent/warm-stash"), LinkOption.NOFOLLOW_LINKS),
                "no stash once the engine is closed");
    }

    @Test
    void theProcessThatBindsThemIsOutOfReach() throws Exception {
        String run = "run-" + UUID.randomUUID();
        bash(run, "warm-up", "true");
        // the Perl mounter is root of the shell's user namespace and not dumpable: a command holds no capability
        // there, so it can neither send it requests, forge its answers to the server, nor read its memory or root
        // (listing the numbers of its descriptors is allowed, as for every process in the sandbox)
        var r = bash(run, "reach", "n=O_NO; n=${n}FOLLOW; for p in /proc/[0-9]*; do [ ${p#/proc/} = $$ ] && continue; "
                + "if grep -q \"$n\" $p/cmdline 2>/dev/null; then "
                + "echo \"mounter ${p#/proc/} $(cat $p/comm)\"; "
                + "(printf '1\\nf 2f746d70\\n' > $p/fd/0) 2>/dev/null && echo WROTE-STDIN; "
                + "(printf 'ok\\n' > $p/fd/1) 2>/dev/null && echo WROTE-STDOUT; "
                + "for fd in $(ls $p/fd 2>/dev/null); do (printf 'ok\\n' > $p/fd/$fd) 2>/dev/null && echo WROTE-$fd; "
                + "done; "
                + "(head -c1 $p/mem >/dev/null) 2>/dev/null && echo READ-MEM; "
                + "(cat $p/environ >/dev/null) 2>/dev/null && echo READ-ENV; "
                + "(ls $p/root/ >/dev/null) 2>/dev/null && echo ROOT; "
                + "fi; done; echo end");
        assertTrue(r.stdout().contains(" perl"), "the mounter is visible in the sandbox: " + r.stdout());
        assertTrue(r.stdout().contains(" node"), "so is the server: " + r.stdout());
        for (String bad : List.of("WROTE", "READ-MEM", "READ-ENV", "ROOT")) {
            assertFalse(r.stdout().contains(bad), bad + ": " + r.stdout());
        }
        var after = bash(run, "after", "echo x > .env; echo rc=$?");
        assertFalse(after.stdout().contains("rc=0"), after.stdout());
        assertNoDeniedNameOnHost("after trying the mounter");
    }
}
