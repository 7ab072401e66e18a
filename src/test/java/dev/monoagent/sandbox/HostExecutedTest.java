package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The host-read config catalogue ({@link HostExecuted}) as {@link Policy#dangerousName} and the finder's globs apply
 * it, and the two documents that must list it.
 */
class HostExecutedTest {
    @Test
    void namesMatchAtAnyDepthAndCoverWhatIsBelowThem() {
        for (String p : List.of("rust-toolchain.toml", "a/b/rust-toolchain", ".cargo/config.toml", "x/.cargo/config",
                ".mvn/jvm.config", "svc/.mvn/wrapper/maven-wrapper.properties", "gradle.properties",
                "gradle/gradle-daemon-jvm.properties", "mise.toml", "mise.ci.toml", "d/.mise.local.toml",
                ".mise/config.toml", "mise/config.toml", "mise/config.dev.toml", ".config/mise/conf.d/a.toml",
                ".config/mise.toml", ".tool-versions", ".python-version", ".sdkmanrc", "bunfig.toml", ".bunfig.toml",
                "global.json", ".hg/hgrc", "lefthook.jsonc", ".config/lefthook.toml", ".lefthook-local.json",
                ".lefthook-local/pre-commit/x.sh", ".gemini/settings.json", ".codex/config.toml", ".cursor/mcp.json",
                ".yarn/releases/yarn-4.cjs", ".envrc.local", ".claude/hooks/h.sh", ".qwen/settings.json",
                "crush.json", "a/.crush.json", ".aider.conf.yml", ".aider.model.settings.yml", ".kilocode/mcp.json",
                ".helix/languages.toml", ".lfsconfig", "lib/.dir-locals.el", ".dir-locals-2.el",
                ".devcontainer/devcontainer.json", ".devcontainer.json", ".windsurf/rules/r.md", ".clinerules",
                ".clinerules/hooks/PreToolUse", ".junie/guidelines.md")) {
            assertNotNull(Policy.dangerousName(Path.of(p)), p);
        }
    }

    @Test
    void lookAlikesAreNotProtected() {
        for (String p : List.of("mise.toml.bak", "mymise.toml", "cargo/config.toml", "mvn/jvm.config",
                "gradle/wrapper/gradle-wrapper.properties", "gradle.properties.example", "src/mise/tasks.rs",
                "mise/tasks/build", "yarn/releases/x", ".yarn/cache/x.zip", "lefthook.md", "global.jsonc",
                ".claude/skills/x.md", "rust-toolchain.md", ".venv/lib/python3.12/site-packages/x.pth", "gradlew",
                "mvnw", "node_modules/.bin/x", "crush.json.bak", "helix/languages.toml", ".aider.chat.history.md",
                ".cursorrules", ".github/copilot-instructions.md", "AGENTS.md")) {
            assertNull(Policy.dangerousName(Path.of(p)), p);
        }
    }

    @Test
    void theOutermostProtectedPathIsWhatTheEngineDenies() {
        Path ws = Path.of("/w");
        assertEquals(ws.resolve("a/.mvn"), HostControl.hostExecuted(ws, ws.resolve("a/.mvn/jvm.config")));
        assertEquals(ws.resolve(".config/mise"), HostControl.hostExecuted(ws, ws.resolve(".config/mise/config.toml")));
        assertEquals(ws.resolve("mise.dev.toml"), HostControl.hostExecuted(ws, ws.resolve("mise.dev.toml")));
        assertEquals(ws.resolve("gradle/gradle-daemon-jvm.properties"),
                HostControl.hostExecuted(ws, ws.resolve("gradle/gradle-daemon-jvm.properties")));
        assertNull(HostControl.hostExecuted(ws, ws.resolve("gradle/wrapper/gradle-wrapper.properties")));
    }

    /**
     * README's "What is protected" and docs/sandbox-probes.md name every catalogue entry, each in backticks, where
     * shell-style braces may group names ({@code `{,.}lefthook.{yml,json}`}).
     */
    @Test
    void readmeAndProbesDocListEveryName() throws Exception {
        for (Path doc : List.of(Path.of("README.md"), Path.of("docs/sandbox-probes.md"))) {
            java.util.Set<String> listed = new java.util.HashSet<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("`([^`\\s]+)`").matcher(Files.readString(doc));
            while (m.find()) {
                for (String n : expand(m.group(1))) {
                    listed.add(n.endsWith("/") ? n.substring(0, n.length() - 1) : n);
                }
            }
            List<String> missing = HostExecuted.NAMES.stream().filter(n -> !listed.contains(n)).toList();
            assertEquals(List.of(), missing, doc + " does not list these protected names");
        }
    }

    /** {@code a{b,c}d{e,f}} → abde, abdf, acde, acdf (no nesting). */
    static List<String> expand(String s) {
        int open = s.indexOf('{');
        int close = open < 0 ? -1 : s.indexOf('}', open);
        if (close < 0) {
            return List.of(s);
        }
        List<String> out = new ArrayList<>();
        for (String alt : s.substring(open + 1, close).split(",", -1)) {
            out.addAll(expand(s.substring(0, open) + alt + s.substring(close + 1)));
        }
        return out;
    }
}
