package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.sandbox.Sandbox;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file tools never go further than Bash. For every path in the escape corpus, a Write through
 * the tools and a write through Bash in the real sandbox have the same effect on the host: both land, or neither
 * leaves the written bytes at that path (refused by the engine, or quarantined right after the command).
 */
class ParityTest {
    /** The corpus: protected, host-control, git, nested-repo, hook-manager and plain paths. */
    static final List<String> CORPUS = List.of(
            "plain.txt", "src/new/file.txt", "README.md",
            ".env", ".env.local", ".env.custom", "app/.env", "app/.env.production",
            "mono-agent.config.json", "IDENTITY.md", "SOUL.md",
            ".git/config", ".git/HEAD", ".git/index", ".git/refs/heads/x", ".git/info/exclude",
            ".git/objects/info/alternates", ".git/hooks/pre-commit", ".git/newfile", ".git/commondir",
            "lib/.git/config", "lib/.git/HEAD", "lib/.git/hooks/post-checkout", "newrepo/.git/config",
            ".husky/pre-commit", ".husky/_/pre-commit", "lefthook.yml", ".pre-commit-config.yaml",
            ".githooks/pre-commit", ".claude/settings.json", ".claude/settings.local.json",
            ".claude/commands/x.md", ".vscode/settings.json", ".idea/workspace.xml", ".bashrc", "sub/.profile",
            ".gitmodules", ".mcp.json", ".mono-agent/violations.jsonl",
            ".npmrc", "app/.npmrc", ".envrc", ".direnv/x", ".yarnrc.yml", ".pnpmfile.cjs",
            // host-read tool configs (HostExecuted)
            "rust-toolchain.toml", "sub/rust-toolchain", ".cargo/config.toml", "app/.cargo/config", ".mvn/jvm.config",
            ".mvn/.gitignore", "sub/.mvn/maven.config", "gradle.properties", "gradle/gradle-daemon-jvm.properties",
            "mise.toml", "mise.dev.toml", ".mise.toml", ".config/mise/config.toml", ".tool-versions",
            ".python-version", ".nvmrc", "lefthook.json", ".lefthook.toml", "lefthook-local.jsonc",
            ".config/lefthook.toml", ".gemini/settings.json", ".codex/config.toml", ".cursor/mcp.json",
            ".zed/settings.json", "bunfig.toml", ".bunfig.toml", "global.json", ".hg/hgrc", ".yarn/releases/y.cjs",
            ".envrc.local", ".claude/hooks/check.sh");

    @TempDir
    Path tmp;

    private static void run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    }

    private static boolean landed(Path f, String content) throws Exception {
        return Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                && Files.readString(f, StandardCharsets.ISO_8859_1).contains(content);
    }

    @Test
    void bashAndFileToolsAgreeOnEveryCorpusPath() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        run(ws, "git", "init", "-q", ".");
        Files.createDirectories(ws.resolve("lib"));
        run(ws.resolve("lib"), "git", "init", "-q", ".");
        Files.createDirectories(ws.resolve(".husky/_"));
        Files.writeString(ws.resolve(".husky/_/pre-commit"), "#!/bin/sh\n");
        Files.writeString(ws.resolve("mono-agent.config.json"), "{}\n");
        Files.writeString(ws.resolve("IDENTITY.md"), "# me\n");
        Files.writeString(ws.resolve("SOUL.md"), "# soul\n");
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<String> disagree = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, e -> { }, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, e -> { })) {
            assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
            Tools.Run r = tools.run("run-parity");
            int i = 0;
            for (String path : CORPUS) {
                Path f = ws.resolve(path);
                String viaBash = "BASH-" + i;
                String viaTool = "TOOL-" + i;
                i++;
                r.call("c-b" + i, "Bash", json("command", "mkdir -p \"$(dirname '" + path + "')\" 2>/dev/null; printf '"
                        + viaBash + "' > '" + path + "'"));
                boolean bash = landed(f, viaBash);
                ToolResult w = r.call("c-w" + i, "Write", json("file_path", path, "content", viaTool));
                boolean tool = landed(f, viaTool);
                boolean plain = path.equals("plain.txt") || path.equals("src/new/file.txt") || path.equals("README.md");
                if (bash != plain || tool != plain) {
                    wrong.add(path + ": bash " + (bash ? "wrote" : "refused") + ", Write " + (tool ? "wrote" : "refused"));
                }
                if (bash != tool) {
                    disagree.add(path + ": bash " + (bash ? "wrote" : "refused") + ", Write " + (tool ? "wrote" : "refused")
                            + " (" + w.text().lines().findFirst().orElse("") + ")");
                }
            }
        }
        assertEquals(List.of(), disagree, "Bash and the file tools must agree on every corpus path");
        assertEquals(List.of(), wrong, "only the plain paths may be written, by either");
    }

    /** Existing host-read tool configs: Edit and Write are refused like Bash, and the host bytes stay. */
    @Test
    void fileToolsCannotChangeExistingHostReadConfigs() throws Exception {
        Path ws = SandboxedToolsTest.workspace(tmp);
        List<String> existing = List.of("rust-toolchain.toml", ".cargo/config.toml", ".mvn/jvm.config",
                "gradle.properties", "mise.toml", "lefthook.json", ".gemini/settings.json", ".codex/config.toml",
                "bunfig.toml", "global.json", "app/.tool-versions");
        for (String f : existing) {
            Files.createDirectories(ws.resolve(f).getParent());
            Files.writeString(ws.resolve(f), "original = 1\n");
        }
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.NONE);
        List<String> changed = new ArrayList<>();
        try (Sandbox sb = Sandbox.open(cfg, e -> { }, dev.monoagent.sandbox.TestEngine.env());
             Tools tools = Tools.open(cfg, sb, e -> { })) {
            Tools.Run r = tools.run("run-parity-edit");
            int i = 0;
            for (String f : existing) {
                i++;
                ToolResult e = r.call("c-e" + i, "Edit", json("file_path", f, "old_string", "original = 1",
                        "new_string", "evil = 1"));
                ToolResult w = r.call("c-w" + i, "Write", json("file_path", f, "content", "evil = 2"));
                if (!Files.readString(ws.resolve(f)).equals("original = 1\n")) {
                    changed.add(f + " (" + e.text().lines().findFirst().orElse("") + " / "
                            + w.text().lines().findFirst().orElse("") + ")");
                }
            }
        }
        assertEquals(List.of(), changed, "Edit/Write changed an existing host-read config");
    }
}
