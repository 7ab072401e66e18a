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
 * A process whose thread-group leader exited with SYS_exit (not exit_group) shows state Z in /proc/&lt;pid&gt;/stat
 * while its other threads keep running. A sweep that takes Z for "runs nothing" — the server's (warm-shell.js
 * {@code sweep}) or the host's {@code WarmShell.verifySwept} — would skip it, so a thread of the command would outlive
 * it; once the host has removed the placeholders ({@code SrtMountPoints.close}), which detaches their binds in the
 * shell's namespace, the thread would write the denied names on the host.
 */
class WarmZombieLeaderEscapeTest {
    @TempDir
    static Path tmp;
    static Sandbox sb;
    static Path ws;
    static TestEngine.Warm warm;

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

    private static String listing() throws Exception {
        try (Stream<Path> s = Files.walk(ws)) {
            return s.filter(p -> !p.startsWith(ws.resolve(".mono-agent"))).map(p -> ws.relativize(p).toString())
                    .toList().toString();
        }
    }

    @Test
    void aThreadOfAZombieLeaderOutlivesTheSweepAndWritesDeniedNamesOnTheHost() throws Exception {
        String run = "run-" + UUID.randomUUID();
        TestEngine.bash(sb, ws, "true", run, "warm-up", Duration.ofSeconds(60));
        String attack = "perl -Mthreads -e 'threads->create(sub { for my $i (1..20) { sleep 1; "
                + "if (open(my $f, \">\", \".env\")) { print $f \"PWN\\n\"; close $f; } "
                + "mkdir \".git\"; mkdir \".git/hooks\"; "
                + "if (open(my $k, \">\", \".git/hooks/pre-commit\")) { print $k \"#!/bin/sh\\necho PWN\\n\"; close $k; } "
                + "mkdir \".claude\"; mkdir \".claude/commands\"; "
                + "if (open(my $h, \">\", \".claude/commands/x.md\")) { print $h \"PWN\\n\"; close $h; } "
                + "} })->detach; syscall(60, 0);' </dev/null >/dev/null 2>&1 & echo started";
        var r = TestEngine.bash(sb, ws, attack, run, "attack", Duration.ofSeconds(60));
        // the command may come back killed (the shell doubted: its sweep could not end the thread); either way the
        // host is the verdict
        assertTrue(r.exitCode() == 0 || r.stderr().contains("warm shell"), r.exitCode() + " " + r.stderr());
        Thread.sleep(4000);
        Path env = ws.resolve(".env");
        String violations = r.violations().toString();
        boolean written = Files.exists(env, LinkOption.NOFOLLOW_LINKS) && Files.size(env) > 0;
        assertFalse(written, "ESCAPE: a thread of the warm command (its leader a zombie, skipped by the sweep and "
                + "verifySwept) wrote .env on the host after the command ended and its placeholders were removed: '"
                + (written ? Files.readString(env).strip() : "") + "'; host workspace: " + listing()
                + "; the command's violations: " + violations);
        assertFalse(Files.exists(ws.resolve(".git/hooks/pre-commit"), LinkOption.NOFOLLOW_LINKS),
                "ESCAPE: .git/hooks/pre-commit planted on the host: " + listing());
    }

    /**
     * The same in a workspace that is a git repository, judged on the record: the thread's writes to {@code .env},
     * {@code .bashrc}, {@code .gitmodules} and {@code .vscode/settings.json} land on the host (host {@code git status}
     * lists them), yet the log files them only as "write refused by the sandbox" on the attack call, and the next
     * command's scan reports nothing (its baseline already holds them).
     */
    @Test
    void inARepositoryTheWritesLandAndAreRecordedAsRefused(@TempDir Path t2) throws Exception {
        Path repo = Files.createDirectories(t2.resolve("repo")).toRealPath();
        assertEquals(0, new ProcessBuilder("sh", "-c", "git init -q . && echo a > a.txt && git add a.txt && "
                + "git -c user.email=a@b -c user.name=a commit -qm a").directory(repo.toFile()).inheritIO().start()
                .waitFor());
        Sandbox sb2 = Sandbox.open(TestEngine.config(repo, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                TestEngine.env());
        try {
            assertEquals("ready", sb2.status().state(), String.valueOf(sb2.status().reason()));
            String run = "run-" + UUID.randomUUID();
            TestEngine.bash(sb2, repo, "true", run, "warm-up", Duration.ofSeconds(60));
            String attack = "perl -Mthreads -e 'threads->create(sub { for my $i (1..20) { sleep 1; "
                    + "for my $n (\".env\", \".bashrc\", \".gitmodules\") { "
                    + "if (open(my $f, \">\", $n)) { print $f \"PWN\\n\"; close $f; } } "
                    + "mkdir \".vscode\"; if (open(my $g, \">\", \".vscode/settings.json\")) { print $g \"PWN\\n\"; close $g; } "
                    + "} })->detach; syscall(60, 0);' </dev/null >/dev/null 2>&1 & echo started";
            var a = TestEngine.bash(sb2, repo, attack, run, "attack", Duration.ofSeconds(60));
            Thread.sleep(3000);
            var next = TestEngine.bash(sb2, repo, "true", run, "next", Duration.ofSeconds(60));
            String status = new String(new ProcessBuilder("git", "-C", repo.toString(), "status", "--porcelain")
                    .redirectErrorStream(true).start().getInputStream().readAllBytes());
            Path env = repo.resolve(".env");
            boolean landed = Files.exists(env, LinkOption.NOFOLLOW_LINKS) && Files.size(env) > 0;
            boolean reportedWritten = java.util.stream.Stream.concat(a.violations().stream(),
                    next.violations().stream()).anyMatch(v -> String.valueOf(v.target()).endsWith("/.env")
                    && !String.valueOf(v.reason()).contains("refused"));
            assertFalse(landed && !reportedWritten, "WRONG RECORD + ESCAPE: .env was written on the host ('"
                    + (landed ? Files.readString(env).strip() : "") + "'; host git status: " + status.strip()
                    + ") but no record says so; attack call's violations: " + a.violations().stream()
                    .map(v -> v.target() + ": " + v.reason()).distinct().toList() + "; next call's: "
                    + next.violations());
        } finally {
            sb2.close();
        }
    }
}
