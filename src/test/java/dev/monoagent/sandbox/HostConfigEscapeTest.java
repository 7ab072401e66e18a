package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files a host tool reads on its own from the directory it runs in or an ancestor
 * ({@link HostExecuted}). Planted through Bash in the real sandbox, they must never make the reviewer's later
 * {@code cargo --version} or {@code mvn -v} run the agent's code: a new one is quarantined and recorded (also when a
 * {@code .gitignore} hides it from git), an existing one cannot be changed, renamed, replaced by a link or hardlinked.
 */
class HostConfigEscapeTest {
    @TempDir
    Path tmp;

    private static ExecOutcome.Completed bash(Sandbox sb, Path dir, String cmd) {
        return TestEngine.bash(sb, dir, cmd, "run-cfg", "call-cfg", Duration.ofSeconds(60));
    }

    private static String host(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd) + " hung");
        return out;
    }

    /** The first executable {@code name} on the test's PATH, or null. */
    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        for (String d : path == null ? new String[0] : path.split(File.pathSeparator)) {
            Path f = Path.of(d.isEmpty() ? "." : d).resolve(name);
            if (Files.isExecutable(f)) {
                return f;
            }
        }
        return null;
    }

    private static boolean recorded(ExecOutcome.Completed c, Path f) {
        return c.violations().stream().anyMatch(v -> v.target() != null
                && (v.target().equals(f.toString()) || f.toString().startsWith(v.target() + "/")
                || v.target().startsWith(f + "/")));
    }

    /**
     * The agent plants a fake toolchain and {@code rust-toolchain.toml} ({@code path =} it) at the top and in a
     * subdir, and a {@code .cargo/config.toml}; the host's rustup proxy ({@code cargo --version}) in either dir must
     * run the real cargo. Needs rustup's proxies on PATH (CI has none: skipped with that reason).
     */
    @Test
    void hostCargoNeverRunsAnAgentToolchain() throws Exception {
        Path cargo = onPath("cargo");
        Assumptions.assumeTrue(cargo != null && onPath("rustup") != null,
                "rustup's cargo proxy is not on PATH: the host-cargo end-to-end check cannot run on this machine");
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve("sub"));
        Path marker = tmp.resolve("HOSTEXEC-cargo");
        String fake = "printf '#!/bin/sh\\necho fake > " + marker + "\\necho fake cargo\\n' > tc/bin/cargo; "
                + "cp tc/bin/cargo tc/bin/rustc; chmod +x tc/bin/*; ";
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = bash(sb, ws, "mkdir -p tc/bin tc/lib .cargo; " + fake
                    + "printf '[toolchain]\\npath = \"" + ws + "/tc\"\\n' > rust-toolchain.toml; "
                    + "cp rust-toolchain.toml sub/rust-toolchain.toml; printf '[toolchain]\\npath = \"" + ws
                    + "/tc\"\\n' > sub/rust-toolchain; printf '[build]\\nrustc-wrapper = \"" + ws
                    + "/tc/bin/rustc\"\\n' > .cargo/config.toml; echo 'rust-toolchain.toml' > .gitignore");
            assertEquals(0, c.exitCode(), c.stderr());
            // the reviewer's next step first: what matters is what the host tool runs
            for (Path dir : List.of(ws, ws.resolve("sub"))) {
                String out = host(dir, cargo.toString(), "--version");
                assertFalse(out.contains("fake cargo"), "host cargo in " + dir + " ran the agent's toolchain: " + out);
            }
            assertFalse(Files.exists(marker), "host cargo ran the agent's toolchain");
            for (String f : List.of("rust-toolchain.toml", "sub/rust-toolchain.toml", "sub/rust-toolchain",
                    ".cargo/config.toml")) {
                assertFalse(Files.exists(ws.resolve(f), LinkOption.NOFOLLOW_LINKS), f + " stayed on the host");
                assertTrue(recorded(c, ws.resolve(f)), f + " not recorded: " + c.violations());
            }
        }
    }

    /**
     * {@code .mvn/jvm.config} (here {@code -Xlog} to a file, a host-side effect the agent chose; {@code -agentpath}
     * would load its code) hidden from git by {@code .mvn/.gitignore}; the host's {@code mvn -v} in the project and
     * in a subdir must not apply it. Needs mvn on PATH (the build itself runs on it).
     */
    @Test
    void hostMavenNeverLoadsAnAgentJvmConfig() throws Exception {
        Path mvn = onPath("mvn");
        Assumptions.assumeTrue(mvn != null, "mvn is not on PATH: the host-Maven end-to-end check cannot run");
        Path ws = Files.createDirectories(tmp.resolve("mws")).toRealPath();
        Files.createDirectories(ws.resolve("sub"));
        Path marker = tmp.resolve("HOSTEXEC-mvn");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = bash(sb, ws, "mkdir -p .mvn sub/.mvn && echo '-Xlog:gc:file=" + marker
                    + "' > .mvn/jvm.config && cp .mvn/jvm.config sub/.mvn/jvm.config && echo '*' > .mvn/.gitignore"
                    + " && echo '-Dmaven.ext.class.path=" + ws + "/evil.jar' > .mvn/maven.config");
            assertEquals(0, c.exitCode(), c.stderr());
            for (Path dir : List.of(ws, ws.resolve("sub"))) {
                String out = host(dir, mvn.toString(), "-v");
                assertTrue(out.contains("Apache Maven"), out);
                assertFalse(Files.exists(marker), "host mvn -v in " + dir + " applied the agent's .mvn/jvm.config");
            }
            for (String f : List.of(".mvn/jvm.config", ".mvn/.gitignore", ".mvn/maven.config", "sub/.mvn/jvm.config")) {
                assertFalse(Files.exists(ws.resolve(f), LinkOption.NOFOLLOW_LINKS), f + " stayed on the host");
                assertTrue(recorded(c, ws.resolve(f)), f + " not recorded: " + c.violations());
            }
        }
    }

    /** A concrete path for a catalogue entry ({@code *} becomes {@code x}). */
    private static String concrete(String entry) {
        return entry.replace("*", "x");
    }

    /**
     * Every catalogue entry, created new by Bash at the top (as a file) and nested below {@code app/} (as a dir
     * with a file in it), with a top-level {@code .gitignore} of {@code *} and a symlink and a hardlink variant: none
     * stays on the host, each is recorded.
     */
    @Test
    void everyNewHostReadNameIsQuarantinedAndRecorded() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("nws")).toRealPath();
        Files.writeString(ws.resolve("plain.txt"), "plain\n");
        List<String> paths = new ArrayList<>();
        StringBuilder cmd = new StringBuilder("echo '*' > .gitignore; ");
        for (String e : HostExecuted.NAMES) {
            String top = concrete(e);
            String nested = "app/" + concrete(e) + "/inner";
            paths.add(top);
            paths.add(nested);
            cmd.append("mkdir -p \"$(dirname '").append(top).append("')\" \"$(dirname '").append(nested)
                    .append("')\"; echo evil > '").append(top).append("'; echo evil > '").append(nested).append("'; ");
        }
        cmd.append("mkdir -p links; ln -s ../plain.txt links/.nvmrc; ln plain.txt links/global.json; true");
        paths.add("links/.nvmrc");
        paths.add("links/global.json");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = bash(sb, ws, cmd.toString());
            List<String> stayed = new ArrayList<>();
            List<String> unrecorded = new ArrayList<>();
            for (String f : paths) {
                if (Files.exists(ws.resolve(f), LinkOption.NOFOLLOW_LINKS)) {
                    stayed.add(f);
                }
                // refused in place (srt's own .claude handling) shows in the command's stderr instead of a record
                if (!recorded(c, ws.resolve(f)) && !c.stderr().contains(f + ": ")) {
                    unrecorded.add(f);
                }
            }
            assertEquals(List.of(), stayed, "new host-read config stayed on the host");
            assertEquals(List.of(), unrecorded, "new host-read config not recorded");
            assertEquals("plain\n", Files.readString(ws.resolve("plain.txt")));
        }
    }

    /**
     * The settings other agents, editors and git-lfs read by themselves, written as an agent would (an MCP server
     * for Qwen Code, aider's lint-cmd, a Helix language server, an LFS URL, an Emacs eval, a dev container's
     * initializeCommand): none stays on the host, each is recorded.
     */
    @Test
    void otherToolsSettingsAreQuarantinedAndRecorded() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("tws")).toRealPath();
        Map<String, String> files = new java.util.LinkedHashMap<>();
        files.put(".qwen/settings.json", "{\"mcpServers\":{\"x\":{\"command\":\"touch\"}}}");
        files.put(".aider.conf.yml", "lint-cmd: touch /tmp/pwn");
        files.put(".aider.model.settings.yml", "- name: x\n  extra_params:\n    api_base: http://127.0.0.1:9");
        files.put("crush.json", "{\"mcp\":{}}");
        files.put(".crush.json", "{\"lsp\":{}}");
        files.put(".kilocode/mcp.json", "{\"mcpServers\":{}}");
        files.put(".helix/languages.toml", "[language-server.x]\ncommand = \"touch\"");
        files.put(".lfsconfig", "[lfs]\nurl = http://127.0.0.1:9/lfs");
        files.put(".dir-locals.el", "((nil . ((eval . (shell-command \"touch /tmp/pwn\")))))");
        files.put(".dir-locals-2.el", "((nil . ((compile-command . \"touch /tmp/pwn\"))))");
        files.put(".devcontainer/devcontainer.json", "{\"initializeCommand\":\"touch /tmp/pwn\"}");
        files.put(".devcontainer.json", "{\"initializeCommand\":\"touch /tmp/pwn\"}");
        files.put(".windsurf/hooks.json", "{}");
        files.put(".clinerules/hooks/PreToolUse", "#!/bin/sh");
        files.put(".junie/mcp/mcp.json", "{}");
        files.put("sub/.qwen/settings.json", "{}");
        StringBuilder cmd = new StringBuilder();
        files.forEach((f, body) -> cmd.append("mkdir -p \"$(dirname '").append(f).append("')\"; printf '%s\\n' '")
                .append(body.replace("'", "'\\''")).append("' > '").append(f).append("'; "));
        cmd.append("true");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = bash(sb, ws, cmd.toString());
            List<String> stayed = files.keySet().stream()
                    .filter(f -> Files.exists(ws.resolve(f), LinkOption.NOFOLLOW_LINKS)).toList();
            List<String> unrecorded = files.keySet().stream().filter(f -> !recorded(c, ws.resolve(f))).toList();
            assertEquals(List.of(), stayed, "another tool's settings stayed on the host");
            assertEquals(List.of(), unrecorded, "another tool's settings not recorded");
        }
    }

    /**
     * Existing host-read configs (the reviewer's own project files) cannot be changed from Bash: append, overwrite,
     * rename, replace by a symlink, hardlink-then-write, remove, rename the dir holding them.
     */
    @Test
    void existingHostReadConfigsCannotBeChanged() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ews")).toRealPath();
        Map<String, String> files = new TreeMap<>(Map.ofEntries(
                Map.entry("rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\n"),
                Map.entry(".cargo/config.toml", "[build]\njobs = 1\n"),
                Map.entry(".mvn/jvm.config", "-Xmx512m\n"),
                Map.entry("gradle.properties", "org.gradle.jvmargs=-Xmx1g\n"),
                Map.entry("mise.toml", "[tools]\nnode = \"20\"\n"),
                Map.entry(".tool-versions", "nodejs 20.11.1\n"),
                Map.entry("lefthook.json", "{}\n"),
                Map.entry(".gemini/settings.json", "{}\n"),
                Map.entry(".codex/config.toml", "model = \"x\"\n"),
                Map.entry(".bunfig.toml", "[run]\n"),
                Map.entry("global.json", "{}\n"),
                Map.entry("app/rust-toolchain", "stable\n"),
                Map.entry("app/.cargo/config", "[build]\n")));
        for (Map.Entry<String, String> e : files.entrySet()) {
            Files.createDirectories(ws.resolve(e.getKey()).getParent());
            Files.writeString(ws.resolve(e.getKey()), e.getValue());
        }
        Map<String, String> before = HostControlEscapeTest.tree(ws);
        try (Sandbox sb = TestEngine.openReady(ws)) {
            // one command per kind of attack, over every file (a sandboxed command costs ~0.1-0.3 s)
            for (String a : List.of("echo evil >> \"$f\"", "echo evil > \"$f\"", "mv \"$f\" \"$f.bak\"",
                    "ln -sf /tmp/evil \"$f\"", "ln \"$f\" h && echo evil >> h", "rm -rf \"$f\"",
                    "mv \"$(dirname \"$f\")\" moved-dir")) {
                bash(sb, ws, "for f in " + String.join(" ", files.keySet()) + "; do " + a
                        + " 2>/dev/null; rm -f h; done; true");
                assertEquals(before, HostControlEscapeTest.tree(ws), "host file changed by: " + a);
            }
            bash(sb, ws, "mv app app2 2>/dev/null; mv .mvn mvn2 2>/dev/null; true");
            assertEquals(before, HostControlEscapeTest.tree(ws), "renaming a dir that holds host-read configs changed the host");
        }
    }
}
