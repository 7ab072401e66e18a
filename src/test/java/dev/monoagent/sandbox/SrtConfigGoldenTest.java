package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.NetworkMode;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.MonoConfig;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The pure half of the policy compiler, pinned byte for byte: hand-written workspace facts (nothing on disk — the
 * paths do not exist) → {@link Policy} → deny literals → {@link SrtConfig} JSON, compared with a golden file. A change
 * to what srt receives must show up as a reviewed diff of {@code srt-config.golden.json}.
 */
class SrtConfigGoldenTest {
    private static final Path HOME = Path.of("/home/rev");
    private static final Path WS = HOME.resolve("project");
    private static final Path CACHE = HOME.resolve(".cache/mono-agent");

    @Test
    void compiledConfigMatchesTheGoldenFile() throws Exception {
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(SandboxMode.NATIVE,
                new MonoConfig.Network(NetworkMode.LOCALHOST, List.of()), List.of(".", HOME.toString()),
                List.of(".", "/srv/out"), MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Fallback.FAIL_CLOSED, false);
        // the other writable root's repository runs husky from a custom dir: its dispatch dir and the bodies above it
        WorkspaceFacts.GitLayout git = new WorkspaceFacts.GitLayout(WS.resolve("tools/githooks"),
                WorkspaceFacts.DotGit.DIRECTORY, List.of(Path.of("/srv/out/.config/husky/_")));
        Policy p = PolicyCompiler.compile(TestEngine.config(WS, s), HOME, CACHE, git);
        WorkspaceFacts facts = new WorkspaceFacts(WorkspaceFacts.DotGit.DIRECTORY,
                List.of(WS.resolve("app/.env"), WS.resolve("app/config/.env.custom"),
                        WS.resolve("vendor/lib/.git/hooks/pre-commit"), WS.resolve("pkg/.vscode/settings.json"),
                        WS.resolve("pkg/.bashrc"), Path.of("/srv/out/.env"), Path.of("/srv/out/app/.env.custom"),
                        Path.of("/srv/out/.vscode/settings.json")),
                Set.of(WS.resolve("vendor/lib/.git/config"), WS.resolve("vendor/lib/.git/hooks")),
                Set.of(Path.of("/srv/out")),
                Map.of(HOME, List.of(HOME.resolve(".ssh"), HOME.resolve("docs"), HOME.resolve("project"))),
                // whole git control dirs (workspace and nested) and the absent host files left unmounted
                List.of(WS.resolve(".git"), WS.resolve("vendor/lib/.git")),
                Set.of(WS.resolve("mono-agent.config.json"), WS.resolve("IDENTITY.md"), WS.resolve("SOUL.md")));
        List<Path> deny = PolicyCompiler.denyLiterals(p, facts);
        PolicyCompiler.EngineFacts engine = new PolicyCompiler.EngineFacts(HOME, Path.of("/tmp/mono-agent-1000/s-1"),
                Path.of("/usr/bin/bwrap"), Path.of("/usr/bin/socat"), Path.of("/usr/bin/rg"),
                CACHE.resolve("srt/apply-seccomp"), List.of(CACHE.resolve("srt"), Path.of("/usr/bin"), HOME),
                List.of(Path.of("/srv"), Path.of("/tmp"), Path.of("/opt"), Path.of("/etc/ssh")));
        SrtConfig cfg = PolicyCompiler.srtConfig(p, deny, engine, List.of(5432), facts);
        String json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(cfg.toMap())
                .replace("\r\n", "\n") + "\n";
        String golden;
        try (InputStream in = getClass().getResourceAsStream("srt-config.golden.json")) {
            golden = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (Boolean.getBoolean("golden.update")) {
            java.nio.file.Files.writeString(Path.of("src/test/resources/dev/monoagent/sandbox/srt-config.golden.json"),
                    json);
            return;
        }
        assertEquals(golden, json);
    }
}
