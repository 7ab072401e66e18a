package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Event;
import dev.monoagent.common.Violation;
import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.TestEngine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What mono-agent later reads as the reviewer's settings, and the protected names of every writable root, attacked
 * through Bash in the real sandbox and through the Write tool, with {@code --config review.json} in use and
 * {@code writableRoots [".", "../other"]}. One engine for the class. Judged by host state: an existing file's bytes are
 * unchanged; a new one is gone from its path, moved to the quarantine, and a violation names it.
 */
class HostSettingsTrustTest {
    static final String OFF = "{\"sandbox\":{\"mode\":\"off\"}}";
    static Path root;
    static Path ws;
    static Path other;
    static Sandbox sb;
    static Tools tools;
    static final List<Event> events = new CopyOnWriteArrayList<>();
    /** Every existing file the attacks aim at, with its bytes before them. */
    static final Map<Path, String> existing = new LinkedHashMap<>();

    @BeforeAll
    static void open() throws Exception {
        existing.clear();
        root = Files.createTempDirectory("mono-trust-").toRealPath();
        ws = Files.createDirectories(root.resolve("ws"));
        other = Files.createDirectories(root.resolve("other"));
        git(ws, "init", "-q", ".");
        // husky 9 in a custom dir: git runs .config/husky/_/<hook>, which runs the body .config/husky/<hook>
        git(ws, "config", "core.hooksPath", ".config/husky/_");
        Files.createDirectories(ws.resolve(".config/husky/_"));
        put(ws.resolve(".config/husky/_/pre-commit"), "#!/bin/sh\n. \"$(dirname \"$0\")/h\"\n");
        put(ws.resolve(".config/husky/_/h"), "#!/bin/sh\nsh \"$(dirname \"$(dirname \"$0\")\")/$(basename \"$0\")\"\n");
        put(ws.resolve(".config/husky/pre-commit"), "npm test\n");
        put(ws.resolve("review.json"), "{\"sandbox\":{\"mode\":\"native\"}}\n");
        put(other.resolve(".env"), "OTHER_SECRET=1\n");
        Files.createDirectories(other.resolve(".husky"));
        put(other.resolve(".husky/pre-commit"), "npm run lint\n");
        put(other.resolve("IDENTITY.md"), "# Identity\n");
        Files.createDirectories(ws.resolve("pkg/app"));
        Files.createDirectories(ws.resolve("pkg/web"));
        LoadedConfig cfg = config();
        sb = Sandbox.open(cfg, events::add, TestEngine.env());
        assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
        tools = Tools.open(cfg, sb, events::add);
    }

    @AfterAll
    static void close() throws IOException {
        if (tools != null) {
            tools.close();
        }
        if (sb != null) {
            sb.close();
        }
        if (root != null) {
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    static void put(Path f, String text) throws IOException {
        Files.writeString(f, text);
        existing.put(f, text);
    }

    static void git(Path dir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", cmd));
    }

    /** The reviewer's {@code --config review.json}, with a second writable root beside the workspace. */
    static LoadedConfig config() {
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(Enums.SandboxMode.NATIVE, new MonoConfig.Network(
                Enums.NetworkMode.NONE, List.of()), List.of(".", "../other"), List.of(".", "../other"),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Enums.Fallback.FAIL_CLOSED, false);
        MonoConfig d = MonoConfig.DEFAULTS;
        MonoConfig mc = new MonoConfig(d.agent(), d.runtime(), d.providers(), d.context(), MonoConfig.Tools.DEFAULTS,
                s, d.memory(), d.processJobs(), d.monitors());
        return new LoadedConfig(ws.resolve("review.json"), true, ws, mc, Map.of(), List.of(), Map.of());
    }

    /** Each existing target whose bytes changed on the host, added to {@code problems}. */
    static void existingUnchanged(List<String> problems) throws IOException {
        for (Map.Entry<Path, String> e : existing.entrySet()) {
            if (!e.getValue().equals(Files.readString(e.getKey()))) {
                problems.add("changed on the host: " + e.getKey());
            }
        }
    }

    /** Whether a file named like {@code f}'s place in its root lies in the workspace's quarantine. */
    static boolean quarantined(Path f, String content) throws IOException {
        Path q = ws.resolve(".mono-agent/quarantine");
        if (!Files.isDirectory(q)) {
            return false;
        }
        // <time>/<path in the workspace>, or <time>/roots/<n>-other/<path in the other root>
        Path tail = f.startsWith(ws) ? ws.relativize(f) : Path.of("roots").resolve(other.relativize(f));
        try (Stream<Path> s = Files.walk(q)) {
            return s.filter(x -> q.relativize(x).getNameCount() > 1
                            && q.relativize(x).subpath(1, q.relativize(x).getNameCount()).toString()
                            .replaceFirst("^roots/\\d+-other/", "roots/").equals(tail.toString())
                            && Files.isRegularFile(x, LinkOption.NOFOLLOW_LINKS))
                    .anyMatch(x -> {
                        try {
                            return Files.readString(x, StandardCharsets.UTF_8).contains(content);
                        } catch (IOException e) {
                            return false;
                        }
                    });
        }
    }

    static boolean violation(String callId, Path f) {
        return events.stream().filter(e -> e instanceof Event.ViolationObserved).map(e ->
                ((Event.ViolationObserved) e).violation()).anyMatch(v -> callId.equals(v.callId())
                && v.target() != null && v.target().equals(f.toString()));
    }

    @Test
    void bashCannotPlantOrAlterSettingsInAnyRoot() throws Exception {
        List<Path> planted = List.of(ws.resolve("pkg/app/mono-agent.config.json"), ws.resolve("mono-agent.config.json"),
                ws.resolve("pkg/app/review.json"), ws.resolve("pkg/app/.mono-agent/x"), ws.resolve("pkg/SOUL.md"),
                other.resolve("mono-agent.config.json"), other.resolve(".envrc"), other.resolve(".env.custom"),
                other.resolve("lib/IDENTITY.md"));
        StringBuilder cmd = new StringBuilder("mkdir -p pkg/app/.mono-agent ../other/lib; ");
        for (Path f : planted) {
            cmd.append("echo '").append(OFF).append("' > ").append(f).append(" 2>/dev/null; ");
        }
        for (Path f : existing.keySet()) {
            cmd.append("echo pwned >> ").append(f).append(" 2>/dev/null; ");
        }
        cmd.append("echo pwned > ../other/.env.local 2>/dev/null; echo pwned > .config/husky/post-merge 2>/dev/null; ")
                .append("mkdir -p ../other/.husky/_ 2>/dev/null; echo pwned > ../other/.husky/pre-push 2>/dev/null; ")
                .append("true");
        Tools.Run run = tools.run("run-bash");
        ToolResult r = run.call("c-bash", "Bash", json("command", cmd.toString()));
        assertEquals("ok", r.outcome().wire(), r.text());
        // every attack judged, then reported together
        List<String> problems = new java.util.ArrayList<>();
        existingUnchanged(problems);
        for (Path f : planted) {
            if (Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
                problems.add("left at its path: " + f);
            }
            if (!quarantined(f, OFF)) {
                problems.add("not in the quarantine: " + f);
            }
            if (!violation("c-bash", f)) {
                problems.add("no violation for " + f);
            }
        }
        Path envLocal = other.resolve(".env.local");
        if (Files.exists(envLocal) && Files.readString(envLocal).contains("pwned")) {
            problems.add("written: " + envLocal);
        }
        for (Path f : List.of(ws.resolve(".config/husky/post-merge"), other.resolve(".husky/pre-push"))) {
            if (Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
                problems.add("a new hook body: " + f);
            }
        }
        assertEquals(List.of(), problems, events.toString());
        run.close();
    }

    @Test
    void writeToolRefusesSettingsInAnyRoot() throws Exception {
        List<Path> targets = List.of(ws.resolve("pkg/web/mono-agent.config.json"), ws.resolve("mono-agent.config.json"),
                ws.resolve("review.json"), ws.resolve("pkg/web/review.json"), ws.resolve("pkg/web/IDENTITY.md"),
                ws.resolve("pkg/web/.mono-agent/state"), ws.resolve(".config/husky/pre-commit"),
                other.resolve(".env"), other.resolve(".env.local"), other.resolve(".envrc"),
                other.resolve(".husky/pre-commit"), other.resolve("mono-agent.config.json"),
                other.resolve("IDENTITY.md"), other.resolve("web/SOUL.md"));
        Tools.Run run = tools.run("run-write");
        List<String> problems = new java.util.ArrayList<>();
        int i = 0;
        for (Path f : targets) {
            String id = "c-w" + i++;
            ToolResult w = run.call(id, "Write", json("file_path", f.toString(), "content", OFF));
            if (!"denied_by_policy".equals(w.outcome().wire())) {
                problems.add("not refused: " + f + " (" + w.text() + ")");
            }
            if (!existing.containsKey(f) && Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
                problems.add("written: " + f);
            }
        }
        existingUnchanged(problems);
        assertEquals(List.of(), problems);
        run.close();
    }
}
